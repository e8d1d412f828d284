package offline

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"concierge/agent"
	"concierge/memory"
	"concierge/memory/longchat"
	"concierge/memory/prompt"
)

// history is a conversation of n traveler turns with the model's replies,
// as the agent would send it (untrimmed, to show the cost per call does
// not depend on its length).
func history(b *testing.B, n int) []memory.Message {
	b.Helper()
	c := newChat(b, johnState())
	for i := 0; i < n; i++ {
		c.say(goa[i%len(goa)])
	}
	msgs := append([]memory.Message{}, c.history...)
	return append(msgs, user("Can you suggest a hotel near Candolim for the second week of March?"))
}

// BenchmarkComplete measures one model call after 10 and after 100 turns
// of history, with the real token counter the agent uses. The fresh
// variants end on a message never seen before, so nothing read of the
// latest message is remembered from an earlier call, as on a new turn.
func BenchmarkComplete(b *testing.B) {
	m := New(memory.NewTokenCounter("gpt-4o-mini"))
	instr := prompt.BuildInstructions(johnState(), prompt.InjectOptions{Today: "2026-12-01", Trimmed: true}).Text
	for _, turns := range []int{10, 100} {
		req := agent.Request{Instructions: instr, Messages: history(b, turns), Tools: []memory.Tool{memory.SaveNoteTool()}}
		b.Run(fmt.Sprintf("turns=%d", turns), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := m.Complete(context.Background(), req, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("turns=%d/fresh", turns), func(b *testing.B) {
			b.ReportAllocs()
			fresh := req
			fresh.Messages = slices.Clone(req.Messages)
			latest := &fresh.Messages[len(fresh.Messages)-1]
			text := latest.Content
			for i := 0; b.Loop(); i++ {
				latest.Content = text + " " + strconv.Itoa(i)
				if _, err := m.Complete(context.Background(), fresh, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkScript measures every model call of the load generator's
// conversation, tool rounds included, as one iteration: the mix of work
// the server's offline turns do. The calls are recorded once, driving the
// model as chat.say does (tool results all succeed), and replayed.
func BenchmarkScript(b *testing.B) {
	var reqs []agent.Request
	var history []memory.Message
	var saved []memory.Note
	tools := []memory.Tool{memory.SaveNoteTool()}
	raw, err := os.ReadFile("../../cmd/concierge-load/script.txt") // the load generator's conversation
	if err != nil {
		b.Fatal(err)
	}
	for turn, text := range strings.Split(strings.TrimSpace(string(raw)), "\n") {
		history = append(history, memory.Message{Role: memory.RoleUser, Content: text, Turn: turn + 1})
		for round := 1; round <= 4; round++ {
			kept, trimmed := longchat.Trim(history, longchat.TrimOptions{MaxUserTurns: longchat.DefaultMaxUserTurns, TokenBudget: 12000})
			st := johnState()
			st.Session = saved
			instr := prompt.BuildInstructions(st, prompt.InjectOptions{Today: "2026-12-01", LatestMessage: text, Trimmed: trimmed}).Text
			req := agent.Request{Instructions: instr, Messages: kept, Tools: tools}
			reqs = append(reqs, req)
			resp := complete(b, req)
			history = append(history, memory.Message{Role: memory.RoleAssistant, Content: resp.Content, ToolCalls: resp.ToolCalls, Turn: turn + 1})
			if len(resp.ToolCalls) == 0 {
				break
			}
			for _, tc := range resp.ToolCalls {
				if args, err := memory.ParseSaveNoteArgs(tc.Arguments); err == nil {
					saved = append(saved, memory.Note{ID: fmt.Sprintf("s%d", len(saved)), Text: args.Text, Keywords: args.Keywords, Scope: args.Scope, LastUpdateDate: "2026-12-01"})
				}
				history = append(history, memory.Message{Role: memory.RoleTool, ToolCallID: tc.ID, Content: `{"ok":true}`, Turn: turn + 1})
			}
		}
	}
	m := New(memory.NewTokenCounter("gpt-4o-mini"))
	b.ReportAllocs()
	for b.Loop() {
		for _, req := range reqs {
			if _, err := m.Complete(context.Background(), req, nil); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(len(reqs)), "calls/op")
}
