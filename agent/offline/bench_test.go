package offline

import (
	"context"
	"fmt"
	"testing"

	"concierge/agent"
	"concierge/memory"
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
// of history, with the real token counter the agent uses.
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
	}
}
