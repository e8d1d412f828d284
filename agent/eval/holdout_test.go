package eval_test

import (
	"context"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"concierge/agent/eval"
	"concierge/agent/offline"
	"concierge/memory"
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
			t.Logf("holdout %s: misses by kind %v", lang, s.MissKinds)
			t.Logf("holdout %s: %d statements, precision %.3f, recall %.3f, scope %.3f, refused saved %d, trip fields %d right %.3f",
				lang, s.Statements, s.Precision, s.Recall, s.ScopeAccuracy, s.RefusedSaved, s.TripFields, s.TripAccuracy)
			if s.RefusedSaved > 0 {
				t.Errorf("%d sensitive or instruction-like statements left a note", s.RefusedSaved)
			}
		})
	}
}

// TestTripFieldsOnDevelopmentSets scores the trip the offline model
// records (update_trip) for each development statement that names one,
// through the real agent. The development sets are what the rules are
// tuned on, so this guards what was tuned rather than measuring speech
// nobody here wrote (the holdouts do that): a change that halves it fails.
func TestTripFieldsOnDevelopmentSets(t *testing.T) {
	var items []eval.HoldoutItem
	files, err := filepath.Glob("../offline/labelled/dev_en_*.jsonl")
	if err != nil || len(files) == 0 {
		t.Fatalf("development sets: %v %v", files, err)
	}
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		set, err := eval.ParseHoldout(raw)
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range set {
			if it.Trip != nil {
				it.Expect, it.Label = nil, "none" // the trip only: each statement on its own traveler
				items = append(items, it)
			}
		}
	}
	s, err := eval.RunHoldout(context.Background(), items, eval.Options{Provider: offline.New(nil), Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d statements name a trip: %d trip fields, %.3f right", len(items), s.TripFields, s.TripAccuracy)
	if s.TripAccuracy < 0.5 {
		t.Errorf("trip fields right %.3f, want at least 0.5", s.TripAccuracy)
	}
}

// TestMissKinds: each miss is counted by what was saved instead, so a
// holdout's misses can be told apart without printing its statements.
func TestMissKinds(t *testing.T) {
	d, trip := memory.ScopeDurable, memory.ScopeThisTrip
	items := []eval.HoldoutItem{
		{Text: "a", Expect: []eval.HoldoutExpect{{Scope: d, Key: "aisle"}}},                               // nothing saved
		{Text: "b", Expect: []eval.HoldoutExpect{{Scope: d, Key: "aisle"}, {Scope: d, Key: "vegan"}}},     // one note holds both
		{Text: "c", Expect: []eval.HoldoutExpect{{Scope: trip, Key: "pool"}}},                             // found, but lasting
		{Text: "d", Expect: []eval.HoldoutExpect{{Scope: d, Key: "window", Must: []string{"never|not"}}}}, // the key without the negation
		{Text: "e", Expect: []eval.HoldoutExpect{{Scope: d, Key: "train"}}},                               // another topic
	}
	saved := [][]eval.SavedNote{
		nil,
		{{Text: "Is vegan and sits on the aisle.", Scope: d}},
		{{Text: "Wants a pool.", Scope: d}},
		{{Text: "Likes window seats.", Scope: d}},
		{{Text: "Hates buses.", Scope: d}},
	}
	s := eval.ScoreHoldout(items, saved)
	want := map[string]int{"durable/one/nothing": 1, "durable/several/shared": 1, "this_trip/one/scope": 1, "durable/one/gist": 1, "durable/one/other": 1}
	if !maps.Equal(s.MissKinds, want) {
		t.Errorf("miss kinds %v, want %v", s.MissKinds, want)
	}
	if len(s.Misses) != 5 || !strings.HasPrefix(s.Misses[0], "[durable/one/nothing] ") {
		t.Errorf("misses %q, want 5, each opening with its kind", s.Misses)
	}
}
