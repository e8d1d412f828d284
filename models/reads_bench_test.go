package models_test

import (
	"context"
	"testing"

	"concierge/memory"
	"concierge/models/dbtest"
)

// BenchmarkTurnReads times the reads a chat turn makes before its model
// call, on SQLite with the demo data, each alone and all four after a
// write by another conversation (as under load: WAL makes a reader drop
// its page cache when anything was committed since its last read).
func BenchmarkTurnReads(b *testing.B) {
	s := dbtest.SQLite(b)
	ctx := context.Background()
	if _, err := s.SeedDemo(ctx, "a long enough demo password"); err != nil {
		b.Fatal(err)
	}
	john, err := s.UserByEmail(ctx, "john@example.com")
	if err != nil {
		b.Fatal(err)
	}
	priya, err := s.UserByEmail(ctx, "priya@example.com")
	if err != nil {
		b.Fatal(err)
	}
	cs, err := s.CreateChatSession(ctx, john.ID)
	if err != nil {
		b.Fatal(err)
	}
	reads := map[string]func() error{
		"profile":  func() error { _, err := s.Profile(ctx, john.ID); return err },
		"trips":    func() error { _, _, err := s.TurnTrips(ctx, john.ID, memory.MaxTrips); return err },
		"notes":    func() error { _, err := s.TurnNotes(ctx, john.ID, cs.ID, ""); return err },
		"messages": func() error { _, err := s.Messages(ctx, cs.ID); return err },
		"past":     func() error { _, err := s.PastConversationLengths(ctx, john.ID, 5); return err },
	}
	all := func(b *testing.B) {
		for _, read := range reads {
			if err := read(); err != nil {
				b.Fatal(err)
			}
		}
	}
	for name, read := range reads {
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				if err := read(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	b.Run("all", func(b *testing.B) {
		for b.Loop() {
			all(b)
		}
	})
	b.Run("all-after-a-write", func(b *testing.B) {
		for b.Loop() {
			b.StopTimer()
			if _, err := s.CreateChatSession(ctx, priya.ID); err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
			all(b)
		}
	})
}
