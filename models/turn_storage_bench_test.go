package models_test

import (
	"context"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"concierge/memory"
	"concierge/models"
	"concierge/models/dbtest"
)

// BenchmarkTurnStorage runs only the storage work of a turn without tools,
// statement for statement as a served turn does it (the credential lookup,
// the session, the submission that takes the lease, the four reads, the
// round's commit that releases it), with no model, HTTP or prompt. It
// reports this process's CPU per turn (cpu-ms/turn, the writer's goroutine
// included; PostgreSQL's server CPU is outside it), the part of it before
// the model would be called (pre-model-cpu-ms/turn: what a burst's floor
// is made of) and statements per turn: what a turn costs before anything
// but the database is counted.
func BenchmarkTurnStorage(b *testing.B) {
	backends := map[string]func(testing.TB) *models.Store{"sqlite": dbtest.SQLite}
	if os.Getenv("CONCIERGE_TEST_POSTGRES") != "" {
		backends["postgres"] = dbtest.Postgres
	}
	for name, open := range backends {
		b.Run(name, func(b *testing.B) {
			s := open(b)
			ctx := context.Background()
			if _, err := s.SeedDemo(ctx, "a long enough demo password"); err != nil {
				b.Fatal(err)
			}
			u, err := s.UserByEmail(ctx, "john@example.com")
			if err != nil {
				b.Fatal(err)
			}
			token, _, err := s.CreateAPIToken(ctx, u.ID, time.Hour)
			if err != nil {
				b.Fatal(err)
			}
			// A snapshot the size the offline model's turns store.
			instructions := strings.Repeat("Prefers aisle seats on long flights. ", 130)
			notes := s.Notes(memory.Limits{})
			var cs *models.ChatSession
			turn := 0
			var pre float64 // CPU before the model would be called
			st0, cpu0 := s.Statements(), cpuSeconds()
			for b.Loop() {
				if turn%5 == 0 {
					if cs, err = s.CreateChatSession(ctx, u.ID); err != nil {
						b.Fatal(err)
					}
				}
				turn++
				t0 := cpuSeconds()
				if _, err := s.UserByAPIToken(ctx, token); err != nil {
					b.Fatal(err)
				}
				if _, err := s.ChatSessionByID(ctx, cs.ID); err != nil {
					b.Fatal(err)
				}
				sub, err := s.SubmitUserMessage(ctx, models.UserMessage{SessionID: cs.ID, Content: "Any ideas for a quiet hotel in Lisbon?", TakeLease: time.Minute})
				if err != nil {
					b.Fatal(err)
				}
				if _, err := s.Messages(ctx, cs.ID); err != nil {
					b.Fatal(err)
				}
				if _, err := s.Profile(ctx, u.ID); err != nil {
					b.Fatal(err)
				}
				if _, _, err := s.TurnTrips(ctx, u.ID, memory.MaxTrips); err != nil {
					b.Fatal(err)
				}
				if _, err := s.TurnNotes(ctx, u.ID, cs.ID, cs.TripID); err != nil {
					b.Fatal(err)
				}
				pre += cpuSeconds() - t0
				round := models.Round{Snapshot: &models.TurnSnapshot{SessionID: cs.ID, UserID: u.ID, Turn: sub.Message.Turn, Round: 1,
					Model: "offline", Instructions: instructions, Messages: `[{"role":"user","content":"Any ideas for a quiet hotel in Lisbon?"}]`,
					Response: `{"content":"A few quiet places in Lisbon."}`},
					Messages: []*models.Message{{SessionID: cs.ID, Role: "assistant", Content: "A few quiet places in Lisbon.", Turn: sub.Message.Turn}},
					Release:  true}
				if err := notes.CommitRound(ctx, sub.Lease, round); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric((cpuSeconds()-cpu0)*1000/float64(b.N), "cpu-ms/turn")
			b.ReportMetric(pre*1000/float64(b.N), "pre-model-cpu-ms/turn")
			b.ReportMetric(float64(s.Statements()-st0)/float64(b.N), "statements/turn")
		})
	}
}

// cpuSeconds is this process's user and system CPU so far.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}
