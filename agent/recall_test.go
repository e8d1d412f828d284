package agent_test

import (
	"fmt"
	"strings"
	"testing"

	"concierge/agent"
	"concierge/agent/offline"
	"concierge/memory"
	"concierge/models"
	"concierge/models/dbtest"
)

// TestRecallAtTurn35: the traveler names a hotel at turn 2, then 32 turns
// of planning about other cities (hotels, places and getting around come
// up again and again) push it out of the window. At turn 35 each of three
// phrasings of "what was that hotel?" is answered from search_conversation
// with the turn-2 fragment, on SQLite and PostgreSQL.
func TestRecallAtTurn35(t *testing.T) {
	dbtest.Backends(t, func(t *testing.T, db *models.Store) {
		for _, question := range []string{
			"Which hotel did I say I liked?",
			"What was the name of that hotel I mentioned at the start?",
			"Remind me of the place I told you about earlier.",
		} {
			t.Run(question, func(t *testing.T) {
				s, _, sid := seededIn(t, db)
				a := agent.New(agent.DefaultConfig("gpt-4o-mini"), s, offline.New(memory.NewTokenCounter("gpt-4o-mini")), quietLog())
				say := func(text string) *agent.TurnResult {
					t.Helper()
					res, err := a.Turn(ctx, sid, text, nil)
					if err != nil {
						t.Fatalf("%q: %v", text, err)
					}
					return res
				}
				say("We're planning a week in Portugal next spring.")
				say("Last time in Lisbon I loved the Palacio Belmonte, that boutique hotel up by the castle.")
				cities := []string{"Porto", "Madrid", "Seville", "Rome", "Vienna", "Prague", "Berlin", "Oslo"}
				filler := []string{
					"What is the best area to stay in %s?",
					"How do we get around %s without a car?",
					"Are there good places to eat near the station in %s?",
					"Which hotel area in %s is quiet at night?",
				}
				for turn := 3; turn <= 34; turn++ {
					say(fmt.Sprintf(filler[turn%len(filler)], cities[turn%len(cities)]))
				}
				res := say(question)
				if !strings.Contains(res.Reply, "Palacio Belmonte") || !strings.Contains(res.Reply, "turn 2") {
					t.Errorf("turn 35 %q answered %q, want the turn-2 hotel with its turn", question, res.Reply)
				}
			})
		}
	})
}
