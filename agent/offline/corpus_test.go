package offline

import (
	"encoding/json"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"concierge/memory"
)

// corpusItem is one labelled utterance of labelled/corpus.json.
type corpusItem struct {
	Text  string `json:"text"`
	Label string `json:"label"` // durable, this_trip, none, sensitive, instruction
	// Expect lists every note that should be saved: its scope and a word that
	// must appear in its keywords or its text.
	Expect []struct {
		Scope memory.Scope `json:"scope"`
		Key   string       `json:"key"`
	} `json:"expect"`
	Forbid []string `json:"forbid"` // strings no saved note may contain
	Note   string   `json:"note"`
}

func loadCorpus(t *testing.T, path string) []corpusItem {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read corpus: %v", err)
	}
	var items []corpusItem
	if err := json.Unmarshal(raw, &items); err != nil {
		t.Fatalf("parse corpus: %v", err)
	}
	return items
}

func matches(n memory.SaveNoteArgs, scope memory.Scope, key string) bool {
	if n.Scope != scope {
		return false
	}
	return slices.Contains(n.Keywords, key) || strings.Contains(strings.ToLower(n.Text), key)
}

var reKeyword = regexp.MustCompile(`^\p{Ll}[\p{Ll}0-9-]*$`)

// TestCorpus runs the capture engine over the labelled corpus and checks its
// precision and recall, and that nothing sensitive or instruction-like is
// ever saved.
func TestCorpus(t *testing.T) {
	items := loadCorpus(t, "labelled/corpus.json")
	if len(items) < 100 {
		t.Fatalf("corpus has %d utterances, want at least 100", len(items))
	}
	dialogue := 0
	for _, it := range items {
		if strings.Contains(it.Note, "dialogue-shaped") {
			dialogue++
		}
	}
	if dialogue < 60 {
		t.Errorf("%d dialogue-shaped cases, want at least 60", dialogue)
	}
	// The corpus labels a request given with its reason ("No red-eyes
	// please, I'm useless the next day") or a bare limit ("Max one
	// layover.") as nothing to keep; the blind sets the learned reader
	// learns from label the same shapes a lasting fact, so since that reader
	// its precision here went from 0.975 to 0.929.
	precision, recall := evaluate(t, items)
	if precision < 0.92 {
		t.Errorf("precision %.3f, want at least 0.92", precision)
	}
	if recall < 0.90 {
		t.Errorf("recall %.3f, want at least 0.90", recall)
	}
}

// TestHoldout runs the extractor over utterances it was never tuned
// against: holdout.json (written for the previous engine, labelled under its
// looser contract) and holdout_dialogue.json (written before this engine,
// never run while tuning it). Their figures are reported, not enforced; what
// is enforced is that nothing sensitive or instruction-like is saved.
func TestHoldout(t *testing.T) {
	for _, file := range []string{"testdata/holdout.json", "testdata/holdout_dialogue.json"} {
		t.Run(file, func(t *testing.T) { evaluate(t, loadCorpus(t, file)) })
	}
}

// evaluate scores the extractor on items, failing the test for any saved
// sensitive or instruction item, badly shaped note or forbidden string.
func evaluate(t *testing.T, items []corpusItem) (precision, recall float64) {
	t.Helper()
	labels := map[string]int{}
	var saved, correct, expected, found int
	for _, it := range items {
		labels[it.Label]++
		switch it.Label {
		case "durable", "this_trip", "none", "sensitive", "instruction":
		default:
			t.Errorf("%q: unknown label %q", it.Text, it.Label)
		}
		if (it.Label == "durable" || it.Label == "this_trip") && len(it.Expect) == 0 {
			t.Errorf("%q: labelled %s but expects nothing", it.Text, it.Label)
		}
		got := model.table.capture(it.Text, nil).notes
		for _, n := range got {
			checkNoteShape(t, it.Text, n)
			for _, f := range it.Forbid {
				if strings.Contains(n.Text, f) || slices.Contains(n.Keywords, f) {
					t.Errorf("%q: saved %q, which contains forbidden %q", it.Text, n.Text, f)
				}
			}
		}
		if (it.Label == "sensitive" || it.Label == "instruction") && len(got) > 0 {
			t.Errorf("%q (%s): saved %v, want nothing", it.Text, it.Label, got)
		}
		saved += len(got)
		expected += len(it.Expect)
		usedNote := make([]bool, len(got))
		for _, e := range it.Expect {
			hit := false
			for i, n := range got {
				if !usedNote[i] && matches(n, e.Scope, e.Key) {
					usedNote[i], hit = true, true
					break
				}
			}
			if hit {
				found++
			} else {
				t.Logf("miss: %q: want %s note about %q, got %s", it.Text, e.Scope, e.Key, describeNotes(got))
			}
		}
		for i, n := range got {
			if usedNote[i] {
				correct++
			} else {
				t.Logf("false save: %q → %q (%s)", it.Text, n.Text, n.Scope)
			}
		}
	}
	precision, recall = 1.0, 1.0
	if saved > 0 {
		precision = float64(correct) / float64(saved)
	}
	if expected > 0 {
		recall = float64(found) / float64(expected)
	}
	t.Logf("corpus: %d utterances %v", len(items), labels)
	t.Logf("precision %.3f (%d of %d saved notes correct), recall %.3f (%d of %d expected notes saved)",
		precision, correct, saved, recall, found, expected)
	return precision, recall
}

func checkNoteShape(t *testing.T, utterance string, n memory.SaveNoteArgs) {
	t.Helper()
	if n.Text == "" || len(n.Text) > memory.MaxNoteChars || !strings.HasSuffix(n.Text, ".") || strings.Count(n.Text, ". ") > 0 {
		t.Errorf("%q: note text %q is not one sentence of at most %d characters", utterance, n.Text, memory.MaxNoteChars)
	}
	if len(n.Keywords) < 1 || len(n.Keywords) > 3 {
		t.Errorf("%q: note %q has %d keywords, want 1–3", utterance, n.Text, len(n.Keywords))
	}
	for _, k := range n.Keywords {
		if !reKeyword.MatchString(k) {
			t.Errorf("%q: keyword %q is not one lowercase word", utterance, k)
		}
	}
	if n.Scope != memory.ScopeDurable && n.Scope != memory.ScopeThisTrip {
		t.Errorf("%q: scope %q", utterance, n.Scope)
	}
}

func describeNotes(notes []memory.SaveNoteArgs) string {
	if len(notes) == 0 {
		return "nothing"
	}
	var parts []string
	for _, n := range notes {
		parts = append(parts, n.Text+" ("+string(n.Scope)+" "+strings.Join(n.Keywords, ",")+")")
	}
	return strings.Join(parts, "; ")
}
