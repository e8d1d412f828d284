package consolidate

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"concierge/memory"
	"concierge/memory/memorytest"
)

func TestConsolidateRules(t *testing.T) {
	today := "2026-11-21"
	tests := []struct {
		name       string
		global     []memory.Note
		session    []memory.Note
		max        int
		wantAction map[string]string // note id → action
		wantInto   map[string]string
		wantGlobal []string // texts, in order
		wantPinned []string // ids pinned in the result
	}{
		{
			name:       "exact duplicate merges and refreshes",
			global:     []memory.Note{{ID: "g", Text: "Prefers aisle seats.", LastUpdateDate: "2024-06-01"}},
			session:    []memory.Note{{ID: "s", Text: "prefers aisle seats", Scope: memory.ScopeDurable, LastUpdateDate: today}},
			wantAction: map[string]string{"s": ActionMerged},
			wantInto:   map[string]string{"s": "g"},
			wantGlobal: []string{"Prefers aisle seats."},
		},
		{
			name:       "near duplicate merges",
			global:     []memory.Note{{ID: "g", Text: "Prefers aisle seats.", LastUpdateDate: "2024-06-01"}},
			session:    []memory.Note{{ID: "s", Text: "Likes an aisle seat on flights.", Scope: memory.ScopeDurable, LastUpdateDate: today}},
			wantAction: map[string]string{"s": ActionMerged},
			wantGlobal: []string{"Prefers aisle seats."},
		},
		{
			name:       "qualified note is not a duplicate",
			global:     []memory.Note{{ID: "g", Text: "Prefers aisle seats.", LastUpdateDate: "2024-06-01"}},
			session:    []memory.Note{{ID: "s", Text: "Prefers aisle seats on flights over 2 hours.", Scope: memory.ScopeDurable, LastUpdateDate: today}},
			wantAction: map[string]string{"s": ActionPromoted},
			wantGlobal: []string{"Prefers aisle seats on flights over 2 hours.", "Prefers aisle seats."},
		},
		{
			name:       "duplicate within the session",
			session:    []memory.Note{{ID: "s1", Text: "Is vegetarian.", Scope: memory.ScopeDurable, LastUpdateDate: today}, {ID: "s2", Text: "Is a vegetarian", Scope: memory.ScopeDurable, LastUpdateDate: today}},
			wantAction: map[string]string{"s1": ActionPromoted, "s2": ActionDroppedDuplicate},
			wantInto:   map[string]string{"s2": "s1"},
			wantGlobal: []string{"Is vegetarian."},
		},
		{
			name:       "seat conflict newer session wins",
			global:     []memory.Note{{ID: "g", Text: "Prefers aisle seats.", Keywords: []string{"seat"}, LastUpdateDate: "2024-06-01"}},
			session:    []memory.Note{{ID: "s", Text: "Prefers window seats.", Keywords: []string{"seat"}, Scope: memory.ScopeDurable, LastUpdateDate: today}},
			wantAction: map[string]string{"s": ActionPromoted, "g": ActionSuperseded},
			wantInto:   map[string]string{"g": "s"},
			wantGlobal: []string{"Prefers window seats."},
		},
		{
			name:       "conditional seat note does not override",
			global:     []memory.Note{{ID: "g", Text: "Prefers aisle seats.", LastUpdateDate: "2024-06-01"}},
			session:    []memory.Note{{ID: "s", Text: "Wants a window seat on overnight flights.", Scope: memory.ScopeDurable, LastUpdateDate: today}},
			wantAction: map[string]string{"s": ActionPromoted},
			wantGlobal: []string{"Wants a window seat on overnight flights.", "Prefers aisle seats."},
		},
		{
			name:       "tie goes to the session note",
			global:     []memory.Note{{ID: "g", Text: "Is vegetarian.", LastUpdateDate: today}},
			session:    []memory.Note{{ID: "s", Text: "Is vegan.", Scope: memory.ScopeDurable, LastUpdateDate: today}},
			wantAction: map[string]string{"s": ActionPromoted, "g": ActionSuperseded},
			wantGlobal: []string{"Is vegan."},
		},
		{
			name:       "newer global note wins",
			global:     []memory.Note{{ID: "g", Text: "Is vegan.", LastUpdateDate: "2026-11-25"}},
			session:    []memory.Note{{ID: "s", Text: "Is vegetarian.", Scope: memory.ScopeDurable, LastUpdateDate: today}},
			wantAction: map[string]string{"s": ActionSuperseded},
			wantInto:   map[string]string{"s": "g"},
			wantGlobal: []string{"Is vegan."},
		},
		{
			name:       "polarity conflict",
			global:     []memory.Note{{ID: "g", Text: "Likes red-eye flights.", Keywords: []string{"flight"}, LastUpdateDate: "2024-01-01"}},
			session:    []memory.Note{{ID: "s", Text: "Avoids red-eye flights.", Keywords: []string{"flight"}, Scope: memory.ScopeDurable, LastUpdateDate: today}},
			wantAction: map[string]string{"s": ActionPromoted, "g": ActionSuperseded},
			wantGlobal: []string{"Avoids red-eye flights."},
		},
		{
			name:       "pinned global is never superseded by rules",
			global:     []memory.Note{{ID: "g", Text: "Uses a wheelchair at airports.", LastUpdateDate: "2024-01-01", Pinned: true}},
			session:    []memory.Note{{ID: "s", Text: "Does not use a wheelchair at airports.", Scope: memory.ScopeDurable, LastUpdateDate: today}},
			wantAction: map[string]string{"s": ActionPromoted},
			wantGlobal: []string{"Does not use a wheelchair at airports.", "Uses a wheelchair at airports."},
			wantPinned: []string{"g", "s"},
		},
		{
			name:       "trip scoped, refused and expired",
			session:    []memory.Note{{ID: "t", Text: "Window seat this time.", Scope: memory.ScopeThisTrip}, {ID: "r", Text: "PIN 4321 for the card", Scope: memory.ScopeDurable}, {ID: "e", Text: "Likes the Lisbon pass.", Scope: memory.ScopeDurable, ExpiresOn: "2026-01-01"}},
			wantAction: map[string]string{"t": ActionDroppedTrip, "r": ActionRefused, "e": ActionExpired},
			wantGlobal: nil,
		},
		{
			name:       "expired global note leaves",
			global:     []memory.Note{{ID: "g", Text: "Likes the Lisbon pass.", LastUpdateDate: "2025-01-01", ExpiresOn: "2026-01-01"}, {ID: "h", Text: "Prefers trains.", LastUpdateDate: "2025-01-01"}},
			wantAction: map[string]string{"g": ActionExpired},
			wantGlobal: []string{"Prefers trains."},
		},
		{
			name: "cap prunes stalest unpinned",
			global: []memory.Note{
				{ID: "old", Text: "Prefers trains.", LastUpdateDate: "2020-01-01"},
				{ID: "pin", Text: "Allergic to shellfish.", LastUpdateDate: "2019-01-01", Pinned: true},
				{ID: "mid", Text: "Likes boutique hotels.", LastUpdateDate: "2023-01-01"},
			},
			session:    []memory.Note{{ID: "s", Text: "Prefers morning departures.", Scope: memory.ScopeDurable, LastUpdateDate: today}},
			max:        3,
			wantAction: map[string]string{"s": ActionPromoted, "old": ActionPruned},
			wantGlobal: []string{"Allergic to shellfish.", "Prefers morning departures.", "Likes boutique hotels."},
		},
		{
			name:       "medical and accessibility notes are pinned",
			global:     []memory.Note{{ID: "g", Text: "Needs step-free access in hotels.", LastUpdateDate: "2024-01-01"}},
			session:    []memory.Note{{ID: "s", Text: "Carries an EpiPen for a nut allergy.", Scope: memory.ScopeDurable, LastUpdateDate: today}, {ID: "v", Text: "Likes views.", Scope: memory.ScopeDurable, LastUpdateDate: today}},
			wantAction: map[string]string{"s": ActionPromoted, "v": ActionPromoted},
			wantPinned: []string{"g", "s"},
			wantGlobal: []string{"Carries an EpiPen for a nut allergy.", "Needs step-free access in hotels.", "Likes views."},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := ByRules(tt.global, tt.session, Options{Today: today, MaxGlobalNotes: tt.max})
			checkResultInvariants(t, tt.global, tt.session, r)
			checkDecisions(t, r, tt.wantAction, tt.wantInto)
			if got := memorytest.NoteTexts(r.Global); !slices.Equal(got, tt.wantGlobal) {
				t.Errorf("global = %q, want %q", got, tt.wantGlobal)
			}
			for _, id := range tt.wantPinned {
				if i := slices.IndexFunc(r.Global, func(n memory.Note) bool { return n.ID == id }); i < 0 || !r.Global[i].Pinned {
					t.Errorf("%s not pinned in %+v", id, r.Global)
				}
			}
		})
	}
}

// checkResultInvariants holds for every engine: one decision per session
// note, no invented text, no session note lost, deterministic order.
func checkResultInvariants(t *testing.T, global, session []memory.Note, r Result) {
	t.Helper()
	count := map[string]int{}
	for _, d := range r.Decisions {
		count[d.Note.ID]++
		if d.Why == "" {
			t.Errorf("decision for %s has no reason", d.Note.ID)
		}
	}
	for _, s := range session {
		if count[s.ID] != 1 {
			t.Errorf("session note %s has %d decisions, want 1", s.ID, count[s.ID])
		}
	}
	inputs := map[string]bool{}
	for _, n := range append(slices.Clone(global), session...) {
		inputs[n.Text] = true
	}
	ids := map[string]bool{}
	for _, n := range r.Global {
		if r.Engine == EngineRules && !inputs[n.Text] {
			t.Errorf("invented text %q", n.Text)
		}
		if ids[n.ID] {
			t.Errorf("duplicate id %s", n.ID)
		}
		ids[n.ID] = true
		if n.Scope != memory.ScopeDurable && n.Scope != "" {
			t.Errorf("global note %s has scope %s", n.ID, n.Scope)
		}
	}
	if !slices.IsSortedFunc(r.Global, memory.CompareGlobal) {
		t.Errorf("global notes not in deterministic order")
	}
	// Every global input is either still active or has a decision.
	for _, g := range global {
		if !ids[g.ID] && count[g.ID] != 1 {
			t.Errorf("global note %s vanished without a decision", g.ID)
		}
	}
}

func TestConsolidateRulesDeterministic(t *testing.T) {
	global := memorytest.ManyGlobal(200)
	var session []memory.Note
	for i := 0; i < 20; i++ {
		session = append(session, memory.Note{ID: fmt.Sprintf("s%02d", i), Text: global[i*7].Text, Scope: memory.ScopeDurable, LastUpdateDate: "2026-11-21"})
	}
	first := fmt.Sprintf("%+v", ByRules(global, session, Options{Today: "2026-11-21"}))
	for i := 0; i < 5; i++ {
		if got := fmt.Sprintf("%+v", ByRules(global, session, Options{Today: "2026-11-21"})); got != first {
			t.Fatalf("run %d differs", i)
		}
	}
	if !strings.Contains(first, ActionMerged) {
		t.Errorf("repeated notes were not merged")
	}
}
