package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"

	"concierge/agent/eval"
	"concierge/agent/offline"
	"concierge/agent/openai/fakeopenai"
	"concierge/memory"
)

// scorecardKeys are the keys `concierge eval --json` promises.
var scorecardKeys = map[string][]string{
	"":              {"model", "scenarios", "distillation", "guardrails", "consolidation", "injection", "time_to_personalization_turns", "holdout", "holdout_by_language"},
	"distillation":  {"precision", "recall", "scope_accuracy"},
	"guardrails":    {"blocked_rate", "false_blocks"},
	"consolidation": {"duplicates_left", "conflicts_resolved", "invented"},
	"injection":     {"recency_correct", "over_influence", "tokens_per_turn"},
	"holdout":       {"statements", "precision", "recall", "scope_accuracy", "refused_saved", "trip_fields", "trip_accuracy"},
}

func evalJSON(t *testing.T, env map[string]string, args ...string) (map[string]any, string) {
	t.Helper()
	var out, errs bytes.Buffer
	getenv := func(k string) string { return env[k] }
	if err := run(context.Background(), append([]string{"eval", "--json"}, args...), getenv, strings.NewReader(""), &out, &errs); err != nil {
		t.Fatalf("eval: %v\n%s", err, errs.String())
	}
	if !strings.Contains(errs.String(), "eval ") {
		t.Errorf("no progress on stderr: %q", errs.String())
	}
	dec := json.NewDecoder(&out)
	var card map[string]any
	if err := dec.Decode(&card); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, out.String())
	}
	if _, err := dec.Token(); err != io.EOF {
		t.Errorf("more than one JSON value printed")
	}
	return card, errs.String()
}

// checkScorecard checks card's shape, and that each of the holdout files
// langs names was scored.
func checkScorecard(t *testing.T, card map[string]any, model string, langs []string) {
	t.Helper()
	for section, keys := range scorecardKeys {
		obj := card
		if section != "" {
			obj, _ = card[section].(map[string]any)
		}
		for _, k := range keys {
			if _, ok := obj[k]; !ok {
				t.Errorf("scorecard lacks %s.%s: %v", section, k, card)
			}
		}
	}
	byLang, _ := card["holdout_by_language"].(map[string]any)
	for _, lang := range langs {
		if h, _ := byLang[lang].(map[string]any); h["precision"] == nil || h["recall"] == nil {
			t.Errorf("scorecard lacks holdout_by_language.%s precision and recall: %v", lang, byLang[lang])
		}
	}
	if len(byLang) != len(langs) {
		t.Errorf("holdout_by_language has %d files, want %d (%v)", len(byLang), len(langs), langs)
	}
	if card["model"] != model {
		t.Errorf("model = %v, want %s", card["model"], model)
	}
	if n, _ := card["scenarios"].(float64); n < 30 {
		t.Errorf("scenarios = %v, want at least 30", card["scenarios"])
	}
}

// TestEvalOffline: by default every holdout file is scored, each with a
// progress line as it starts and as it ends.
func TestEvalOffline(t *testing.T) {
	card, progress := evalJSON(t, nil)
	checkScorecard(t, card, "offline", eval.HoldoutLanguages)
	for _, lang := range eval.HoldoutLanguages {
		if n := strings.Count(progress, "  "+fmt.Sprintf("%-5s", lang)+" "); n != 2 {
			t.Errorf("%d progress lines for holdout %s, want one as it starts and one as it ends:\n%s", n, lang, progress)
		}
	}
}

// TestEvalHoldoutChoice: --holdout scores only the files it names, and an
// unknown name is refused before anything runs.
func TestEvalHoldoutChoice(t *testing.T) {
	var out, errs bytes.Buffer
	err := run(context.Background(), []string{"eval", "--holdout", "en-9,fr"}, func(string) string { return "" }, strings.NewReader(""), &out, &errs)
	if err == nil || !strings.Contains(err.Error(), `unknown holdout "fr"`) || strings.Contains(errs.String(), "eval  ") {
		t.Errorf("eval --holdout en-9,fr: %v, stderr %q; want the unknown name refused before any scenario", err, errs.String())
	}
}

func TestEvalAgainstModelServer(t *testing.T) {
	t.Parallel()
	fake := fakeopenai.New(t)
	fake.Handler(fakeopenai.ModelHandler(offline.New(memory.NewTokenCounter("gpt-4o-mini")), nil))
	// One holdout file is enough to show the provider's path scores it;
	// TestEvalOffline scores them all.
	card, _ := evalJSON(t, map[string]string{"OPENAI_API_KEY": "test", "OPENAI_BASE_URL": fake.URL()}, "--model", "eval-model", "--holdout", "en-9")
	checkScorecard(t, card, "openai:eval-model", []string{"en-9"})
	if len(fake.Requests()) == 0 {
		t.Error("the model server was never called")
	}
}

func TestEvalCompare(t *testing.T) {
	// One holdout file shows each strategy's card scores it; TestEvalOffline
	// scores them all.
	card, _ := evalJSON(t, nil, "--compare", "recency,relevance", "--holdout", "en-9")
	for _, s := range []string{"recency", "relevance"} {
		sub, ok := card[s].(map[string]any)
		if !ok {
			t.Fatalf("no %s scorecard in %v", s, card)
		}
		checkScorecard(t, sub, "offline", []string{"en-9"})
	}
}
