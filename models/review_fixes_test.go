package models_test

import (
	"errors"
	"testing"
	"time"

	"concierge/memory"
	"concierge/models"
	"concierge/models/dbtest"
)

// TestSessionNoteRefusedOnceClosing: a save that lands after the session
// was closed (its consolidation may have run) is refused, not left behind
// as a session note that is never promoted nor dropped.
func TestSessionNoteRefusedOnceClosing(t *testing.T) {
	dbtest.Backends(t, func(t *testing.T, s *models.Store) {
		u, _ := s.CreateUser(ctx, "dana@example.com", "Dana", models.RoleTraveler, "right-pass")
		cs, _ := s.CreateChatSession(ctx, u.ID)
		note := models.NewNote{UserID: u.ID, Kind: models.KindSession, Prov: models.Provenance{SessionID: cs.ID},
			Note: memory.Note{Text: "Prefers aisle seats.", Keywords: []string{"seat"}}}
		if _, err := s.Notes(memory.Limits{}).Add(ctx, note, models.Actor{Kind: models.ActorAssistant}, "stated"); err != nil {
			t.Fatalf("open session: %v", err)
		}
		if _, err := s.CloseSession(ctx, cs.ID, "ended"); err != nil {
			t.Fatal(err)
		}
		note.Note.Text = "Is vegetarian."
		if _, err := s.Notes(memory.Limits{}).Add(ctx, note, models.Actor{Kind: models.ActorAssistant}, "stated"); !errors.Is(err, models.ErrSessionClosed) {
			t.Errorf("closing session: CreateNote = %v, want ErrSessionClosed", err)
		}
	})
}

// TestAuditSubjectRole: support's global timeline keeps only events about
// travelers.
func TestAuditSubjectRole(t *testing.T) {
	dbtest.Backends(t, func(t *testing.T, s *models.Store) {
		trav, _ := s.CreateUser(ctx, "erin@example.com", "Erin", models.RoleTraveler, "right-pass")
		adm, _ := s.CreateUser(ctx, "root@example.com", "Root", models.RoleAdmin, "right-pass")
		for _, id := range []string{trav.ID, adm.ID} {
			if _, err := s.Notes(memory.Limits{}).Add(ctx, models.NewNote{UserID: id, Kind: models.KindGlobal, Note: memory.Note{Text: "Prefers trains.", Keywords: []string{"train"}}},
				models.Actor{Kind: models.ActorSystem}, "test"); err != nil {
				t.Fatal(err)
			}
		}
		all, _ := s.AuditEvents(ctx, models.AuditFilter{})
		travelers, err := s.AuditEvents(ctx, models.AuditFilter{SubjectRole: models.RoleTraveler})
		if err != nil {
			t.Fatal(err)
		}
		for _, ev := range travelers {
			if ev.UserID != trav.ID {
				t.Errorf("event about %s in the travelers' timeline", ev.UserID)
			}
		}
		if len(travelers) == 0 || len(travelers) >= len(all) {
			t.Errorf("travelers' timeline has %d of %d events", len(travelers), len(all))
		}
	})
}

// TestRetentionTakesTheSummary: the summary quotes the traveler, so it
// expires with the transcript.
func TestRetentionTakesTheSummary(t *testing.T) {
	dbtest.Backends(t, func(t *testing.T, s *models.Store) {
		u, _ := s.CreateUser(ctx, "finn@example.com", "Finn", models.RoleTraveler, "right-pass")
		cs, _ := s.CreateChatSession(ctx, u.ID)
		if err := s.AppendMessage(ctx, &models.Message{SessionID: cs.ID, Role: "user", Content: "My daughter is allergic to peanuts.", Turn: 1}); err != nil {
			t.Fatal(err)
		}
		if err := s.SaveSummary(ctx, cs.ID, "- turn 1, safety: My daughter is allergic to peanuts.", 1, 12); err != nil {
			t.Fatal(err)
		}
		if _, err := s.CloseSession(ctx, cs.ID, "ended"); err != nil {
			t.Fatal(err)
		}
		if _, err := s.DeleteExpiredTranscripts(ctx, time.Now().Add(time.Hour)); err != nil {
			t.Fatal(err)
		}
		got, _ := s.ChatSessionByID(ctx, cs.ID)
		if got.Summary != "" || got.SummaryThrough != 0 {
			t.Errorf("summary after retention = %q (through %d), want none", got.Summary, got.SummaryThrough)
		}
	})
}
