package agent

import (
	"context"

	"concierge/memory"
)

// Request is everything one model call is given: the assembled instructions,
// the trimmed history and the tools.
type Request struct {
	Model        string           `json:"model"`
	Instructions string           `json:"instructions"`
	Messages     []memory.Message `json:"messages"`
	Tools        []memory.Tool    `json:"tools,omitempty"`
	MaxTokens    int              `json:"max_tokens,omitempty"`
}

// Usage is the token cost of one model call.
type Usage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
}

// Response is what a model answered: text, tool calls, or both.
type Response struct {
	Content   string            `json:"content"`
	ToolCalls []memory.ToolCall `json:"tool_calls,omitempty"`
	Usage     Usage             `json:"usage"`
	// FinishReason is why the model stopped ("stop", "tool_calls",
	// "length"…), as the model server said; empty when it does not say.
	FinishReason string `json:"finish_reason,omitempty"`
}

// Provider is a chat model behind one small interface. onDelta, when not nil,
// receives the answer's text as it is generated.
type Provider interface {
	Name() string
	Complete(ctx context.Context, req Request, onDelta func(string)) (Response, error)
}
