package consolidate

import (
	"slices"
	"strings"
	"testing"

	"concierge/memory"
	"concierge/memory/memorytest"
)

// TestCookbookStory: John's five global notes, a durable "vegetarian" and a
// this-trip "window seat" → vegetarian promoted, window dropped, aisle kept,
// nothing duplicated, one decision per input.
func TestCookbookStory(t *testing.T) {
	session := []memory.Note{
		{ID: "s1", Text: "Is vegetarian.", Keywords: []string{"diet"}, Scope: memory.ScopeDurable, LastUpdateDate: "2026-11-21", Source: memory.SourceAssistant},
		{ID: "s2", Text: "Wants a window seat on this trip to sleep.", Keywords: []string{"seat"}, Scope: memory.ScopeThisTrip, LastUpdateDate: "2026-11-21", Source: memory.SourceAssistant},
	}
	engines := []struct {
		name string
		run  func() Result
	}{
		{"rules", func() Result { return ByRules(memorytest.JohnGlobal(), session, Options{Today: "2026-11-21"}) }},
		{"twice", func() Result {
			first := ByRules(memorytest.JohnGlobal(), session, Options{Today: "2026-11-21"})
			return ByRules(first.Global, session, Options{Today: "2026-11-21"})
		}},
	}
	for _, e := range engines {
		t.Run(e.name, func(t *testing.T) {
			r := e.run()
			if d := findDecision(t, r, "s1"); d.Action != ActionPromoted && !(e.name == "twice" && d.Action == ActionMerged) {
				t.Errorf("vegetarian: %s", d.Action)
			}
			if d := findDecision(t, r, "s2"); d.Action != ActionDroppedTrip {
				t.Errorf("window: %s, want dropped_trip", d.Action)
			}
			texts := memorytest.NoteTexts(r.Global)
			if !slices.Contains(texts, "Prefers aisle seats.") || !slices.Contains(texts, "Is vegetarian.") {
				t.Errorf("global = %q", texts)
			}
			if slices.ContainsFunc(texts, func(s string) bool { return strings.Contains(s, "window") }) {
				t.Errorf("window seat became a default: %q", texts)
			}
			if len(texts) != 6 || len(slices.Compact(slices.Sorted(slices.Values(texts)))) != 6 {
				t.Errorf("global = %d notes %q, want the 5 plus vegetarian, no duplicates", len(texts), texts)
			}
			if len(r.Superseded) != 0 {
				t.Errorf("superseded %v, want none", r.Superseded)
			}
			for _, n := range r.Global {
				if n.ID == "s1" && (n.Scope != memory.ScopeDurable || n.Source != memory.SourceConsolidation) {
					t.Errorf("promoted note = %+v", n)
				}
			}
		})
	}
}

// TestMovingCityStory: "Lives in Pune." then "Lives in Bengaluru." →
// Bengaluru active, Pune superseded and kept in history, same order always.
func TestMovingCityStory(t *testing.T) {
	pune := memory.Note{ID: "n-pune", Text: "Lives in Pune.", Keywords: []string{"home"}, Scope: memory.ScopeDurable, LastUpdateDate: "2025-03-01", Source: memory.SourceConsolidation}
	blr := memory.Note{ID: "n-blr", Text: "Lives in Bengaluru.", Keywords: []string{"home"}, Scope: memory.ScopeDurable, LastUpdateDate: "2026-11-21", Source: memory.SourceAssistant}
	tests := []struct {
		name            string
		global, session []memory.Note
	}{
		{"pune global, bengaluru in session", append(memorytest.JohnGlobal(), pune), []memory.Note{blr}},
		{"both in one session", memorytest.JohnGlobal(), []memory.Note{blr, pune}}, // input order must not matter, dates do
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var prev string
			for run := 0; run < 3; run++ {
				r := ByRules(tt.global, tt.session, Options{Today: "2026-11-21"})
				texts := memorytest.NoteTexts(r.Global)
				if !slices.Contains(texts, "Lives in Bengaluru.") || slices.Contains(texts, "Lives in Pune.") {
					t.Fatalf("global = %q", texts)
				}
				if !slices.Contains(r.Superseded, Supersession{NoteID: "n-pune", ByID: "n-blr"}) {
					t.Errorf("superseded = %v, want Pune by Bengaluru", r.Superseded)
				}
				if d := findDecision(t, r, "n-pune"); d.Action != ActionSuperseded || d.Into != "n-blr" {
					t.Errorf("Pune decision = %+v", d)
				}
				got := strings.Join(texts, "|")
				if run > 0 && got != prev {
					t.Errorf("order changed between runs: %s vs %s", got, prev)
				}
				prev = got
				if texts[0] != "Lives in Bengaluru." {
					t.Errorf("newest note not first: %q", texts)
				}
			}
		})
	}
}
