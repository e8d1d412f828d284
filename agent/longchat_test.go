package agent_test

import (
	"fmt"
	"testing"

	"concierge/agent"
	"concierge/agent/offline"
	"concierge/memory"
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
	if writes[0] <= memory.DefaultMaxUserTurns {
		t.Errorf("first summary after turn %d, before anything left the window", writes[0])
	}
	for i := 1; i < len(writes); i++ {
		if writes[i]-writes[i-1] < memory.SummaryRefreshTurns {
			t.Errorf("summary rewritten after turns %d and %d: more often than every %d turns", writes[i-1], writes[i], memory.SummaryRefreshTurns)
		}
	}
	if len(writes) < 2 {
		t.Errorf("summary never updated after turn %d", writes[0])
	}
	if float64(tokens[60]) > 1.1*float64(tokens[40]) {
		t.Errorf("prompt tokens grew from %d at turn 40 to %d at turn 60 (> 10%%)", tokens[40], tokens[60])
	}
	cs, _ := s.ChatSessionByID(ctx, sid)
	if cs.Summary == "" || cs.SummaryTokens == 0 || cs.SummaryTokens > memory.MaxSummaryTokens {
		t.Errorf("summary %q with %d tokens", cs.Summary, cs.SummaryTokens)
	}
	t.Logf("summary (%d tokens):\n%s", cs.SummaryTokens, cs.Summary)
}
