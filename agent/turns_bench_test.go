package agent_test

import (
	"testing"

	"concierge/agent"
	"concierge/agent/offline"
	"concierge/memory"
	"concierge/models/dbtest"
)

// BenchmarkTurnDetached measures what sending through the Runner (Submit,
// the runner's turn, Wait) costs over calling Agent.Turn, the tests' store
// and answer in one call, directly (offline model, SQLite): the goroutine,
// the place in the queue and the hand-over of the result.
func BenchmarkTurnDetached(b *testing.B) {
	for _, detached := range []bool{false, true} {
		name := "direct"
		if detached {
			name = "runner"
		}
		b.Run(name, func(b *testing.B) {
			store := dbtest.SQLite(b)
			if _, err := store.SeedDemo(ctx, "demo"); err != nil {
				b.Fatal(err)
			}
			ag := agent.New(agent.DefaultConfig("gpt-4o-mini"), store, offline.New(memory.NewTokenCounter("gpt-4o-mini")), quietLog())
			r := agent.NewRunner(agent.RunnerConfig{}, ag, quietLog())
			john, _ := store.UserByEmail(ctx, "john@example.com")
			var sid string
			b.ResetTimer()
			for i := range b.N {
				b.StopTimer()
				if i%10 == 0 { // sessions of ten turns, as the load command sends
					cs, err := store.CreateChatSession(ctx, john.ID)
					if err != nil {
						b.Fatal(err)
					}
					sid = cs.ID
				}
				b.StartTimer()
				var err error
				if detached {
					_, err = r.Send(ctx, agent.Post{SessionID: sid, Content: "Find me a hotel in Lisbon"})
				} else {
					_, err = ag.Turn(ctx, sid, "Find me a hotel in Lisbon", nil)
				}
				if err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
