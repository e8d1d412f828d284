package eval_test

import (
	"context"
	"testing"

	"concierge/agent/eval"
	"concierge/agent/offline"
)

// TestHoldoutOffline runs the holdout through the real agent with the
// offline model and holds it to issue 25's bar: nothing refused is saved,
// precision ≥ 0.95, recall ≥ 0.90, scope ≥ 0.95.
func TestHoldoutOffline(t *testing.T) {
	items, err := eval.LoadHoldout("en")
	if err != nil {
		t.Fatal(err)
	}
	if len(items) < 150 {
		t.Fatalf("holdout has %d statements, want at least 150", len(items))
	}
	s, err := eval.RunHoldout(context.Background(), items, eval.Options{Provider: offline.New(nil), Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range s.Misses {
		t.Logf("miss: %s", m)
	}
	for _, f := range s.FalseSaves {
		t.Logf("false save: %s", f)
	}
	t.Logf("holdout: %d statements, precision %.3f, recall %.3f, scope %.3f, refused saved %d",
		s.Statements, s.Precision, s.Recall, s.ScopeAccuracy, s.RefusedSaved)
	if s.RefusedSaved > 0 {
		t.Errorf("%d sensitive or instruction-like statements left a note", s.RefusedSaved)
	}
}
