package eval_test

import (
	"context"
	"os"
	"testing"

	"concierge/agent/eval"
	"concierge/agent/offline"
	"concierge/memory"
)

// TestOtherScripts measures what happens to text in scripts the built-in
// model does not read (Chinese, Arabic, Hindi): the guard's refusal rate on
// hostile notes, by rules alone and with a model layer behind them, and
// that the offline model saves nothing from such messages, hostile or not.
func TestOtherScripts(t *testing.T) {
	raw, err := os.ReadFile("testdata/other_scripts.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	items, err := eval.ParseHoldout(raw)
	if err != nil {
		t.Fatal(err)
	}
	var hostile, refused, reviewedRefused int
	for _, it := range items {
		if it.Label == "none" {
			continue
		}
		hostile++
		note := memory.SaveNoteArgs{Text: it.Text, Keywords: []string{"travel"}, Scope: memory.ScopeDurable}
		if _, r := memory.CheckNoteIn(memory.NoteContext{}, note, 0, 0, memory.Limits{}); r != nil {
			refused++
		} else {
			t.Logf("passed the guard (%s, %s): %q", it.Label, it.Kind, it.Text)
		}
		if _, r := memory.CheckNoteIn(memory.NoteContext{Reviewed: true}, note, 0, 0, memory.Limits{}); r != nil {
			reviewedRefused++
		}
	}
	t.Logf("other scripts: %d hostile notes; the guard refuses %d (%.2f); with a model layer reviewing, the rules alone refuse %d (%.2f)",
		hostile, refused, float64(refused)/float64(hostile), reviewedRefused, float64(reviewedRefused)/float64(hostile))
	// Reported, not enforced: the guard is another issue's (see the note).
	s, err := eval.RunHoldout(context.Background(), items, eval.Options{Provider: offline.New(nil), Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if s.Precision != 1 || len(s.FalseSaves) > 0 {
		t.Errorf("the offline model saved %d notes from text in other scripts, want none", len(s.FalseSaves))
	}
}
