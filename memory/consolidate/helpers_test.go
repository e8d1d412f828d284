package consolidate

import "testing"

// findDecision is r's one decision about the note id; the test fails
// unless there is exactly one.
func findDecision(t *testing.T, r Result, id string) Decision {
	t.Helper()
	var found []Decision
	for _, d := range r.Decisions {
		if d.Note.ID == id {
			found = append(found, d)
		}
	}
	if len(found) != 1 {
		t.Fatalf("decisions for %q = %d, want exactly 1 (%+v)", id, len(found), r.Decisions)
	}
	return found[0]
}

// checkDecisions fails the test for every note whose decision has another
// action than wantAction or another into than wantInto names (note id →
// want).
func checkDecisions(t *testing.T, r Result, wantAction, wantInto map[string]string) {
	t.Helper()
	for id, want := range wantAction {
		if d := findDecision(t, r, id); d.Action != want {
			t.Errorf("%s: action = %s, want %s (%s)", id, d.Action, want, d.Why)
		}
	}
	for id, want := range wantInto {
		if d := findDecision(t, r, id); d.Into != want {
			t.Errorf("%s: into = %q, want %q", id, d.Into, want)
		}
	}
}
