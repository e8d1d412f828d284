package fakeopenai

import (
	"context"

	"concierge/agent"
	"concierge/memory"
)

// ModelHandler answers chat requests with a real agent.Provider behind the
// fake's wire format: the request is turned back into the agent's form,
// the provider answers, and its text and tool calls go out as a
// completion. Backed by the offline model it makes a deterministic model
// server, so the openai-go path can be driven through whole conversations.
// Structured calls (a response_format was asked for) are answered by
// structured, or with an empty JSON object when structured is nil.
func ModelHandler(p agent.Provider, structured func(ChatRequest) Response) func(ChatRequest) Response {
	return func(r ChatRequest) Response {
		if r.ResponseFormat != nil {
			if structured != nil {
				return structured(r)
			}
			return Response{Content: "{}"}
		}
		req := agent.Request{Model: r.Model, MaxTokens: r.MaxCompletionTokens}
		for _, m := range r.Messages {
			if m.Role == "system" || m.Role == "developer" {
				req.Instructions += m.Content
				continue
			}
			msg := memory.Message{Role: memory.Role(m.Role), Content: m.Content, ToolCallID: m.ToolCallID}
			for _, c := range m.ToolCalls {
				msg.ToolCalls = append(msg.ToolCalls, memory.ToolCall{ID: c.ID, Name: c.Function.Name, Arguments: c.Function.Arguments})
			}
			req.Messages = append(req.Messages, msg)
		}
		for _, t := range r.Tools {
			req.Tools = append(req.Tools, memory.Tool{Name: t.Function.Name, Description: t.Function.Description, Parameters: t.Function.Parameters})
		}
		resp, err := p.Complete(context.Background(), req, nil)
		if err != nil {
			return Response{Status: 500}
		}
		out := Response{Content: resp.Content}
		for _, c := range resp.ToolCalls {
			out.ToolCalls = append(out.ToolCalls, ToolCall{ID: c.ID, Type: "function", Function: FunctionCall{Name: c.Name, Arguments: c.Arguments}})
		}
		return out
	}
}
