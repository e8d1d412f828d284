package eval_test

import (
	"context"
	"os"
	"strings"
	"testing"

	"concierge/agent/eval"
	"concierge/agent/offline"
)

// TestHoldoutOffline runs each holdout through the real agent with the
// offline model (HoldoutLanguages says when each was written). All are
// reported, never enforced beyond this: nothing refused is saved. Their
// misses are printed only with HOLDOUT_VERBOSE=1, so tuning sees the
// aggregate and not the statements it missed.
func TestHoldoutOffline(t *testing.T) {
	for _, lang := range eval.HoldoutLanguages {
		t.Run(lang, func(t *testing.T) {
			items, err := eval.LoadHoldout(lang)
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
			if os.Getenv("HOLDOUT_VERBOSE") != "" {
				for _, m := range s.Misses {
					t.Logf("miss: %s", m)
				}
				for _, f := range s.FalseSaves {
					t.Logf("false save: %s", f)
				}
			}
			byLabel := map[string]int{} // aggregate only: which labels the false saves came from
			for _, f := range s.FalseSaves {
				for _, l := range []string{"durable", "this_trip", "none", "sensitive", "instruction"} {
					if strings.Contains(f, " ("+l+") → ") {
						byLabel[l]++
					}
				}
			}
			t.Logf("holdout %s: %d misses, false saves by statement label %v", lang, len(s.Misses), byLabel)
			t.Logf("holdout %s: %d statements, precision %.3f, recall %.3f, scope %.3f, refused saved %d, trip fields %d right %.3f",
				lang, s.Statements, s.Precision, s.Recall, s.ScopeAccuracy, s.RefusedSaved, s.TripFields, s.TripAccuracy)
			if s.RefusedSaved > 0 {
				t.Errorf("%d sensitive or instruction-like statements left a note", s.RefusedSaved)
			}
		})
	}
}
