package agent_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"concierge/agent"
	"concierge/agent/offline"
	"concierge/memory"
	"concierge/memory/longchat"
)

// TestSixtyTurnSummary plays a 60-turn conversation with the offline
// model: the summary of the turns that left the window is written once the
// break-even rule says it pays, rewritten only every few turns after, and
// the prompt stays flat (turn 60 costs at most 10% more than turn 40).
func TestSixtyTurnSummary(t *testing.T) {
	s, _, sid := seeded(t)
	a := agent.New(agent.DefaultConfig("gpt-4o-mini"), s, offline.New(memory.NewTokenCounter("gpt-4o-mini")), quietLog())
	lines := []string{
		"We are two adults travelling with a toddler.",
		"What is the best area to stay in Lisbon with a small child?",
		"Let's go with the Alfama apartment you suggested.",
		"My daughter is allergic to peanuts, so please keep that in mind for restaurants.",
		"How far is the beach from the city centre?",
		"Can we rent a car seat with the rental car?",
	}
	tokens := map[int]int{}
	var writes []int
	through := 0
	for turn := 1; turn <= 60; turn++ {
		res, err := a.Turn(ctx, sid, fmt.Sprintf("%s (message %d)", lines[turn%len(lines)], turn), nil)
		if err != nil {
			t.Fatalf("turn %d: %v", turn, err)
		}
		tokens[turn] = res.Usage.PromptTokens
		if err := a.WaitBackground(ctx); err != nil { // the summary is written after the answer
			t.Fatal(err)
		}
		cs, err := s.ChatSessionByID(ctx, sid)
		if err != nil {
			t.Fatal(err)
		}
		if cs.SummaryThrough != through {
			writes = append(writes, turn)
			through = cs.SummaryThrough
		}
	}
	t.Logf("summary written after turns %v; prompt tokens at turn 10 %d, 40 %d, 60 %d", writes, tokens[10], tokens[40], tokens[60])
	if len(writes) == 0 {
		t.Fatal("no summary was written in 60 turns")
	}
	if writes[0] <= longchat.DefaultMaxUserTurns {
		t.Errorf("first summary after turn %d, before anything left the window", writes[0])
	}
	for i := 1; i < len(writes); i++ {
		if writes[i]-writes[i-1] < longchat.SummaryRefreshTurns {
			t.Errorf("summary rewritten after turns %d and %d: more often than every %d turns", writes[i-1], writes[i], longchat.SummaryRefreshTurns)
		}
	}
	if len(writes) < 2 {
		t.Errorf("summary never updated after turn %d", writes[0])
	}
	if float64(tokens[60]) > 1.1*float64(tokens[40]) {
		t.Errorf("prompt tokens grew from %d at turn 40 to %d at turn 60 (> 10%%)", tokens[40], tokens[60])
	}
	cs, _ := s.ChatSessionByID(ctx, sid)
	if cs.Summary == "" || cs.SummaryTokens == 0 || cs.SummaryTokens > longchat.MaxSummaryTokens {
		t.Errorf("summary %q with %d tokens", cs.Summary, cs.SummaryTokens)
	}
	t.Logf("summary (%d tokens):\n%s", cs.SummaryTokens, cs.Summary)
}

// slowSummaries answers chat calls at once and holds every summary call
// until released.
type slowSummaries struct {
	scripted
	started chan struct{}
	release chan struct{}
}

func (m *slowSummaries) CompleteJSON(ctx context.Context, _ memory.JSONRequest) (string, error) {
	m.started <- struct{}{}
	select {
	case <-m.release:
	case <-ctx.Done():
		return "", ctx.Err()
	}
	return `{"identity":["Plans a family trip to Lisbon."],"safety":[],"decisions":[],"open_questions":[]}`, nil
}

// TestSummaryDoesNotHoldTheAnswer: the summary's model call runs after the
// turn's answer is returned and its lease given back, so neither the
// traveler nor the session's next message waits for it.
func TestSummaryDoesNotHoldTheAnswer(t *testing.T) {
	s, _, sid := seeded(t)
	model := &slowSummaries{started: make(chan struct{}, 1), release: make(chan struct{})}
	a := agent.New(agent.DefaultConfig("gpt-4o-mini"), s, model, quietLog())
	// within answers one message, failing if it waits for a held summary.
	within := func(text string) {
		t.Helper()
		done := make(chan error, 1)
		go func() {
			_, err := a.Turn(ctx, sid, text, nil)
			done <- err
		}()
		select {
		case err := <-done:
			if err != nil {
				t.Fatal(err)
			}
		case <-time.After(5 * time.Second):
			t.Fatal("the answer waited for the summary's model call")
		}
	}
	summarising := false
	for turn := 1; turn <= 40 && !summarising; turn++ {
		within(fmt.Sprintf("Tell me more about Lisbon neighbourhoods, part %d of our plan.", turn))
		select {
		case <-model.started:
			summarising = true
		case <-time.After(200 * time.Millisecond):
		}
	}
	if !summarising {
		t.Fatal("no summary was started in 40 turns")
	}
	// The summary call is still held; the next message is answered meanwhile.
	within("And what about day trips?")
	close(model.release)
	if err := a.WaitBackground(ctx); err != nil {
		t.Fatal(err)
	}
	cs, err := s.ChatSessionByID(ctx, sid)
	if err != nil || !strings.Contains(cs.Summary, "Lisbon") {
		t.Errorf("summary after release = %q, %v", cs.Summary, err)
	}
}
