package models_test

import (
	"context"
	"testing"
	"time"

	"concierge/models"
	"concierge/models/dbtest"
)

// TestEndedWebSessionsSayWhy: a browser session ended by an erasure, a
// disabled account or a reset password leaves why, under the hash of its
// cookie only; one its owner ended, or that never existed, leaves nothing;
// and the record goes when the session would have expired.
func TestEndedWebSessionsSayWhy(t *testing.T) {
	dbtest.Backends(t, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		admin, err := s.CreateUser(ctx, "ada@example.com", "Ada Admin", models.RoleAdmin, "lantern orbit velvet cactus")
		if err != nil {
			t.Fatal(err)
		}
		by := models.Actor{ID: admin.ID, Kind: models.ActorAdmin}
		tests := []struct {
			name string
			end  func(id, token string) error
			want string
		}{
			{"erased", func(id, _ string) error {
				_, err := s.EraseUser(ctx, id, by, models.ErasureWhy{Reason: models.ErasureDataSubjectRequest, Ticket: "DSR-9"})
				return err
			}, models.EndedErased},
			{"disabled", func(id, _ string) error { _, err := s.SetUserDisabled(ctx, id, true, by, "left"); return err }, models.EndedDisabled},
			{"password reset", func(id, _ string) error {
				return s.ResetPassword(ctx, id, "quartz meadow tundra falcon", by, "locked out")
			}, models.EndedPasswordReset},
			{"own sign-out", func(_, token string) error { return s.DeleteWebSession(ctx, token) }, ""},
		}
		for i, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				u, err := s.CreateUser(ctx, "t"+string(rune('a'+i))+"@example.com", "Tess Traveler", models.RoleTraveler, "lantern orbit velvet cactus")
				if err != nil {
					t.Fatal(err)
				}
				token, err := s.CreateWebSession(ctx, u.ID, time.Hour, 0)
				if err != nil {
					t.Fatal(err)
				}
				if why, err := s.WhyWebSessionEnded(ctx, token); err != nil || why != "" {
					t.Fatalf("a live session: %q, %v; want nothing", why, err)
				}
				if err := tt.end(u.ID, token); err != nil {
					t.Fatal(err)
				}
				if _, err := s.UserByWebSession(ctx, token, time.Hour, 0); err == nil {
					t.Fatal("the session still signs in")
				}
				if why, err := s.WhyWebSessionEnded(ctx, token); err != nil || why != tt.want {
					t.Errorf("why = %q, %v; want %q", why, err, tt.want)
				}
				var n int64
				if err := s.DB().Table("ended_web_sessions").Where("id = ? OR reason = ?", u.ID, u.Email).Count(&n).Error; err != nil || n != 0 {
					t.Errorf("the record names the account: %d rows, %v", n, err)
				}
			})
		}
		if why, err := s.WhyWebSessionEnded(ctx, "never-issued"); err != nil || why != "" {
			t.Errorf("an unknown cookie: %q, %v; want nothing", why, err)
		}
		// Past the session's own end the record goes.
		var before int64
		s.DB().Table("ended_web_sessions").Count(&before)
		if err := s.DB().Exec("UPDATE ended_web_sessions SET expires_at = ?", time.Now().Add(-time.Hour)).Error; err != nil {
			t.Fatal(err)
		}
		if _, err := s.DeleteExpiredCredentials(ctx); err != nil {
			t.Fatal(err)
		}
		var after int64
		s.DB().Table("ended_web_sessions").Count(&after)
		if before != 3 || after != 0 {
			t.Errorf("ended sessions: %d before the sweep, %d after; want 3 and 0", before, after)
		}
	})
}
