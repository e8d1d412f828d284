package offline

import (
	"os"
	"strings"
	"testing"

	"concierge/agent/eval"
	"concierge/memory"
)

// TestIssueStatements: the six statements issue 25 quotes are saved with
// their meaning — the negation, the amount with its currency, the new city.
func TestIssueStatements(t *testing.T) {
	tests := []struct{ say, want string }{
		{"I usually travel with just a carry-on.", "Usually travels with just a carry-on."},
		{"My budget for hotels is usually around 200 dollars a night.", "Budget for hotels is usually around 200 dollars a night."},
		{"I never want to fly with budget airlines.", "Never wants to fly with budget airlines."},
		{"I've stopped drinking, so skip the wine pairings.", "Has stopped drinking."},
		{"I moved to Seattle last month.", "Lives in Seattle."},
		{"These days I'd rather sit by the window.", "Prefers window seats."},
	}
	for _, tt := range tests {
		t.Run(tt.say, func(t *testing.T) {
			got := model.table.capture(tt.say, nil).notes
			if len(got) != 1 || got[0].Text != tt.want || got[0].Scope != memory.ScopeDurable {
				t.Errorf("capture(%q) = %s, want one durable note %q", tt.say, describeNotes(got), tt.want)
			}
		})
	}
}

// TestUntilIsNotTripDates: "until", "through" and "for the next" end a
// note; they never become the trip's dates.
func TestUntilIsNotTripDates(t *testing.T) {
	for _, say := range []string{
		"I'm avoiding alcohol until the end of March.",
		"I'm on crutches through April, so I need step-free access.",
		"For the next two weeks I can't fly long-haul.",
	} {
		tr := trip{}
		model.table.updateTrip(tr, say, "")
		if tr["dates"] != "" {
			t.Errorf("updateTrip(%q) took dates %q", say, tr["dates"])
		}
		for _, n := range model.table.capture(say, nil).notes {
			if strings.Contains(strings.ToLower(n.Text), "until") || strings.Contains(strings.ToLower(n.Text), "through") {
				t.Errorf("capture(%q) kept the end date in the note %q", say, n.Text)
			}
		}
	}
}

// TestTuning scores the capture engine on the statements it is tuned
// against (testdata/tuning_en.jsonl); the holdout is scored in agent/eval.
func TestTuning(t *testing.T) {
	raw, err := os.ReadFile("testdata/tuning_en.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	items, err := eval.ParseHoldout(raw)
	if err != nil {
		t.Fatal(err)
	}
	saved := make([][]eval.SavedNote, len(items))
	for i, it := range items {
		for _, n := range model.table.capture(it.Text, nil).notes {
			saved[i] = append(saved[i], eval.SavedNote{Text: n.Text, Keywords: n.Keywords, Scope: n.Scope})
		}
	}
	s := eval.ScoreHoldout(items, saved)
	for _, m := range append(s.Misses, s.FalseSaves...) {
		t.Log(m)
	}
	t.Logf("tuning: %d statements, precision %.3f, recall %.3f, scope %.3f", s.Statements, s.Precision, s.Recall, s.ScopeAccuracy)
	if s.Precision < 0.95 || s.Recall < 0.9 || s.ScopeAccuracy < 0.95 {
		t.Errorf("tuning precision %.3f recall %.3f scope %.3f, want ≥ 0.95, 0.90, 0.95", s.Precision, s.Recall, s.ScopeAccuracy)
	}
}
