package agent_test

import (
	"errors"
	"testing"
	"time"

	"concierge/agent"
	"concierge/models"
	"concierge/models/dbtest"
)

// TestFastClockTakesNothingOver runs two stores on one PostgreSQL database,
// as two instances have them, the second on a machine whose clock runs an
// hour ahead. It neither takes over the first one's answer lease or job
// lock, nor closes a session early as idle; and a lease written an hour
// ahead (by such a clock, before this fix) is treated as stale instead of
// blocking its session. SQLite is exempt: it is one process, one clock.
func TestFastClockTakesNothingOver(t *testing.T) {
	dsn := dbtest.PostgresURL(t)
	open := func() *models.Store {
		s, err := models.Open(dsn)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	}
	a := open()
	if err := a.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	_, johnID, sid := seededIn(t, a)
	b := open()
	b.Now = func() time.Time { return time.Now().Add(time.Hour) }

	// Answer leases.
	if _, err := a.TakeAnswerLease(ctx, sid, 8*time.Second); err != nil {
		t.Fatal(err)
	}
	if _, err := b.TakeAnswerLease(ctx, sid, 8*time.Second); !errors.Is(err, models.ErrBusy) {
		t.Errorf("the fast instance's lease on a live lease: got %v, want ErrBusy", err)
	}

	// The idle sweep: John's second session had activity just now.
	cs, err := a.CreateChatSession(ctx, johnID)
	if err != nil {
		t.Fatal(err)
	}
	if err := a.AppendMessage(ctx, &models.Message{SessionID: cs.ID, Role: "user", Content: "hello", Turn: 1}); err != nil {
		t.Fatal(err)
	}
	cfg := agent.DefaultWorkerConfig()
	cfg.SessionIdle = 30 * time.Minute
	agent.NewWorker(cfg, b, nil, quietLog()).Sweep(ctx)
	if got, _ := a.ChatSessionByID(ctx, cs.ID); got.Status != models.SessionOpen {
		t.Errorf("the fast instance's sweep closed a session active just now (status %s)", got.Status)
	}

	// Job locks: the first instance runs the consolidation of the closed
	// session; the fast one must not take it.
	if _, err := a.CloseSession(ctx, cs.ID, "ended by the traveler"); err != nil {
		t.Fatal(err)
	}
	if _, err := a.ClaimJob(ctx, "instance-a", 8*time.Second); err != nil {
		t.Fatal(err)
	}
	if job, err := b.ClaimJob(ctx, "instance-b", 8*time.Second); !errors.Is(err, models.ErrNotFound) {
		t.Errorf("the fast instance claimed a job under a live lock: got %v, %v; want ErrNotFound", job, err)
	}

	// A lease left an hour ahead does not block the session.
	third, err := a.CreateChatSession(ctx, johnID)
	if err != nil {
		t.Fatal(err)
	}
	ahead := time.Now().Add(time.Hour)
	if err := a.DB().Model(&models.ChatSession{}).Where("id = ?", third.ID).
		Updates(map[string]any{"answering_by": "fast-clock", "answering_until": ahead}).Error; err != nil {
		t.Fatal(err)
	}
	if _, err := a.TakeAnswerLease(ctx, third.ID, 8*time.Second); err != nil {
		t.Errorf("a lease set an hour ahead blocked its session: %v", err)
	}
}
