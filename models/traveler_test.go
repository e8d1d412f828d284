package models_test

import (
	"errors"
	"testing"

	"concierge/memory"
	"concierge/models"
	"concierge/models/dbtest"
)

// TestDeleteChatSession: the conversation's messages, snapshots and staged
// notes go; a long-term note learned from it stays and its source shows the
// conversation as deleted; another conversation is untouched.
func TestDeleteChatSession(t *testing.T) {
	dbtest.Backends(t, func(t *testing.T, s *models.Store) {
		u, err := s.CreateUser(ctx, "del@example.com", "Del", models.RoleTraveler, "secret-pass")
		if err != nil {
			t.Fatal(err)
		}
		other, _ := s.CreateUser(ctx, "other@example.com", "Other", models.RoleTraveler, "secret-pass")
		cs, _ := s.CreateChatSession(ctx, u.ID)
		keep, _ := s.CreateChatSession(ctx, u.ID)
		msg := &models.Message{SessionID: cs.ID, UserID: u.ID, Turn: 1, Role: "user", Content: "I love quiet rooms"}
		if err := s.AppendMessage(ctx, msg); err != nil {
			t.Fatal(err)
		}
		if err := s.AppendMessage(ctx, &models.Message{SessionID: keep.ID, UserID: u.ID, Turn: 1, Role: "user", Content: "kept"}); err != nil {
			t.Fatal(err)
		}
		if err := s.SaveSnapshot(ctx, &models.TurnSnapshot{SessionID: cs.ID, UserID: u.ID, Turn: 1, Instructions: "quiet rooms"}); err != nil {
			t.Fatal(err)
		}
		prov := models.Provenance{SessionID: cs.ID, MessageID: msg.ID}
		staged, err := s.Notes(memory.Limits{}).Add(ctx, models.NewNote{UserID: u.ID, Kind: models.KindSession, Prov: prov,
			Note: memory.Note{Text: "Wants a quiet room on this trip.", Keywords: []string{"room"}, Scope: memory.ScopeThisTrip, Source: memory.SourceAssistant}},
			models.Actor{Kind: models.ActorAssistant}, "stated")
		if err != nil {
			t.Fatal(err)
		}
		learned, err := s.Notes(memory.Limits{}).Add(ctx, models.NewNote{UserID: u.ID, Kind: models.KindGlobal, Prov: prov,
			Note: memory.Note{Text: "Prefers quiet rooms.", Keywords: []string{"room"}, Source: memory.SourceConsolidation}},
			models.Actor{Kind: models.ActorConsolidation}, "promoted")
		if err != nil {
			t.Fatal(err)
		}

		open, err := s.OpenSessionNotes(ctx, u.ID)
		if err != nil || len(open) != 1 || open[0].ID != staged.ID {
			t.Fatalf("OpenSessionNotes = %d notes (%v), want the staged one", len(open), err)
		}
		src, err := s.NoteSources(ctx, u.ID, []models.Note{*learned})
		if err != nil || src[learned.ID].Message != "I love quiet rooms" || src[learned.ID].SessionGone {
			t.Fatalf("source before delete = %+v (%v)", src[learned.ID], err)
		}
		// Someone else's id never reaches the conversation.
		if err := s.DeleteChatSession(ctx, other.ID, cs.ID); !errors.Is(err, models.ErrNotFound) {
			t.Fatalf("delete by another user: %v, want ErrNotFound", err)
		}
		if err := s.DeleteChatSession(ctx, u.ID, cs.ID); err != nil {
			t.Fatalf("DeleteChatSession: %v", err)
		}
		if hits, err := s.ScanTables(ctx, "quiet room on this trip", "I love quiet rooms"); err != nil || len(hits) != 0 {
			t.Errorf("the conversation's words are still stored: %v (%v)", hits, err)
		}
		if msgs, _ := s.Messages(ctx, keep.ID); len(msgs) != 1 {
			t.Errorf("the other conversation has %d messages, want 1", len(msgs))
		}
		if _, err := s.NoteByID(ctx, u.ID, learned.ID); err != nil {
			t.Errorf("the long-term note went with the conversation: %v", err)
		}
		src, _ = s.NoteSources(ctx, u.ID, []models.Note{*learned})
		if got := src[learned.ID]; !got.SessionGone || got.Message != "" {
			t.Errorf("source after delete = %+v, want the conversation gone", got)
		}
	})
}

func TestRenameAndCancelErasure(t *testing.T) {
	dbtest.Backends(t, func(t *testing.T, s *models.Store) {
		u, _ := s.CreateUser(ctx, "ren@example.com", "Ren", models.RoleTraveler, "secret-pass")
		cs, _ := s.CreateChatSession(ctx, u.ID)
		got, err := s.RenameChatSession(ctx, u.ID, cs.ID, "Lisbon in May")
		if err != nil || got.Title != "Lisbon in May" {
			t.Fatalf("rename = %+v, %v", got, err)
		}
		if _, err := s.RenameChatSession(ctx, models.NewID(), cs.ID, "x"); !errors.Is(err, models.ErrNotFound) {
			t.Errorf("rename by another user: %v, want ErrNotFound", err)
		}
		if err := s.CancelErasureRequest(ctx, u.ID); !errors.Is(err, models.ErrNotFound) {
			t.Errorf("cancel without a request: %v, want ErrNotFound", err)
		}
		if _, _, err := s.RequestErasure(ctx, u.ID, models.Actor{ID: u.ID, Kind: models.ActorTraveler}, ""); err != nil {
			t.Fatal(err)
		}
		if err := s.CancelErasureRequest(ctx, u.ID); err != nil {
			t.Fatalf("cancel: %v", err)
		}
		if _, err := s.PendingErasureRequest(ctx, u.ID); !errors.Is(err, models.ErrNotFound) {
			t.Errorf("after cancel: %v, want no pending request", err)
		}
	})
}
