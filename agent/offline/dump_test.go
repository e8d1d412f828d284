package offline

import (
	"os"
	"testing"

	"concierge/agent/eval"
)

func TestDumpTuning(t *testing.T) {
	lang := os.Getenv("DUMP_LANG")
	if lang == "" {
		t.Skip("DUMP_LANG unset")
	}
	raw, _ := os.ReadFile("testdata/tuning_" + lang + ".jsonl")
	items, _ := eval.ParseHoldout(raw)
	for _, it := range items {
		for _, n := range model.table.captureIn(it.Text, lang, nil).notes {
			t.Logf("%-60s → %s %v %s", it.Text, n.Text, n.Keywords, n.Scope)
		}
	}
}
