package models_test

import (
	"errors"
	"sync"
	"testing"
	"time"

	"concierge/memory"
	"concierge/models"
	"concierge/models/dbtest"
)

// refusedItem puts one refused write of a new traveler in the queue, the
// way a turn does.
func refusedItem(t *testing.T, s *models.Store, email string) (*models.User, *models.ReviewItem) {
	t.Helper()
	u, err := s.CreateUser(ctx, email, "Rita Review", models.RoleTraveler, "right-pass")
	if err != nil {
		t.Fatal(err)
	}
	cs, err := s.CreateChatSession(ctx, u.ID)
	if err != nil {
		t.Fatal(err)
	}
	msg := &models.Message{SessionID: cs.ID, Role: "user", Content: "I live in 2 cities", Turn: 1}
	if err := s.AppendMessage(ctx, msg); err != nil {
		t.Fatal(err)
	}
	if err := s.RecordBlockedWrite(ctx, u.ID, cs.ID, msg.ID, memory.CategoryStreetAddress); err != nil {
		t.Fatal(err)
	}
	rows, err := s.ReviewItems(ctx, models.ReviewFilter{UserID: u.ID})
	if err != nil || len(rows) != 1 {
		t.Fatalf("items %+v, %v: want the refused write's", rows, err)
	}
	it := rows[0].ReviewItem
	if it.Kind != models.ReviewRefusedWrite || it.Turn != 1 || it.SessionID != cs.ID || it.Category != memory.CategoryStreetAddress {
		t.Fatalf("item %+v: want a refused write at turn 1", it)
	}
	return u, &it
}

func TestReviewClaimsLapse(t *testing.T) {
	dbtest.Backends(t, func(t *testing.T, s *models.Store) {
		now := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
		s.Now = func() time.Time { return now }
		_, it := refusedItem(t, s, "claims@example.com")
		ana, ben := models.Actor{ID: "ana", Kind: models.ActorSupport}, models.Actor{ID: "ben", Kind: models.ActorSupport}
		got, err := s.Claim(ctx, it.ID, ana, models.ReviewClaimFor)
		if err != nil || got.ClaimedAt(now) != "ana" {
			t.Fatalf("ana's claim: %+v, %v", got, err)
		}
		if _, err := s.Claim(ctx, it.ID, ben, models.ReviewClaimFor); !errors.Is(err, models.ErrReviewClaimed) {
			t.Errorf("ben claiming ana's item: %v, want ErrReviewClaimed", err)
		}
		if _, err := s.Notes(memory.Limits{}).Resolve(ctx, it.ID, models.Resolution{Action: "dismiss", Reason: "r"}, ben); !errors.Is(err, models.ErrReviewClaimed) {
			t.Errorf("ben resolving ana's item: %v, want ErrReviewClaimed", err)
		}
		now = now.Add(models.ReviewClaimFor + time.Second)
		if got, err := s.Claim(ctx, it.ID, ben, models.ReviewClaimFor); err != nil || got.ClaimedAt(now) != "ben" {
			t.Errorf("ben's claim after ana's lapsed: %+v, %v", got, err)
		}
		if _, err := s.Notes(memory.Limits{}).Resolve(ctx, it.ID, models.Resolution{Action: "unpin", Reason: "r"}, ben); memory.ErrorCode(err) != memory.EINVALID {
			t.Errorf("an action of another kind: %v, want invalid", err)
		}
		if _, err := s.Notes(memory.Limits{}).Resolve(ctx, it.ID, models.Resolution{Action: "dismiss"}, ben); !errors.Is(err, models.ErrNoReason) {
			t.Errorf("no reason: %v, want the staff changes' ErrNoReason", err)
		}
	})
}

// TestReviewResolveRace: two reviewers resolving one item at once end with
// one resolution; the other is told it was resolved.
func TestReviewResolveRace(t *testing.T) {
	dbtest.Backends(t, func(t *testing.T, s *models.Store) {
		u, it := refusedItem(t, s, "race@example.com")
		errs := make([]error, 2)
		var wg sync.WaitGroup
		for i, id := range []string{"ana", "ben"} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, errs[i] = s.Notes(memory.Limits{}).Resolve(ctx, it.ID, models.Resolution{Action: "add", Reason: "harmless", Text: "Splits the year between two cities."},
					models.Actor{ID: id, Kind: models.ActorSupport})
			}()
		}
		wg.Wait()
		won := 0
		for _, err := range errs {
			switch {
			case err == nil:
				won++
			case !errors.Is(err, models.ErrReviewResolved):
				t.Errorf("the loser's error: %v, want ErrReviewResolved", err)
			}
		}
		if won != 1 {
			t.Fatalf("errors %v: want exactly one resolution", errs)
		}
		global, _ := s.GlobalNotes(ctx, u.ID)
		var events int64
		s.DB().Model(&models.AuditEvent{}).Where("user_id = ? AND action = ?", u.ID, "review.add").Count(&events)
		if len(global) != 1 || events != 1 {
			t.Errorf("%d notes and %d review.add events, want 1 and 1", len(global), events)
		}
	})
}

// TestReviewItemsExportedAndErased: a traveler's items are in their export
// and go with their erasure, which counts them.
func TestReviewItemsExportedAndErased(t *testing.T) {
	dbtest.Backends(t, func(t *testing.T, s *models.Store) {
		u, it := refusedItem(t, s, "erase-review@example.com")
		reviewer, err := s.CreateUser(ctx, "reviewer@example.com", "Rev", models.RoleSupport, "right-pass")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.Claim(ctx, it.ID, models.Actor{ID: reviewer.ID, Kind: models.ActorSupport}, time.Minute); err != nil {
			t.Fatal(err)
		}
		exp, err := s.ExportUserData(ctx, u.ID)
		if err != nil || len(exp.Review) != 1 || exp.Review[0].ID != it.ID {
			t.Fatalf("export review items %+v, %v", exp.Review, err)
		}
		admin := models.Actor{ID: "admin-x", Kind: models.ActorAdmin}
		rec, err := s.EraseUser(ctx, u.ID, admin, models.ErasureWhy{Reason: "data_subject_request"})
		if err != nil {
			t.Fatal(err)
		}
		if rec.RowsDeleted["review_items"] != 1 {
			t.Errorf("receipt counts %d review items, want 1", rec.RowsDeleted["review_items"])
		}
		if _, err := s.ReviewItemByID(ctx, it.ID); !errors.Is(err, models.ErrNotFound) {
			t.Errorf("the item after erasure: %v, want not found", err)
		}
	})
}

func TestErasureUrgency(t *testing.T) {
	made := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	month := 30 * 24 * time.Hour
	tests := []struct {
		name   string
		status string
		at     time.Time
		want   string
	}{
		{"fresh", models.ErasurePending, made.Add(24 * time.Hour), models.ErasureOnTime},
		{"within a week", models.ErasurePending, made.Add(month - 3*24*time.Hour), models.ErasureDueNear},
		{"due now", models.ErasurePending, made.Add(month), models.ErasureOverdue},
		{"late", models.ErasurePending, made.Add(2 * month), models.ErasureOverdue},
		{"done", models.ErasureDone, made.Add(2 * month), models.ErasureOnTime},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := models.ErasureRequest{Status: tt.status, CreatedAt: made}
			if got := r.Urgency(tt.at, month); got != tt.want {
				t.Errorf("Urgency = %q, want %q", got, tt.want)
			}
		})
	}
}
