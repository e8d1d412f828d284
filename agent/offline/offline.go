// Package offline is Concierge's built-in model: a deterministic engine behind
// the agent.Provider interface that runs when no language model is configured.
//
// Like a real model it sees only what it is sent — the instructions, the
// trimmed messages and the tools — and answers with save_memory_note calls or
// text. It keeps no state between calls, uses no network and no randomness.
package offline

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"concierge/agent"
	"concierge/memory"
)

// Model is the offline model. It is safe for concurrent use.
type Model struct {
	counter memory.TokenCounter
}

// New returns the offline model; counter prices prompts and answers in tokens.
// A nil counter falls back to a rough four-characters-per-token estimate.
func New(counter memory.TokenCounter) *Model {
	return &Model{counter: counter}
}

// Name returns "offline".
func (m *Model) Name() string { return "offline" }

var _ agent.Provider = (*Model)(nil)

// Complete answers one model call. When the last message is the user's and
// it states preferences worth keeping, and the save_memory_note tool is on
// offer, the answer is one tool call per fact and no text; when the last
// messages are tool results, it acknowledges what was saved or refused and
// then answers the user; otherwise it answers with text.
func (m *Model) Complete(ctx context.Context, req agent.Request, onDelta func(string)) (agent.Response, error) {
	if err := ctx.Err(); err != nil {
		return agent.Response{}, fmt.Errorf("offline model: %w", err)
	}
	var resp agent.Response
	conv := readConversation(req)
	switch {
	case conv.lastRole == memory.RoleTool:
		resp.Content = conv.afterToolResults()
	case conv.lastRole == memory.RoleUser && conv.offersSaveTool:
		if calls := conv.saveCalls(); len(calls) > 0 {
			resp.ToolCalls = calls
			break
		}
		resp.Content = conv.reply()
	default:
		resp.Content = conv.reply()
	}
	if resp.Content != "" && onDelta != nil {
		for _, chunk := range strings.SplitAfter(resp.Content, " ") {
			if err := ctx.Err(); err != nil {
				return agent.Response{}, fmt.Errorf("offline model: %w", err)
			}
			onDelta(chunk)
		}
	}
	if err := ctx.Err(); err != nil {
		return agent.Response{}, fmt.Errorf("offline model: %w", err)
	}
	resp.Usage = m.usage(req, resp)
	return resp, nil
}

func (m *Model) usage(req agent.Request, resp agent.Response) agent.Usage {
	var prompt strings.Builder
	prompt.WriteString(req.Instructions)
	for _, msg := range req.Messages {
		prompt.WriteString("\n")
		prompt.WriteString(msg.Content)
		for _, tc := range msg.ToolCalls {
			prompt.WriteString("\n")
			prompt.WriteString(tc.Arguments)
		}
	}
	completion := resp.Content
	for _, tc := range resp.ToolCalls {
		completion += "\n" + tc.Arguments
	}
	return agent.Usage{PromptTokens: m.count(prompt.String()), CompletionTokens: m.count(completion)}
}

func (m *Model) count(s string) int {
	if m.counter != nil {
		return m.counter.Count(s)
	}
	if s == "" {
		return 0
	}
	return (len(s) + 3) / 4
}

// saveCalls turns the latest user message into save_memory_note calls,
// leaving out what is already remembered word for word.
func (c *conversation) saveCalls() []memory.ToolCall {
	known := map[string]bool{}
	for _, n := range c.state.all() {
		known[strings.ToLower(n.text)] = true
	}
	var calls []memory.ToolCall
	for _, n := range c.finding.Notes {
		if known[strings.ToLower(n.Text)] {
			continue
		}
		args, err := json.Marshal(n)
		if err != nil {
			continue
		}
		calls = append(calls, memory.ToolCall{
			ID:        fmt.Sprintf("call_%d", c.priorCalls+len(calls)+1),
			Name:      memory.SaveNoteToolName,
			Arguments: string(args),
		})
	}
	return calls
}
