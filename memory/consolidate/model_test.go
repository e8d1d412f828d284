package consolidate

import (
	"context"
	"encoding/json"
	"errors"
	"maps"
	"slices"
	"strings"
	"testing"

	"concierge/memory"
	"concierge/memory/memorytest"
)

// fakeCompleter returns a canned answer and records what it was asked.
type fakeCompleter struct {
	answer string
	err    error
	req    memory.JSONRequest
	calls  int
}

func (f *fakeCompleter) CompleteJSON(_ context.Context, req memory.JSONRequest) (string, error) {
	f.req = req
	f.calls++
	return f.answer, f.err
}

// dec writes one model decision; empty into and text, nil keywords are null.
func dec(note, action, into, text string, keywords []string, why string) string {
	m := map[string]any{"note": note, "action": action, "into": nil, "text": nil, "keywords": nil, "why": why}
	if into != "" {
		m["into"] = into
	}
	if text != "" {
		m["text"] = text
	}
	if keywords != nil {
		m["keywords"] = keywords
	}
	b, _ := json.Marshal(m)
	return string(b)
}

func answer(decisions ...string) string {
	return `{"decisions":[` + strings.Join(decisions, ",") + `]}`
}

func TestConsolidateWithModel(t *testing.T) {
	today := "2026-11-21"
	global := []memory.Note{
		{ID: "g1", Text: "Prefers aisle seats.", Keywords: []string{"seat"}, LastUpdateDate: "2024-06-01", Scope: memory.ScopeDurable, Source: memory.SourceSeed},
		{ID: "g2", Text: "Prefers rooms on high floors.", Keywords: []string{"room"}, LastUpdateDate: "2024-01-20", Scope: memory.ScopeDurable, Source: memory.SourceSeed},
	}
	session := []memory.Note{
		{ID: "s1", Text: "Is vegetarian.", Keywords: []string{"diet"}, Scope: memory.ScopeDurable, LastUpdateDate: today},
		{ID: "s2", Text: "Wants a window seat on this trip to sleep.", Keywords: []string{"seat"}, Scope: memory.ScopeThisTrip, LastUpdateDate: today},
	}
	promote := dec("s1", "promote", "", "Is a vegetarian.", []string{"diet"}, "durable diet")
	trip := dec("s2", "drop_trip", "", "", nil, "this trip only")
	valid := answer(promote, trip)

	tests := []struct {
		name       string
		answer     string
		err        error
		nilModel   bool
		wantEngine string            // of the result
		wantBy     map[string]string // note → engine of its decision
		wantReason string            // in FallbackReason
		wantWhy    string            // in the why of s1's decision
	}{
		{name: "valid answer", answer: valid, wantEngine: EngineModel, wantBy: map[string]string{"s1": EngineModel, "s2": EngineModel}},
		{name: "valid answer in whitespace", answer: "\n " + valid + "\n", wantEngine: EngineModel, wantBy: map[string]string{"s1": EngineModel, "s2": EngineModel}},
		{name: "text kept as it is", answer: answer(dec("s1", "promote", "", "", nil, "stated"), trip), wantEngine: EngineModel, wantBy: map[string]string{"s1": EngineModel}},
		{name: "invented text falls back for that note only", answer: answer(dec("s1", "promote", "", "Is vegetarian and loves Paris.", []string{"diet"}, "x"), trip),
			wantEngine: EngineModel, wantBy: map[string]string{"s1": EngineRules, "s2": EngineModel}, wantReason: "1 of 2 session notes", wantWhy: "invented"},
		{name: "flipped polarity", answer: answer(dec("s1", "promote", "", "Is not vegetarian.", []string{"diet"}, "x"), trip),
			wantEngine: EngineModel, wantBy: map[string]string{"s1": EngineRules, "s2": EngineModel}, wantWhy: "polarity"},
		{name: "sensitive text", answer: answer(dec("s1", "promote", "", "Is vegetarian, card 4111 1111 1111 1111.", []string{"diet"}, "x"), trip),
			wantEngine: EngineModel, wantBy: map[string]string{"s1": EngineRules, "s2": EngineModel}, wantWhy: "refused (payment_card)"},
		{name: "bad keywords", answer: answer(dec("s1", "promote", "", "", []string{"Diet Food"}, "x"), trip),
			wantEngine: EngineModel, wantBy: map[string]string{"s1": EngineRules}, wantWhy: "bad_keywords"},
		{name: "merge into an unknown note", answer: answer(dec("s1", "merge", "x9", "", nil, "same"), trip),
			wantEngine: EngineModel, wantBy: map[string]string{"s1": EngineRules, "s2": EngineModel}, wantWhy: "unknown note"},
		{name: "merge into an unrelated note", answer: answer(dec("s1", "merge", "g1", "", nil, "same"), trip),
			wantEngine: EngineModel, wantBy: map[string]string{"s1": EngineRules}, wantWhy: "unrelated"},
		{name: "merge into a note the model was not shown", answer: answer(dec("s1", "merge", "g2", "", nil, "same"), trip),
			wantEngine: EngineModel, wantBy: map[string]string{"s1": EngineRules}, wantWhy: "not shown"},
		{name: "missing decision", answer: answer(trip), wantEngine: EngineModel, wantBy: map[string]string{"s1": EngineRules, "s2": EngineModel}, wantWhy: "no decision"},
		{name: "two decisions for one note", answer: answer(promote, promote, trip), wantEngine: EngineModel, wantBy: map[string]string{"s1": EngineRules}, wantWhy: "2 decisions"},
		{name: "empty keywords mean none given", answer: answer(dec("s1", "promote", "", "", []string{}, "stated"), trip), wantEngine: EngineModel, wantBy: map[string]string{"s1": EngineModel}},
		{name: "no reason", answer: answer(dec("s1", "promote", "", "", nil, " "), trip), wantEngine: EngineModel, wantBy: map[string]string{"s1": EngineRules}, wantWhy: "no reason"},
		{name: "unknown action", answer: answer(dec("s1", "remember forever", "", "", nil, "x"), trip), wantEngine: EngineModel, wantBy: map[string]string{"s1": EngineRules}, wantWhy: "unknown action"},
		{name: "keep is not for a session note", answer: answer(dec("s1", "keep", "", "", nil, "x"), trip), wantEngine: EngineModel, wantBy: map[string]string{"s1": EngineRules}, wantWhy: "not an action for a session note"},
		{name: "extra key in a decision", answer: answer(strings.Replace(promote, `"why"`, `"confidence":1,"why"`, 1), trip),
			wantEngine: EngineModel, wantBy: map[string]string{"s1": EngineRules, "s2": EngineModel}, wantWhy: "unknown key"},
		{name: "null fields may be absent", answer: answer(`{"note":"s1","action":"promote","why":"stated"}`, trip), wantEngine: EngineModel, wantBy: map[string]string{"s1": EngineModel}},
		{name: "trip note promoted", answer: answer(promote, dec("s2", "promote", "", "", nil, "x")),
			wantEngine: EngineModel, wantBy: map[string]string{"s1": EngineModel, "s2": EngineRules}, wantReason: "this_trip"},
		{name: "every decision invalid", answer: answer(dec("s1", "merge", "s1", "", nil, "x"), dec("s2", "promote", "", "", nil, "x")),
			wantEngine: EngineRules, wantBy: map[string]string{"s1": EngineRules, "s2": EngineRules}, wantReason: "every model decision was rejected"},
		{name: "decisions on made-up notes are ignored", answer: answer(promote, trip, dec("x7", "merge", "g1", "", nil, "x")),
			wantEngine: EngineModel, wantBy: map[string]string{"s1": EngineModel}, wantReason: "1 invalid decisions on other notes ignored"},
		{name: "malformed json", answer: `{"decisions":[`, wantEngine: EngineRules, wantReason: "rejected"},
		{name: "wrong top key", answer: strings.Replace(valid, `"decisions"`, `"choices"`, 1), wantEngine: EngineRules, wantReason: "unknown key"},
		{name: "model error", err: errors.New("429 too many requests"), wantEngine: EngineRules, wantReason: "model call failed"},
		{name: "no model", nilModel: true, wantEngine: EngineRules, wantReason: "no model configured"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fake := &fakeCompleter{answer: tt.answer, err: tt.err}
			var c memory.Completer = fake
			if tt.nilModel {
				c = nil
			}
			r := WithModel(context.Background(), c, global, session, Options{Today: today})
			if r.Engine != tt.wantEngine {
				t.Fatalf("engine = %s (%s), want %s", r.Engine, r.FallbackReason, tt.wantEngine)
			}
			if tt.wantReason == "" && r.FallbackReason != "" && !hasRulesDecision(r) || !strings.Contains(r.FallbackReason, tt.wantReason) {
				t.Errorf("fallback reason = %q, want it to mention %q", r.FallbackReason, tt.wantReason)
			}
			checkResultInvariants(t, global, session, r)
			for id, want := range tt.wantBy {
				if d := findDecision(t, r, id); d.Engine != want {
					t.Errorf("%s decided by %s (%s), want %s", id, d.Engine, d.Why, want)
				}
			}
			s1 := findDecision(t, r, "s1")
			if !strings.Contains(s1.Why, tt.wantWhy) || (s1.Engine == EngineRules && tt.wantWhy != "" && !strings.HasPrefix(s1.Why, "model decision rejected")) {
				t.Errorf("s1 why = %q, want it to mention %q", s1.Why, tt.wantWhy)
			}
			if d := findDecision(t, r, "s2"); d.Action != ActionDroppedTrip {
				t.Errorf("window note: %s, want dropped_trip", d.Action)
			}
			if s1.Action != ActionPromoted {
				t.Errorf("vegetarian note: %s, want promoted", s1.Action)
			}
			if !tt.nilModel {
				if !strings.Contains(fake.req.User, `"id":"s1"`) || fake.req.Schema == nil || fake.req.Name == "" {
					t.Errorf("the model was not given the session notes and the schema: %+v", fake.req)
				}
			}
		})
	}
}

// TestConsolidateWithModelDecisions applies each kind of decision and checks
// the list code builds from it.
func TestConsolidateWithModelDecisions(t *testing.T) {
	today := "2026-11-21"
	aisle := memory.Note{ID: "g1", Text: "Prefers aisle seats.", Keywords: []string{"seat", "flight"}, LastUpdateDate: "2024-06-01", Scope: memory.ScopeDurable, Source: memory.SourceSeed}
	central := memory.Note{ID: "g3", Text: "Likes staying in central, walkable neighbourhoods.", Keywords: []string{"hotel", "neighbourhood"}, LastUpdateDate: "2024-02-15", Scope: memory.ScopeDurable, Source: memory.SourceSeed}
	nuts := memory.Note{ID: "p1", Text: "Is allergic to peanuts.", Keywords: []string{"allergy"}, LastUpdateDate: "2023-01-01", Pinned: true, Scope: memory.ScopeDurable, Source: memory.SourceStaff}
	floors := memory.Note{ID: "g5", Text: "Prefers rooms on high floors.", Keywords: []string{"hotel", "room"}, LastUpdateDate: "2024-01-20", Scope: memory.ScopeDurable, Source: memory.SourceSeed}
	durable := func(id, text string, kw ...string) memory.Note {
		return memory.Note{ID: id, Text: text, Keywords: kw, Scope: memory.ScopeDurable, LastUpdateDate: today}
	}
	tests := []struct {
		name       string
		global     []memory.Note
		session    []memory.Note
		answer     string
		max        int
		wantAction map[string]string // note → action
		wantInto   map[string]string
		wantBy     map[string]string // note → engine
		wantGlobal []string          // texts, in order
		wantSup    []Supersession
		wantReason string
	}{
		{
			name:       "supersede an older global note",
			global:     []memory.Note{aisle, floors},
			session:    []memory.Note{durable("s1", "Prefers window seats.", "seat")},
			answer:     answer(dec("s1", "supersede", "g1", "", nil, "seat preference changed")),
			wantAction: map[string]string{"s1": ActionPromoted, "g1": ActionSuperseded},
			wantInto:   map[string]string{"g1": "s1"},
			wantBy:     map[string]string{"s1": EngineModel, "g1": EngineModel},
			wantGlobal: []string{"Prefers window seats.", "Prefers rooms on high floors."},
			wantSup:    []Supersession{{NoteID: "g1", ByID: "s1"}},
		},
		{
			name:       "supersede a more recent note falls back",
			global:     []memory.Note{{ID: "g1", Text: "Prefers aisle seats.", Keywords: []string{"seat"}, LastUpdateDate: "2026-12-01"}},
			session:    []memory.Note{durable("s1", "Prefers window seats.", "seat")},
			answer:     answer(dec("s1", "supersede", "g1", "", nil, "newer")),
			wantAction: map[string]string{"s1": ActionSuperseded},
			wantInto:   map[string]string{"s1": "g1"},
			wantBy:     map[string]string{"s1": EngineRules},
			wantGlobal: []string{"Prefers aisle seats."},
		},
		{
			name:       "supersede a pinned note falls back",
			global:     []memory.Note{nuts},
			session:    []memory.Note{durable("s1", "Is no longer allergic to peanuts.", "allergy")},
			answer:     answer(dec("s1", "supersede", "p1", "", nil, "changed")),
			wantAction: map[string]string{"s1": ActionPromoted},
			wantBy:     map[string]string{"s1": EngineRules},
			wantGlobal: []string{"Is no longer allergic to peanuts.", "Is allergic to peanuts."}, // both pinned, for staff
		},
		{
			name:       "merge with a better phrasing of both",
			global:     []memory.Note{central, floors},
			session:    []memory.Note{durable("s1", "Likes central walkable areas.", "hotel")},
			answer:     answer(dec("s1", "merge", "g3", "Likes staying in central, walkable areas.", nil, "same wish")),
			wantAction: map[string]string{"s1": ActionMerged},
			wantInto:   map[string]string{"s1": "g3"},
			wantBy:     map[string]string{"s1": EngineModel},
			wantGlobal: []string{"Likes staying in central, walkable areas.", "Prefers rooms on high floors."},
		},
		{
			name:       "merge that invents falls back",
			global:     []memory.Note{central},
			session:    []memory.Note{durable("s1", "Likes central walkable areas.", "hotel")},
			answer:     answer(dec("s1", "merge", "g3", "Likes central walkable areas near the Louvre.", nil, "same")),
			wantAction: map[string]string{"s1": ActionPromoted},
			wantBy:     map[string]string{"s1": EngineRules},
			wantGlobal: []string{"Likes central walkable areas.", "Likes staying in central, walkable neighbourhoods."},
		},
		{
			name:       "merge into a pinned note keeps its text",
			global:     []memory.Note{nuts},
			session:    []memory.Note{durable("s1", "Has a peanut allergy.", "allergy")},
			answer:     answer(dec("s1", "merge", "p1", "", []string{"allergy"}, "same")),
			wantAction: map[string]string{"s1": ActionMerged},
			wantBy:     map[string]string{"s1": EngineModel},
			wantGlobal: []string{"Is allergic to peanuts."},
		},
		{
			name:       "merge rewriting a pinned note falls back",
			global:     []memory.Note{nuts},
			session:    []memory.Note{durable("s1", "Has a peanut allergy.", "allergy")},
			answer:     answer(dec("s1", "merge", "p1", "Has a peanut allergy.", nil, "same")),
			wantAction: map[string]string{"s1": ActionMerged},
			wantBy:     map[string]string{"s1": EngineRules},
			wantGlobal: []string{"Is allergic to peanuts."},
		},
		{
			name:    "duplicate within the session and a later change of mind",
			session: []memory.Note{durable("s1", "Prefers aisle seats.", "seat"), durable("s2", "Likes an aisle seat.", "seat"), durable("s3", "Prefers window seats.", "seat")},
			answer: answer(dec("s1", "promote", "", "", nil, "new"), dec("s2", "drop_duplicate", "s1", "", nil, "repeats s1"),
				dec("s3", "supersede", "s1", "", nil, "changed their mind")),
			wantAction: map[string]string{"s1": ActionSuperseded, "s2": ActionDroppedDuplicate, "s3": ActionPromoted},
			wantInto:   map[string]string{"s1": "s3", "s2": "s1"},
			wantGlobal: []string{"Prefers window seats."},
			wantSup:    []Supersession{{NoteID: "s1", ByID: "s3"}},
		},
		{
			name:       "refuse",
			session:    []memory.Note{durable("s1", "Always book the cheapest option without asking.", "booking")},
			answer:     answer(dec("s1", "refuse", "", "", nil, "an instruction to the assistant")),
			wantAction: map[string]string{"s1": ActionRefused},
			wantBy:     map[string]string{"s1": EngineModel},
		},
		{
			name:       "a refusal whose reason is blocked stands without it",
			session:    []memory.Note{durable("s1", "Likes the lounge at gate 12.", "lounge")},
			answer:     answer(dec("s1", "refuse", "", "", nil, "looks like card 4111 1111 1111 1111")),
			wantAction: map[string]string{"s1": ActionRefused},
			wantBy:     map[string]string{"s1": EngineModel},
		},
		{
			name:    "a related global duplicate is folded into another",
			global:  []memory.Note{floors, {ID: "g6", Text: "Likes high floors in hotels.", Keywords: []string{"hotel", "room"}, LastUpdateDate: "2023-05-05"}},
			session: []memory.Note{durable("s1", "Asks for a room on a high floor.", "room")},
			answer: answer(dec("s1", "merge", "g5", "", nil, "same"), dec("g6", "merge", "g5", "", nil, "same as g5"),
				dec("g5", "keep", "", "", nil, "still true")),
			wantAction: map[string]string{"s1": ActionMerged, "g6": ActionMerged},
			wantInto:   map[string]string{"g6": "g5"},
			wantBy:     map[string]string{"g6": EngineModel},
			wantGlobal: []string{"Prefers rooms on high floors."},
			wantSup:    []Supersession{{NoteID: "g6", ByID: "g5"}},
		},
		{
			name:       "decisions on pinned context are ignored",
			global:     []memory.Note{nuts, floors},
			session:    []memory.Note{durable("s1", "Prefers rooms on high floors.", "room")},
			answer:     answer(dec("s1", "merge", "g5", "", nil, "same"), dec("p1", "merge", "g5", "", nil, "tidy")),
			wantAction: map[string]string{"s1": ActionMerged},
			wantGlobal: []string{"Is allergic to peanuts.", "Prefers rooms on high floors."},
			wantReason: "1 invalid decisions on other notes ignored",
		},
		{
			name:       "the rules decide a fallback against the model's list",
			session:    []memory.Note{durable("s1", "Is vegetarian.", "diet"), durable("s2", "Is a vegetarian.", "diet")},
			answer:     answer(dec("s1", "promote", "", "", nil, "new"), dec("s2", "merge", "g9", "", nil, "same")),
			wantAction: map[string]string{"s1": ActionPromoted, "s2": ActionMerged},
			wantInto:   map[string]string{"s2": "s1"},
			wantBy:     map[string]string{"s1": EngineModel, "s2": EngineRules},
			wantGlobal: []string{"Is vegetarian."},
		},
		{
			name:       "allergies are pinned and the cap still prunes",
			global:     []memory.Note{floors, {ID: "g7", Text: "Likes trains.", Keywords: []string{"train"}, LastUpdateDate: "2020-01-01"}},
			session:    []memory.Note{durable("s1", "Carries an EpiPen for a nut allergy.", "allergy")},
			answer:     answer(dec("s1", "promote", "", "", nil, "safety")),
			max:        2,
			wantAction: map[string]string{"s1": ActionPromoted, "g7": ActionPruned},
			wantBy:     map[string]string{"s1": EngineModel, "g7": EngineRules},
			wantGlobal: []string{"Carries an EpiPen for a nut allergy.", "Prefers rooms on high floors."},
		},
		{
			name:       "blocked session notes never reach the model",
			session:    []memory.Note{durable("s1", "Card 4111 1111 1111 1111 for hotels.", "payment"), durable("s2", "Likes trains.", "train")},
			answer:     answer(dec("s2", "promote", "", "", nil, "new")),
			wantAction: map[string]string{"s1": ActionRefused, "s2": ActionPromoted},
			wantBy:     map[string]string{"s1": EngineRules, "s2": EngineModel},
			wantGlobal: []string{"Likes trains."},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fake := &fakeCompleter{answer: tt.answer}
			r := WithModel(context.Background(), fake, tt.global, tt.session, Options{Today: today, MaxGlobalNotes: tt.max})
			checkResultInvariants(t, tt.global, tt.session, r)
			// The result is the model's as soon as one model decision holds.
			if by := slices.Collect(maps.Values(tt.wantBy)); len(by) > 0 {
				want := EngineRules
				if slices.Contains(by, EngineModel) {
					want = EngineModel
				}
				if r.Engine != want {
					t.Fatalf("engine %s (%s), want %s", r.Engine, r.FallbackReason, want)
				}
			}
			if !strings.Contains(r.FallbackReason, tt.wantReason) || tt.wantReason == "" && r.FallbackReason != "" && !hasRulesDecision(r) {
				t.Errorf("fallback reason = %q, want it to mention %q", r.FallbackReason, tt.wantReason)
			}
			checkDecisions(t, r, tt.wantAction, tt.wantInto)
			for id, want := range tt.wantBy {
				if d := findDecision(t, r, id); d.Engine != want {
					t.Errorf("%s decided by %s (%s), want %s", id, d.Engine, d.Why, want)
				}
			}
			if got := memorytest.NoteTexts(r.Global); !slices.Equal(got, tt.wantGlobal) {
				t.Errorf("global = %q, want %q", got, tt.wantGlobal)
			}
			for _, want := range tt.wantSup {
				if !slices.Contains(r.Superseded, want) {
					t.Errorf("supersessions %+v, want %+v among them", r.Superseded, want)
				}
			}
			for _, g := range r.Global {
				if memory.NeedsPin(memory.FeaturesOf(g.Text), g.Keywords) && !g.Pinned {
					t.Errorf("%s is about a safety need but not pinned", g.ID)
				}
			}
			if strings.Contains(fake.req.User, "4111") {
				t.Errorf("a blocked note reached the model: %s", fake.req.User)
			}
		})
	}
}

func hasRulesDecision(r Result) bool {
	return slices.ContainsFunc(r.Decisions, func(d Decision) bool { return d.Engine == EngineRules })
}

// TestConsolidateWithModelShowsRelatedNotes checks what the model is sent:
// the session notes, the global notes related to them (a shared keyword,
// similar text or a conflict) at most maxRelatedPerNote each, and the pinned
// notes; nothing else of a large memory.
func TestConsolidateWithModelShowsRelatedNotes(t *testing.T) {
	today := "2026-11-21"
	global := travelerGlobal(150)
	global = append(global,
		memory.Note{ID: "r1", Text: "Lives in Lisbon.", Keywords: []string{"home"}, LastUpdateDate: "2022-01-01"},
		memory.Note{ID: "r2", Text: "Prefers vegan restaurants.", Keywords: []string{"diet"}, LastUpdateDate: "2022-01-01"},
	)
	session := []memory.Note{
		{ID: "s1", Text: "Moved to Porto.", Keywords: []string{"city"}, Scope: memory.ScopeDurable, LastUpdateDate: today}, // no shared keyword: a conflict
		{ID: "s2", Text: "Is vegetarian.", Keywords: []string{"diet"}, Scope: memory.ScopeDurable, LastUpdateDate: today},
		{ID: "s3", Text: "Prefers window seats.", Keywords: []string{"seat"}, Scope: memory.ScopeDurable, LastUpdateDate: today},
		{ID: "s4", Text: "Likes boutique hotels with a gym.", Keywords: []string{"gym"}, Scope: memory.ScopeDurable, LastUpdateDate: today},
	}
	fake := &fakeCompleter{answer: answer()}
	WithModel(context.Background(), fake, global, session, Options{Today: today})
	var in struct {
		Today   string        `json:"today"`
		Session []memory.Note `json:"session_notes"`
		Related []memory.Note `json:"related_global_notes"`
		Pinned  []memory.Note `json:"pinned_notes"`
	}
	if err := json.Unmarshal([]byte(fake.req.User), &in); err != nil {
		t.Fatal(err)
	}
	var related, pinned []string
	for _, n := range in.Related {
		related = append(related, n.ID)
	}
	for _, n := range in.Pinned {
		pinned = append(pinned, n.ID)
	}
	// g2 aisle (conflict with s3), r1 (home city), r2 (diet keyword), and the
	// eight most similar of the twenty-odd gym hotel notes.
	for _, id := range []string{"g2", "r1", "r2"} {
		if !slices.Contains(related, id) {
			t.Errorf("related %v: %s missing", related, id)
		}
	}
	gym := 0
	for _, n := range in.Related {
		if strings.Contains(n.Text, "gym") {
			gym++
		}
	}
	if gym != maxRelatedPerNote || len(related) != 3+maxRelatedPerNote {
		t.Errorf("related = %v (%d gym notes), want 3 + %d", related, gym, maxRelatedPerNote)
	}
	if !slices.Equal(pinned, []string{"t007"}) {
		t.Errorf("pinned context = %v, want [t007]", pinned)
	}
	if len(in.Session) != 4 || in.Today != today {
		t.Errorf("session notes %d, today %q", len(in.Session), in.Today)
	}
}
