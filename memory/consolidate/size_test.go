package consolidate

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"testing"

	"concierge/memory"
	"concierge/memory/memorytest"
)

// recordingCompleter answers with what answer computes from the request and
// records the request.
type recordingCompleter struct {
	answer func(memory.JSONRequest) string
	req    memory.JSONRequest
	raw    string
}

func (r *recordingCompleter) CompleteJSON(_ context.Context, req memory.JSONRequest) (string, error) {
	r.req = req
	r.raw = r.answer(req)
	return r.raw, nil
}

// travelerGlobal makes n global notes of a long-standing traveler: John's
// five, then notes on a dozen topics, each about a different city.
func travelerGlobal(n int) []memory.Note {
	topics := []struct {
		text     string
		keywords []string
	}{
		{"Likes boutique hotels with a gym in %s.", []string{"hotel", "gym"}},
		{"Prefers morning departures from %s.", []string{"departure"}},
		{"Avoids layovers in %s.", []string{"layover"}},
		{"Takes the train between %s and nearby cities.", []string{"train"}},
		{"Rents an automatic car in %s.", []string{"car"}},
		{"Likes street food tours in %s.", []string{"food", "tour"}},
		{"Books late checkout when staying in %s.", []string{"checkout"}},
		{"Likes museums with audio guides in %s.", []string{"museum"}},
		{"Prefers a taxi from the airport in %s.", []string{"taxi", "airport"}},
		{"Visits friends when in %s.", []string{"friends"}},
		{"Likes rooftop bars in %s.", []string{"nightlife"}},
		{"Prefers apartments over hotels for long stays in %s.", []string{"apartment"}},
	}
	cities := []string{"Lisbon", "Porto", "Madrid", "Seville", "Paris", "Lyon", "Rome", "Milan", "Vienna", "Prague",
		"Berlin", "Munich", "Oslo", "Athens", "Tokyo", "Osaka", "Seoul", "Lima", "Quito", "Denver"}
	out := memorytest.JohnGlobal()
	for i := 0; len(out) < n; i++ {
		tp := topics[i%len(topics)]
		city := cities[(i/len(topics))%len(cities)]
		if i >= len(topics)*len(cities) {
			city = fmt.Sprintf("%s district %d", city, i)
		}
		out = append(out, memory.Note{
			ID: fmt.Sprintf("t%03d", i), Text: fmt.Sprintf(tp.text, city), Keywords: tp.keywords, Scope: memory.ScopeDurable,
			LastUpdateDate: fmt.Sprintf("20%02d-%02d-%02d", 21+i%5, 1+i%12, 1+i%28), Pinned: i == 7, Source: memory.SourceSeed,
		})
	}
	return out[:n]
}

// typicalSession is what a traveler says in one planning conversation.
func typicalSession(today string) []memory.Note {
	return []memory.Note{
		{ID: "s1", Text: "Prefers window seats.", Keywords: []string{"seat", "flight"}, Scope: memory.ScopeDurable, LastUpdateDate: today},
		{ID: "s2", Text: "Is vegetarian.", Keywords: []string{"diet"}, Scope: memory.ScopeDurable, LastUpdateDate: today},
		{ID: "s3", Text: "Wants a late flight on this trip.", Keywords: []string{"flight"}, Scope: memory.ScopeThisTrip, LastUpdateDate: today},
		{ID: "s4", Text: "Likes staying in central walkable neighbourhoods.", Keywords: []string{"hotel", "neighbourhood"}, Scope: memory.ScopeDurable, LastUpdateDate: today},
		{ID: "s5", Text: "Travels with a small dog.", Keywords: []string{"pet"}, Scope: memory.ScopeDurable, LastUpdateDate: today},
	}
}

// TestConsolidationRequestSize logs the tokens (gpt-4o-mini) a model
// consolidation costs, the request (system, user and schema) and a complete
// correct answer, for a typical session into 10, 100 and 200 global notes,
// and checks that they follow the session rather than the whole memory.
// On the engine that rewrote the whole list they were 1233/674, 4565/4546
// and 8259/8798 tokens.
func TestConsolidationRequestSize(t *testing.T) {
	counter := memory.NewTokenCounter("gpt-4o-mini")
	today := "2026-11-21"
	t.Logf("%-12s %14s %26s %15s %11s", "global notes", "request tokens", "(system + schema + notes)", "response tokens", "notes shown")
	var reqs, resps []int
	for _, n := range []int{10, 100, 200} {
		global, session := travelerGlobal(n), typicalSession(today)
		opt := Options{Today: today}
		rec := &recordingCompleter{answer: func(memory.JSONRequest) string { return rulesAsDecisions(global, session, opt) }}
		r := WithModel(context.Background(), rec, global, session, opt)
		if r.Engine != EngineModel || r.FallbackReason != "" {
			t.Fatalf("%d notes: engine %s (%s)", n, r.Engine, r.FallbackReason)
		}
		want := ByRules(global, session, opt)
		if got, want := memorytest.NoteTexts(r.Global), memorytest.NoteTexts(want.Global); !slices.Equal(got, want) {
			t.Errorf("%d notes: the model engine built %q, the rules %q", n, got, want)
		}
		shown := shownIDs(t, rec.req.User)
		if limit := maxRelatedPerNote*len(session) + maxPinnedContext; len(shown) > limit {
			t.Errorf("%d notes: %d global notes shown, want at most %d", n, len(shown), limit)
		}
		schema, _ := json.Marshal(rec.req.Schema)
		sys, sch, user := counter.Count(rec.req.System), counter.Count(string(schema)), counter.Count(rec.req.User)
		reqs, resps = append(reqs, sys+sch+user), append(resps, counter.Count(rec.raw))
		t.Logf("%-12d %14d %26s %15d %11d", n, sys+sch+user, fmt.Sprintf("(%d + %d + %d)", sys, sch, user), resps[len(resps)-1], len(shown))
	}
	// From 100 to 200 notes only the choice of related notes changes.
	if reqs[2] > reqs[1]*5/4 || resps[2] > resps[0]*2 {
		t.Errorf("sizes grow with the memory: requests %v, responses %v", reqs, resps)
	}
}

// shownIDs lists the global note ids a consolidation request shows.
func shownIDs(t *testing.T, user string) []string {
	t.Helper()
	var in struct {
		Related []memory.Note `json:"related_global_notes"`
		Pinned  []memory.Note `json:"pinned_notes"`
	}
	if err := json.Unmarshal([]byte(user), &in); err != nil {
		t.Fatalf("request is not the expected JSON: %v", err)
	}
	var ids []string
	for _, n := range append(in.Related, in.Pinned...) {
		ids = append(ids, n.ID)
	}
	return ids
}

// rulesAsDecisions answers a consolidation request with the decisions the
// rules engine makes, written as a model would.
func rulesAsDecisions(global, session []memory.Note, opt Options) string {
	r := ByRules(global, session, opt)
	supersedes := map[string]string{} // session note → the global note it beat
	for _, d := range r.Decisions {
		if d.Action == ActionSuperseded && !slices.ContainsFunc(session, func(n memory.Note) bool { return n.ID == d.Note.ID }) {
			supersedes[d.Into] = d.Note.ID
		}
	}
	var ds []map[string]any
	for _, d := range r.Decisions {
		if !slices.ContainsFunc(session, func(n memory.Note) bool { return n.ID == d.Note.ID }) {
			continue
		}
		m := map[string]any{"note": d.Note.ID, "into": nil, "text": nil, "keywords": nil, "why": d.Why}
		switch d.Action {
		case ActionPromoted:
			m["action"] = modelPromote
			if g, ok := supersedes[d.Note.ID]; ok {
				m["action"], m["into"] = modelSupersede, g
			}
		case ActionMerged:
			m["action"], m["into"] = modelMerge, d.Into
		case ActionDroppedDuplicate:
			m["action"], m["into"] = modelDropDuplicate, d.Into
		case ActionDroppedTrip:
			m["action"] = modelDropTrip
		default:
			m["action"] = modelRefuse
		}
		ds = append(ds, m)
	}
	b, _ := json.Marshal(map[string]any{"decisions": ds})
	return string(b)
}
