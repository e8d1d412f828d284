package handlers_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"concierge/agent/openai"
	"concierge/agent/openai/fakeopenai"
	"concierge/models"
	"concierge/models/dbtest"
)

// longChatModel is a scripted model for long conversations: it asks
// search_conversation when the traveler refers back to something and the
// tool is offered, answers from the tool's result, answers the summary's
// structured calls, and otherwise says a short line.
type longChatModel struct {
	mu        sync.Mutex
	offered   []bool   // per chat request: was search_conversation offered
	results   []string // tool results it was given
	summaries int
}

func (m *longChatModel) handle(r fakeopenai.ChatRequest) fakeopenai.Response {
	m.mu.Lock()
	defer m.mu.Unlock()
	if r.ResponseFormat != nil {
		m.summaries++
		return fakeopenai.Response{Content: `{"identity":["Plans a trip to Paris."],"safety":[],"decisions":[],"open_questions":[]}`}
	}
	offered := false
	for _, t := range r.Tools {
		offered = offered || t.Function.Name == "search_conversation"
	}
	m.offered = append(m.offered, offered)
	last := r.Messages[len(r.Messages)-1]
	switch {
	case last.Role == "tool":
		m.results = append(m.results, last.Content)
		return fakeopenai.Response{Content: "Earlier you said: " + last.Content}
	case offered && strings.Contains(last.Content, "earlier"):
		return fakeopenai.Response{ToolCalls: []fakeopenai.ToolCall{{Function: fakeopenai.FunctionCall{Name: "search_conversation", Arguments: `{"query":"hotel liked"}`}}}}
	}
	return fakeopenai.Response{Content: "Noted; here are two options with their trade-offs."}
}

// TestLongConversationSearch follows a 35-turn conversation: a hotel the
// traveler liked at turn 2 is long out of the window at turn 35, when
// "which hotel did I say I liked earlier?" makes the model call
// search_conversation, whose result holds the turn-2 message — and nothing
// from another traveler's conversation with the same words.
func TestLongConversationSearch(t *testing.T) {
	t.Parallel()
	dbtest.Backends(t, func(t *testing.T, s *models.Store) {
		fake := fakeopenai.New(t)
		model := &longChatModel{}
		fake.Handler(model.handle)
		e := newEnvWith(t, envOptions{store: s, provider: openai.New(openai.Config{BaseURL: fake.URL(), APIKey: "k", Model: "m", MaxRetries: openai.NoRetries})})
		john, priya := e.token("john@example.com"), e.token("priya@example.com")

		other := e.openSession(priya)
		e.say(priya, other, "I liked the Hotel Bristol, the hotel I liked most.")
		e.say(priya, other, "Which hotel did I say I liked earlier?")

		model.mu.Lock()
		model.offered, model.results = nil, nil
		model.mu.Unlock()
		id := e.openSession(john)
		e.say(john, id, "I'm planning a week in Paris in May.")
		e.say(john, id, "I liked the Hotel Lutetia in Saint-Germain best.")
		for i := 3; i <= 34; i++ {
			e.say(john, id, fmt.Sprintf("Question %d: what else is there to see near the river?", i))
		}
		out := e.say(john, id, "Which hotel did I say I liked earlier?")

		model.mu.Lock()
		defer model.mu.Unlock()
		for i, offered := range model.offered[:8] {
			if offered {
				t.Errorf("search_conversation offered at turn %d, before anything was trimmed", i+1)
			}
		}
		if len(model.results) != 1 {
			t.Fatalf("the model got %d search results, want 1", len(model.results))
		}
		res := model.results[0]
		if !strings.Contains(res, "Hotel Lutetia") || !strings.Contains(res, `"turn":2`) {
			t.Errorf("search result lacks the turn-2 fragment: %s", res)
		}
		if strings.Contains(res, "Bristol") {
			t.Errorf("search result holds another traveler's conversation: %s", res)
		}
		if reply, _ := out["reply"].(string); !strings.Contains(reply, "Lutetia") {
			t.Errorf("reply = %q, want the hotel's name", reply)
		}
		// The summary is a structured call made when the break-even rule
		// says so, then only every few turns: never on every turn.
		if model.summaries == 0 || model.summaries > 35/4+1 {
			t.Errorf("%d summary calls over 35 turns, want a few", model.summaries)
		}
		cs, err := s.ChatSessionByID(context.Background(), id)
		if err != nil || !strings.Contains(cs.Summary, "Paris") {
			t.Errorf("stored summary = %q, %v", cs.Summary, err)
		}
	})
}
