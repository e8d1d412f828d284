package offline_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strings"
	"testing"

	"concierge/agent"
	"concierge/agent/offline"
	"concierge/memory"
	"concierge/models"
	"concierge/models/dbtest"
)

// TestLongConversationRecallsTheHotel is issue #16's story, in issue #25's
// three phrasings, with the offline model through the real agent and
// store: a hotel named at turn 2 is long out of the window at turn 35,
// after filler about other cities (their hotels and restaurants among it);
// the model calls search_conversation and answers with the turn-2 detail.
func TestLongConversationRecallsTheHotel(t *testing.T) {
	filler := []string{
		"What else should we see in Porto on day %d?",
		"Is there a good restaurant for tapas in Madrid for day %d?",
		"How do we get around Seville on day %d?",
		"Are hotels in Granada expensive around day %d?",
		"What is the weather like in Valencia on day %d?",
	}
	for _, question := range []string{
		"Which hotel did I say I liked?",
		"What was the name of that hotel I mentioned at the start?",
		"Remind me of the place I told you about earlier.",
	} {
		t.Run(question, func(t *testing.T) {
			dbtest.Backends(t, func(t *testing.T, s *models.Store) {
				ctx := context.Background()
				if _, err := s.SeedDemo(ctx, "demo"); err != nil {
					t.Fatal(err)
				}
				priya, err := s.UserByEmail(ctx, "priya@example.com")
				if err != nil {
					t.Fatal(err)
				}
				cs, err := s.CreateChatSession(ctx, priya.ID)
				if err != nil {
					t.Fatal(err)
				}
				log := slog.New(slog.NewTextHandler(io.Discard, nil))
				turns := agent.NewRunner(agent.RunnerConfig{}, agent.New(agent.DefaultConfig("gpt-4o-mini"), s, offline.New(memory.NewTokenCounter("gpt-4o-mini")), log), log)
				say := func(text string) string {
					t.Helper()
					res, err := turns.Send(ctx, agent.Post{SessionID: cs.ID, Content: text})
					if err != nil {
						t.Fatalf("turn %q: %v", text, err)
					}
					return res.Reply
				}
				say("We're planning a week in Lisbon in May.")
				say("I liked the Casa Amora hotel near Alfama, something like it would be great.")
				for i := 3; i < 35; i++ {
					say(fmt.Sprintf(filler[i%len(filler)], i))
				}
				reply := say(question)
				if !strings.Contains(reply, "Casa Amora") || !strings.Contains(reply, "turn 2") {
					t.Errorf("turn 35 reply %q, want the hotel named at turn 2", reply)
				}
				msgs, err := s.Messages(ctx, cs.ID)
				if err != nil {
					t.Fatal(err)
				}
				searched := slices.ContainsFunc(msgs, func(m models.Message) bool {
					return m.Turn == 35 && strings.Contains(m.ToolCalls, memory.SearchToolName)
				})
				if !searched {
					t.Errorf("turn 35 answered without search_conversation: the detail was out of the window")
				}
			})
		})
	}
}
