package memory

import (
	"slices"
	"strings"
	"testing"
)

// TestCookbookStory: John's five global notes, a durable "vegetarian" and a
// this-trip "window seat" → vegetarian promoted, window dropped, aisle kept,
// nothing duplicated, one decision per input.
func TestCookbookStory(t *testing.T) {
	session := []Note{
		{ID: "s1", Text: "Is vegetarian.", Keywords: []string{"diet"}, Scope: ScopeDurable, LastUpdateDate: "2026-11-21", Source: SourceAssistant},
		{ID: "s2", Text: "Wants a window seat on this trip to sleep.", Keywords: []string{"seat"}, Scope: ScopeThisTrip, LastUpdateDate: "2026-11-21", Source: SourceAssistant},
	}
	engines := []struct {
		name string
		run  func() Result
	}{
		{"rules", func() Result { return ConsolidateRules(johnGlobal(), session, ConsolidateOptions{Today: "2026-11-21"}) }},
		{"twice", func() Result {
			first := ConsolidateRules(johnGlobal(), session, ConsolidateOptions{Today: "2026-11-21"})
			return ConsolidateRules(first.Global, session, ConsolidateOptions{Today: "2026-11-21"})
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
			texts := noteTexts(r.Global)
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
				if n.ID == "s1" && (n.Scope != ScopeDurable || n.Source != SourceConsolidation) {
					t.Errorf("promoted note = %+v", n)
				}
			}
		})
	}
}

// TestAmnesiaStory: a peanut allergy stated at turn 2 survives a 4-turn
// window at turn 12 through the SESSION block, and is pinned afterwards.
func TestAmnesiaStory(t *testing.T) {
	allergy := Note{ID: "s-peanut", Text: "Allergic to peanuts.", Keywords: []string{"allergy", "food"}, Scope: ScopeDurable, LastUpdateDate: "2026-11-21", Source: SourceAssistant}
	msgs := chat(12)
	tests := []struct {
		name        string
		window      int
		wantTrimmed bool
		wantSession bool
	}{
		{"4-turn window trims", 4, true, true},
		{"wide window keeps everything", 20, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			kept, trimmed := Trim(msgs, TrimOptions{MaxUserTurns: tt.window, TokenBudget: 4000, ReserveForAnswer: 500, Counter: NewTokenCounter("gpt-4o")})
			if trimmed != tt.wantTrimmed {
				t.Fatalf("trimmed = %v, want %v", trimmed, tt.wantTrimmed)
			}
			inHistory := slices.ContainsFunc(kept, func(m Message) bool { return strings.Contains(m.Content, "peanuts") })
			instr := BuildInstructions(NewState(johnProfile(), johnGlobal(), []Note{allergy}, nil),
				InjectOptions{Today: "2026-11-21", Trimmed: trimmed, LatestMessage: "Book dinner near the hotel"})
			inSession := strings.Contains(instr.Text, "SESSION:\n- Allergic to peanuts. [durable]")
			if injected := slices.Contains(instr.Notes, InjectedNote{ID: allergy.ID, Section: SectionSession}); injected != inSession || instr.Session != inSession {
				t.Errorf("structure says session=%v, allergy injected=%v; the text says %v", instr.Session, injected, inSession)
			}
			if inSession != tt.wantSession {
				t.Errorf("SESSION block has the allergy = %v, want %v", inSession, tt.wantSession)
			}
			if !inHistory && !inSession {
				t.Errorf("the allergy reached the model neither in history nor in instructions")
			}
		})
	}
	r := ConsolidateRules(johnGlobal(), []Note{allergy}, ConsolidateOptions{Today: "2026-11-21"})
	i := slices.IndexFunc(r.Global, func(n Note) bool { return n.ID == allergy.ID })
	if i != 0 || !r.Global[i].Pinned {
		t.Fatalf("after consolidation the allergy is %+v, want the first note, pinned", r.Global)
	}
	next := BuildInstructions(NewState(nil, r.Global, nil, nil), InjectOptions{Today: "2026-11-22", GlobalBudget: 1}).Text
	if !strings.Contains(next, "- Allergic to peanuts. [updated 2026-11-21; pinned]") {
		t.Errorf("next session misses the pinned allergy:\n%s", next)
	}
}

// TestMovingCityStory: "Lives in Pune." then "Lives in Bengaluru." →
// Bengaluru active, Pune superseded and kept in history, same order always.
func TestMovingCityStory(t *testing.T) {
	pune := Note{ID: "n-pune", Text: "Lives in Pune.", Keywords: []string{"home"}, Scope: ScopeDurable, LastUpdateDate: "2025-03-01", Source: SourceConsolidation}
	blr := Note{ID: "n-blr", Text: "Lives in Bengaluru.", Keywords: []string{"home"}, Scope: ScopeDurable, LastUpdateDate: "2026-11-21", Source: SourceAssistant}
	tests := []struct {
		name            string
		global, session []Note
	}{
		{"pune global, bengaluru in session", append(johnGlobal(), pune), []Note{blr}},
		{"both in one session", johnGlobal(), []Note{blr, pune}}, // input order must not matter, dates do
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var prev string
			for run := 0; run < 3; run++ {
				r := ConsolidateRules(tt.global, tt.session, ConsolidateOptions{Today: "2026-11-21"})
				texts := noteTexts(r.Global)
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
