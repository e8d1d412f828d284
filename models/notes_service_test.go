package models_test

import (
	"errors"
	"fmt"
	"sync"
	"testing"

	"concierge/memory"
	"concierge/models"
	"concierge/models/dbtest"
)

// TestNoteCapsHoldUnderConcurrentAdds sends two adds at once to a traveler
// or a session that is one note short of its cap: the caps are counted
// inside the write, so exactly one passes and the other is refused with
// the cap's category, on SQLite and PostgreSQL alike.
func TestNoteCapsHoldUnderConcurrentAdds(t *testing.T) {
	cases := []struct {
		name     string
		lim      memory.Limits
		actor    models.Actor
		kind     string
		existing int // notes stored before the two adds
		category string
	}{
		// The user cap refuses once the traveler holds more than the cap.
		{"traveler at the user cap", memory.Limits{MaxGlobalNotes: 2}, models.Actor{Kind: models.ActorTraveler}, models.KindGlobal, 2, memory.CategoryUserCap},
		{"assistant at the session cap", memory.Limits{MaxSessionNotes: 3}, models.Actor{Kind: models.ActorAssistant}, models.KindSession, 2, memory.CategorySessionCap},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dbtest.Backends(t, func(t *testing.T, s *models.Store) {
				u, err := s.CreateUser(ctx, fmt.Sprintf("cap%d@example.com", i), "Cap", models.RoleTraveler, "right-pass")
				if err != nil {
					t.Fatal(err)
				}
				cs, err := s.CreateChatSession(ctx, u.ID)
				if err != nil {
					t.Fatal(err)
				}
				notes := s.Notes(tc.lim)
				add := func(text string) error {
					nn := models.NewNote{UserID: u.ID, Kind: tc.kind, Note: memory.Note{Text: text, Keywords: []string{"seat"}}}
					if tc.kind == models.KindSession {
						nn.Prov.SessionID = cs.ID
					}
					_, err := notes.Add(ctx, nn, tc.actor, "test")
					return err
				}
				for j := range tc.existing {
					if err := add(fmt.Sprintf("Prefers seat row %c.", 'A'+j)); err != nil {
						t.Fatalf("seeding note %d: %v", j, err)
					}
				}
				start := make(chan struct{})
				errs := make([]error, 2)
				var wg sync.WaitGroup
				for j := range errs {
					wg.Go(func() {
						<-start
						errs[j] = add(fmt.Sprintf("Prefers seat number %c.", 'X'+j))
					})
				}
				close(start)
				wg.Wait()
				passed, capped := 0, 0
				for _, err := range errs {
					var de *memory.Error
					switch {
					case err == nil:
						passed++
					case errors.As(err, &de) && de.Code == memory.ENOTEREFUSED && de.Note != nil && de.Note.Category == tc.category:
						capped++
					default:
						t.Errorf("add = %v, want nil or a %s refusal", err, tc.category)
					}
				}
				if passed != 1 || capped != 1 {
					t.Errorf("%d adds passed and %d were refused at the cap, want 1 and 1", passed, capped)
				}
				got, err := s.TurnNotes(ctx, u.ID, cs.ID, "")
				if err != nil {
					t.Fatal(err)
				}
				stored := len(got.Global)
				if tc.kind == models.KindSession {
					stored = len(got.Session)
				}
				if want := tc.existing + 1; stored != want {
					t.Errorf("%d notes stored, want %d", stored, want)
				}
			})
		})
	}
}
