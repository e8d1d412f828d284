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
