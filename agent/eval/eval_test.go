package eval_test

import (
	"context"
	"io/fs"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"concierge/agent/eval"
	"concierge/agent/offline"
	"concierge/agent/openai"
	"concierge/agent/openai/fakeopenai"
	"concierge/memory"
)

func builtin(t *testing.T) []eval.Scenario {
	t.Helper()
	sc, err := eval.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

func TestBuiltinScenarios(t *testing.T) {
	sc := builtin(t)
	if len(sc) < 30 {
		t.Errorf("%d built-in scenarios, want at least 30", len(sc))
	}
	kinds := map[string]int{}
	for _, s := range sc {
		kinds[s.Kind]++
	}
	for _, k := range []string{"explicit", "trip_only", "drift", "duplicates", "conflict", "poison", "over_influence", "long_chat", "personalization", "relevance"} {
		if kinds[k] == 0 {
			t.Errorf("no %s scenario", k)
		}
	}
}

func TestLoadRefusesBadScenarios(t *testing.T) {
	tests := []struct{ name, yaml, want string }{
		{"bad date", "- {name: a, kind: x, conversations: [{date: 2026-13-01, turns: [{say: hi}]}]}", "date"},
		{"no turns", "- {name: a, kind: x, conversations: [{date: 2026-01-01, turns: []}]}", "no turns"},
		{"bad pattern", "- {name: a, kind: x, conversations: [{date: 2026-01-01, turns: [{say: hi, save: [{match: '(', scope: durable}]}]}]}", "pattern"},
		{"bad scope", "- {name: a, kind: x, conversations: [{date: 2026-01-01, turns: [{say: hi, save: [{match: a, scope: forever}]}]}]}", "scope"},
		{"probe without check", "- {name: a, kind: x, conversations: [{date: 2026-01-01, turns: [{say: hi, probe: recency}]}]}", "probe"},
		{"twice", "- {name: a, kind: x, conversations: [{date: 2026-01-01, turns: [{say: hi}]}]}\n- {name: a, kind: x, conversations: [{date: 2026-01-01, turns: [{say: hi}]}]}", "twice"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fsys := fstest.MapFS{"s/a.yaml": &fstest.MapFile{Data: []byte(tt.yaml)}}
			_, err := eval.Load(fs.FS(fsys), "s")
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Load = %v, want an error about %q", err, tt.want)
			}
		})
	}
}

func runOffline(t *testing.T, strategy string) eval.Scorecard {
	t.Helper()
	m := offline.New(memory.NewTokenCounter("gpt-4o-mini"))
	recs, err := eval.Run(context.Background(), builtin(t), eval.Options{Provider: m, Model: "gpt-4o-mini", Strategy: strategy, Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	return eval.Score(m.Name(), recs)
}

// TestCompareStrategies checks that the two injection strategies really
// differ where the budget binds: ranking by recency alone drops the old
// note that matters to the request, relevance keeps it.
func TestCompareStrategies(t *testing.T) {
	rel, rec := runOffline(t, eval.StrategyRelevance), runOffline(t, eval.StrategyRecency)
	if r, c := rel.Kinds["relevance"], rec.Kinds["relevance"]; r == nil || c == nil || r.Failed >= c.Failed {
		t.Errorf("relevance scenarios: relevance strategy failed %v checks, recency %v; want relevance to do better", r, c)
	}
}

// TestAgainstFakeModelServer runs the scenarios through the real openai-go
// client against the fake model server, which answers with the offline
// model behind the wire format. The pipeline must score exactly as it does
// with the offline model called directly: the client, tool calls and
// results survive the wire. Structured consolidation calls get an empty
// object, which the validator refuses, so consolidation falls back to the
// rules engine as the offline run uses.
func TestAgainstFakeModelServer(t *testing.T) {
	fake := fakeopenai.New(t)
	fake.Handler(fakeopenai.ModelHandler(offline.New(memory.NewTokenCounter("gpt-4o-mini")), nil))
	p := openai.New(openai.Config{APIKey: "test", BaseURL: fake.URL(), Model: "gpt-4o-mini", Timeout: 10 * time.Second})
	recs, err := eval.Run(context.Background(), builtin(t), eval.Options{Provider: p, Completer: p, Model: "gpt-4o-mini", Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	got, want := eval.Score(p.Name(), recs), runOffline(t, eval.StrategyRelevance)
	if got.Distillation != want.Distillation || got.Guardrails != want.Guardrails || got.Consolidation != want.Consolidation {
		t.Errorf("through the fake server: distillation %+v guardrails %+v consolidation %+v\nwant %+v %+v %+v",
			got.Distillation, got.Guardrails, got.Consolidation, want.Distillation, want.Guardrails, want.Consolidation)
	}
	var chat, structured int
	for _, r := range fake.Requests() {
		if r.ResponseFormat != nil {
			structured++
		} else {
			chat++
		}
	}
	if chat == 0 || structured == 0 {
		t.Errorf("the fake saw %d chat and %d structured calls, want both", chat, structured)
	}
}
