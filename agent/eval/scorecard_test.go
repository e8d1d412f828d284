package eval_test

import (
	"testing"

	"concierge/agent/eval"
)

// TestOfflineScorecard holds the offline model's scorecard to thresholds, so
// a regression anywhere in the memory pipeline (extraction, guardrails,
// injection, consolidation) fails CI. The thresholds sit just under what the
// pipeline scores today; the reasons are in the comments. Raise them when
// the pipeline gets better, never lower them to get green.
func TestOfflineScorecard(t *testing.T) {
	c := runOffline(t, eval.StrategyRelevance)
	for _, f := range c.Failures {
		t.Logf("failed check: %s", f)
	}
	atLeast := func(name string, got, min float64) {
		t.Helper()
		if got < min {
			t.Errorf("%s = %.3f, want at least %.3f", name, got, min)
		}
	}
	atMost := func(name string, got, max float64) {
		t.Helper()
		if got > max {
			t.Errorf("%s = %.3f, want at most %.3f", name, got, max)
		}
	}
	// Nothing the traveler did not state may become a note, and nothing
	// sensitive or instruction-like may reach memory: these are the
	// product's promises, so they have no slack.
	atMost("consolidation.invented", float64(c.Consolidation.Invented), 0)
	atLeast("guardrails.blocked_rate", c.Guardrails.BlockedRate, 1)
	atMost("guardrails.false_blocks", float64(c.Guardrails.FalseBlocks), 0)
	atMost("consolidation.duplicates_left", float64(c.Consolidation.DuplicatesLeft), 0)
	// The offline model's extraction is rule-based and scores 1.0 on all
	// three today: a saved note nobody asked for is a product bug, so
	// precision keeps no slack; recall and scope may lose one of the ~35
	// expected notes to a rule change before CI says so.
	atLeast("distillation.precision", c.Distillation.Precision, 1)
	atLeast("distillation.recall", c.Distillation.Recall, 0.97)
	atLeast("distillation.scope_accuracy", c.Distillation.ScopeAccuracy, 0.97)
	// Six conflict scenarios and three recency probes: each one lost is a
	// drop of 17–33 points, so these hold at 1.0.
	atLeast("consolidation.conflicts_resolved", c.Consolidation.ConflictsResolved, 1)
	atLeast("injection.recency_correct", c.Injection.RecencyCorrect, 1)
	// One of the three over-influence probes fails today: asked for a
	// steakhouse, the vegetarian traveler is offered generic places. The
	// eval is right to flag it; the bound keeps it from getting worse.
	atMost("injection.over_influence", c.Injection.OverInfluence, 0.34)
	// The mean position of the first personalised reply is 4.14 messages
	// today (the probes' own positions: every probe passes at its first
	// chance); a probe that starts failing adds its scenario's length.
	atMost("time_to_personalization_turns", c.TimeToPersonalizationTurns, 4.2)
	if c.Injection.TokensPerTurn <= 0 {
		t.Errorf("tokens_per_turn = %v, want a measured figure", c.Injection.TokensPerTurn)
	}
}
