package memory

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// fakeCompleter returns a canned answer and records what it was asked.
type fakeCompleter struct {
	answer       string
	err          error
	system, user string
}

func (f *fakeCompleter) CompleteJSON(_ context.Context, req JSONRequest) (string, error) {
	f.system, f.user = req.System, req.User
	return f.answer, f.err
}

func TestConsolidateWithModel(t *testing.T) {
	today := "2026-11-21"
	global := []Note{
		{ID: "g1", Text: "Prefers aisle seats.", Keywords: []string{"seat"}, LastUpdateDate: "2024-06-01", Scope: ScopeDurable, Source: SourceSeed},
		{ID: "g2", Text: "Prefers rooms on high floors.", Keywords: []string{"room"}, LastUpdateDate: "2024-01-20", Scope: ScopeDurable, Source: SourceSeed},
	}
	session := []Note{
		{ID: "s1", Text: "Is vegetarian.", Keywords: []string{"diet"}, Scope: ScopeDurable, LastUpdateDate: today},
		{ID: "s2", Text: "Wants a window seat on this trip to sleep.", Keywords: []string{"seat"}, Scope: ScopeThisTrip, LastUpdateDate: today},
	}
	const keep = `{"id":"g1","text":"Prefers aisle seats.","keywords":["seat"],"last_update_date":"2024-06-01","pinned":false,"sources":["g1"]},
		{"id":"g2","text":"Prefers rooms on high floors.","keywords":["room"],"last_update_date":"2024-01-20","pinned":false,"sources":["g2"]}`
	const decisions = `{"note_id":"s1","action":"promoted","into":"","why":"durable diet"},{"note_id":"s2","action":"dropped_trip","why":"this trip only"}`
	valid := `{"notes":[` + keep + `,{"id":"s1","text":"Is a vegetarian.","keywords":["diet"],"last_update_date":"2026-11-21","pinned":false,"sources":["s1"]}],"decisions":[` + decisions + `]}`

	tests := []struct {
		name       string
		answer     string
		err        error
		nilModel   bool
		wantEngine string
		wantReason string
	}{
		{"valid answer", valid, nil, false, EngineModel, ""},
		{"valid answer in whitespace", "\n " + valid + "\n", nil, false, EngineModel, ""},
		{"invented note", `{"notes":[` + keep + `,{"id":"s1","text":"Is vegetarian and loves Paris.","keywords":["diet"],"last_update_date":"2026-11-21","pinned":false,"sources":["s1"]}],"decisions":[` + decisions + `]}`, nil, false, EngineRules, "invented"},
		{"note without provenance", `{"notes":[` + keep + `,{"id":"x9","text":"Is vegetarian.","keywords":["diet"],"last_update_date":"2026-11-21","pinned":false,"sources":["x9"]}],"decisions":[` + decisions + `]}`, nil, false, EngineRules, "unknown source"},
		{"dropped global note", `{"notes":[{"id":"g1","text":"Prefers aisle seats.","keywords":["seat"],"last_update_date":"2024-06-01","pinned":false,"sources":["g1"]},{"id":"s1","text":"Is vegetarian.","keywords":["diet"],"last_update_date":"2026-11-21","pinned":false,"sources":["s1"]}],"decisions":[` + decisions + `]}`, nil, false, EngineRules, "dropped without a decision"},
		{"missing session decision", `{"notes":[` + keep + `,{"id":"s1","text":"Is vegetarian.","keywords":["diet"],"last_update_date":"2026-11-21","pinned":false,"sources":["s1"]}],"decisions":[{"note_id":"s1","action":"promoted","why":"x"}]}`, nil, false, EngineRules, "no decision for session note"},
		{"trip note promoted", `{"notes":[` + keep + `,{"id":"s2","text":"Wants a window seat on this trip to sleep.","keywords":["seat"],"last_update_date":"2026-11-21","pinned":false,"sources":["s2"]}],"decisions":[{"note_id":"s1","action":"refused","why":"x"},{"note_id":"s2","action":"promoted","why":"x"}]}`, nil, false, EngineRules, "this_trip"},
		{"malformed json", `{"notes":[`, nil, false, EngineRules, "rejected"},
		{"wrong keys", strings.Replace(valid, `"decisions"`, `"choices"`, 1), nil, false, EngineRules, "unknown key"},
		{"extra key in note", strings.Replace(valid, `"pinned":false,"sources":["s1"]`, `"pinned":false,"sources":["s1"],"confidence":1`, 1), nil, false, EngineRules, "unknown key"},
		{"bad date", strings.Replace(valid, `"last_update_date":"2026-11-21"`, `"last_update_date":"21/11/2026"`, 1), nil, false, EngineRules, "invalid last_update_date"},
		{"sensitive text", strings.Replace(valid, `"text":"Is a vegetarian."`, `"text":"Is vegetarian, card 4111 1111 1111 1111."`, 1), nil, false, EngineRules, "blocked"},
		{"model error", "", errors.New("429 too many requests"), false, EngineRules, "model call failed"},
		{"no model", "", nil, true, EngineRules, "no model configured"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fake := &fakeCompleter{answer: tt.answer, err: tt.err}
			var c Completer = fake
			if tt.nilModel {
				c = nil
			}
			r := ConsolidateWithModel(context.Background(), c, global, session, ConsolidateOptions{Today: today})
			if r.Engine != tt.wantEngine {
				t.Fatalf("engine = %s (%s), want %s", r.Engine, r.FallbackReason, tt.wantEngine)
			}
			if tt.wantReason == "" && r.FallbackReason != "" || !strings.Contains(r.FallbackReason, tt.wantReason) {
				t.Errorf("fallback reason = %q, want it to mention %q", r.FallbackReason, tt.wantReason)
			}
			checkResultInvariants(t, global, session, r)
			if d := findDecision(t, r, "s2"); d.Action != ActionDroppedTrip {
				t.Errorf("window note: %s, want dropped_trip", d.Action)
			}
			if d := findDecision(t, r, "s1"); d.Action != ActionPromoted {
				t.Errorf("vegetarian note: %s, want promoted", d.Action)
			}
			if !tt.nilModel && !strings.Contains(fake.user, `"id":"s1"`) {
				t.Errorf("the model was not given the session notes: %s", fake.user)
			}
		})
	}
}
