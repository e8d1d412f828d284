package agent_test

import (
	"context"
	"testing"

	"concierge/agent"
	"concierge/agent/offline"
	"concierge/memory"
	"concierge/models/dbtest"
)

// BenchmarkTurnDetached measures what running a turn on the Runner costs
// over calling Agent.Turn directly (offline model, SQLite): the goroutine,
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
				turn := func(ctx context.Context) (*agent.TurnResult, error) {
					return ag.Turn(ctx, sid, "Find me a hotel in Lisbon", nil)
				}
				var err error
				if detached {
					_, err = r.Do(ctx, turn)
				} else {
					_, err = turn(ctx)
				}
				if err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkRunnerOverhead is the Runner's own cost per turn: Do with a turn
// that does nothing.
func BenchmarkRunnerOverhead(b *testing.B) {
	r := agent.NewRunner(agent.RunnerConfig{}, nil, quietLog())
	res := &agent.TurnResult{}
	nothing := func(context.Context) (*agent.TurnResult, error) { return res, nil }
	for b.Loop() {
		if _, err := r.Do(ctx, nothing); err != nil {
			b.Fatal(err)
		}
	}
}
