package fakeopenai

import (
	"encoding/json"
	"fmt"
	"strings"
)

// ChatRequest is one decoded POST /v1/chat/completions request as the fake
// received it.
type ChatRequest struct {
	Model               string          `json:"model"`
	Messages            []Message       `json:"messages"`
	Tools               []Tool          `json:"tools,omitempty"`
	ToolChoice          json.RawMessage `json:"tool_choice,omitempty"`
	Stream              bool            `json:"stream,omitempty"`
	StreamOptions       *StreamOptions  `json:"stream_options,omitempty"`
	MaxCompletionTokens int             `json:"max_completion_tokens,omitempty"`
	MaxTokens           int             `json:"max_tokens,omitempty"`
	ResponseFormat      *ResponseFormat `json:"response_format,omitempty"`
	Temperature         *float64        `json:"temperature,omitempty"`

	// APIKey is the bearer token of the Authorization header.
	APIKey string `json:"-"`
	// Attempt is the client's retry count for this request (the
	// X-Stainless-Retry-Count header openai-go sends; 0 for a first try).
	Attempt int `json:"-"`
	// Raw is the request body exactly as received.
	Raw json.RawMessage `json:"-"`
}

// Message is one chat message of a request. Content holds the text whether
// the client sent a string or an array of text parts.
type Message struct {
	Role       string     `json:"role"`
	Content    string     `json:"content"`
	ToolCalls  []ToolCall `json:"tool_calls,omitempty"`
	ToolCallID string     `json:"tool_call_id,omitempty"`
	Name       string     `json:"name,omitempty"`
}

// UnmarshalJSON accepts content as a string, null, or an array of parts.
func (m *Message) UnmarshalJSON(b []byte) error {
	var w struct {
		Role       string          `json:"role"`
		Content    json.RawMessage `json:"content"`
		ToolCalls  []ToolCall      `json:"tool_calls"`
		ToolCallID string          `json:"tool_call_id"`
		Name       string          `json:"name"`
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*m = Message{Role: w.Role, ToolCalls: w.ToolCalls, ToolCallID: w.ToolCallID, Name: w.Name}
	c := strings.TrimSpace(string(w.Content))
	switch {
	case c == "" || c == "null":
	case strings.HasPrefix(c, `"`):
		return json.Unmarshal(w.Content, &m.Content)
	case strings.HasPrefix(c, "["):
		var parts []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		}
		if err := json.Unmarshal(w.Content, &parts); err != nil {
			return err
		}
		for _, p := range parts {
			m.Content += p.Text
		}
	default:
		return fmt.Errorf("content must be a string or an array, got %s", c)
	}
	return nil
}

// ToolCall is one function call, in a request's assistant message or in a
// scripted answer. An empty ID in a scripted answer is filled in by the fake.
type ToolCall struct {
	ID       string       `json:"id"`
	Type     string       `json:"type"`
	Function FunctionCall `json:"function"`
}

// FunctionCall is the name and raw JSON arguments of a tool call.
type FunctionCall struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// Tool is one tool definition of a request.
type Tool struct {
	Type     string      `json:"type"`
	Function FunctionDef `json:"function"`
}

// FunctionDef is the function a tool definition describes.
type FunctionDef struct {
	Name        string         `json:"name"`
	Description string         `json:"description,omitempty"`
	Parameters  map[string]any `json:"parameters,omitempty"`
	Strict      *bool          `json:"strict,omitempty"`
}

// StreamOptions are the stream_options of a streaming request.
type StreamOptions struct {
	IncludeUsage bool `json:"include_usage"`
}

// ResponseFormat is the response_format of a request.
type ResponseFormat struct {
	Type       string      `json:"type"`
	JSONSchema *JSONSchema `json:"json_schema,omitempty"`
}

// JSONSchema is the structured-output part of a json_schema response format.
type JSONSchema struct {
	Name   string          `json:"name"`
	Strict bool            `json:"strict"`
	Schema json.RawMessage `json:"schema"`
}

// Usage is the token usage the fake reports.
type Usage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	TotalTokens      int `json:"total_tokens"`
}

// The wire shapes of the fake's answers.
type (
	completion struct {
		ID      string             `json:"id"`
		Object  string             `json:"object"`
		Created int64              `json:"created"`
		Model   string             `json:"model"`
		Choices []completionChoice `json:"choices"`
		Usage   Usage              `json:"usage"`
	}
	completionChoice struct {
		Index        int               `json:"index"`
		Message      completionMessage `json:"message"`
		FinishReason string            `json:"finish_reason"`
	}
	completionMessage struct {
		Role      string     `json:"role"`
		Content   *string    `json:"content"`
		ToolCalls []ToolCall `json:"tool_calls,omitempty"`
	}
	chunk struct {
		ID      string        `json:"id"`
		Object  string        `json:"object"`
		Created int64         `json:"created"`
		Model   string        `json:"model"`
		Choices []chunkChoice `json:"choices"`
		Usage   *Usage        `json:"usage,omitempty"`
	}
	chunkChoice struct {
		Index        int        `json:"index"`
		Delta        chunkDelta `json:"delta"`
		FinishReason *string    `json:"finish_reason"`
	}
	chunkDelta struct {
		Role      string          `json:"role,omitempty"`
		Content   *string         `json:"content,omitempty"`
		ToolCalls []toolCallDelta `json:"tool_calls,omitempty"`
	}
	toolCallDelta struct {
		Index    int               `json:"index"`
		ID       string            `json:"id,omitempty"`
		Type     string            `json:"type,omitempty"`
		Function functionCallDelta `json:"function"`
	}
	functionCallDelta struct {
		Name      string `json:"name,omitempty"`
		Arguments string `json:"arguments"`
	}
	apiError struct {
		Error apiErrorBody `json:"error"`
	}
	apiErrorBody struct {
		Message string  `json:"message"`
		Type    string  `json:"type"`
		Param   *string `json:"param"`
		Code    *string `json:"code"`
	}
)
