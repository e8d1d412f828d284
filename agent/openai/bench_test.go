package openai_test

import (
	"context"
	"strings"
	"testing"

	"concierge/agent"
	"concierge/agent/openai/fakeopenai"
	"concierge/memory"
)

// BenchmarkStream is one streamed turn as the server sends it: the
// instructions, a ten-message history and the product's three tools out,
// a 120-word answer back a word per chunk, as OpenAI streams. The fake
// server runs in the same process, so ns/op includes its side; the
// allocations and a CPU profile show the provider's own share.
func BenchmarkStream(b *testing.B) {
	fake := fakeopenai.New(b)
	answer := strings.Repeat("Lisbon in May is mild, and the old town is best on foot. ", 10)
	fake.Handler(func(fakeopenai.ChatRequest) fakeopenai.Response { return fakeopenai.Response{Content: answer} })
	p := newProvider(b, fake, nil)
	req := agent.Request{
		Instructions: strings.Repeat("You are a travel concierge. Keep notes short and factual.\n", 40),
		Tools:        []memory.Tool{memory.SaveNoteTool(), memory.ForgetTool(), memory.UpdateTripTool()},
	}
	for i := range 10 {
		role := memory.RoleUser
		if i%2 == 1 {
			role = memory.RoleAssistant
		}
		req.Messages = append(req.Messages, memory.Message{Role: role, Content: "We would like a quiet hotel near the river, under 200 euros a night."})
	}
	pieces := 0
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		res, err := p.Complete(ctx, req, func(string) { pieces++ })
		if err != nil {
			b.Fatal(err)
		}
		if res.Content != answer {
			b.Fatalf("answer %q, want the streamed text back whole", res.Content)
		}
	}
	b.ReportMetric(float64(pieces)/float64(b.N), "chunks/op")
}
