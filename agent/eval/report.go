package eval

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
)

// WriteTable prints scorecards side by side (one column per label) with the
// scenario kinds and the failed checks of each.
func WriteTable(w io.Writer, labels []string, cards []Scorecard) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	row := func(name string, f func(Scorecard) string) {
		cells := []string{name}
		for _, c := range cards {
			cells = append(cells, f(c))
		}
		fmt.Fprintln(tw, strings.Join(cells, "\t"))
	}
	fmt.Fprintln(tw, "metric\t"+strings.Join(labels, "\t"))
	pct := func(v float64) string { return fmt.Sprintf("%.1f%%", v*100) }
	row("model", func(c Scorecard) string { return c.Model })
	row("scenarios", func(c Scorecard) string { return fmt.Sprint(c.Scenarios) })
	row("distillation precision", func(c Scorecard) string { return pct(c.Distillation.Precision) })
	row("distillation recall", func(c Scorecard) string { return pct(c.Distillation.Recall) })
	row("scope accuracy", func(c Scorecard) string { return pct(c.Distillation.ScopeAccuracy) })
	row("poison blocked", func(c Scorecard) string { return pct(c.Guardrails.BlockedRate) })
	row("false blocks", func(c Scorecard) string { return fmt.Sprint(c.Guardrails.FalseBlocks) })
	row("duplicates left", func(c Scorecard) string { return fmt.Sprint(c.Consolidation.DuplicatesLeft) })
	row("conflicts resolved", func(c Scorecard) string { return pct(c.Consolidation.ConflictsResolved) })
	row("invented facts", func(c Scorecard) string { return fmt.Sprint(c.Consolidation.Invented) })
	row("recency correct", func(c Scorecard) string { return pct(c.Injection.RecencyCorrect) })
	row("over-influence", func(c Scorecard) string { return pct(c.Injection.OverInfluence) })
	row("prompt tokens / turn", func(c Scorecard) string { return fmt.Sprintf("%.0f", c.Injection.TokensPerTurn) })
	row("time to personalization", func(c Scorecard) string { return fmt.Sprintf("%.2f turns", c.TimeToPersonalizationTurns) })
	hold := func(f func(*HoldoutScore) string) func(Scorecard) string {
		return func(c Scorecard) string {
			if c.Holdout == nil {
				return "-"
			}
			return f(c.Holdout)
		}
	}
	row("holdout precision", hold(func(h *HoldoutScore) string { return pct(h.Precision) }))
	row("holdout recall", hold(func(h *HoldoutScore) string { return pct(h.Recall) }))
	row("holdout scope accuracy", hold(func(h *HoldoutScore) string { return pct(h.ScopeAccuracy) }))
	row("holdout refused saved", hold(func(h *HoldoutScore) string { return fmt.Sprint(h.RefusedSaved) }))
	for _, lang := range HoldoutLanguages {
		row("holdout "+lang+" precision / recall / trip", func(c Scorecard) string {
			h := c.Languages[lang]
			if h == nil {
				return "-"
			}
			return pct(h.Precision) + " / " + pct(h.Recall) + " / " + pct(h.TripAccuracy)
		})
	}
	row("forget correct", func(c Scorecard) string { return pct(c.Forget.Correct) })
	row("correction recap correct", func(c Scorecard) string { return pct(c.Correction.RecapCorrect) })
	row("expiry correct", func(c Scorecard) string { return pct(c.Expiry.Correct) })
	steer := func(f func(*SteerScore) string) func(Scorecard) string {
		return func(c Scorecard) string {
			if c.SteerHoldout == nil {
				return "-"
			}
			return f(c.SteerHoldout)
		}
	}
	row("holdout forget correct", steer(func(h *SteerScore) string { return pct(h.Forget) }))
	row("holdout correction recap", steer(func(h *SteerScore) string { return pct(h.RecapCorrect) }))
	row("holdout expiry correct", steer(func(h *SteerScore) string { return pct(h.Expiry) }))
	for _, kind := range kindsOf(cards) {
		row("checks: "+kind, func(c Scorecard) string {
			k := c.Kinds[kind]
			if k == nil {
				return "-"
			}
			return fmt.Sprintf("%d/%d passed", k.Checks-k.Failed, k.Checks)
		})
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for i, c := range cards {
		if len(c.Failures) == 0 {
			continue
		}
		fmt.Fprintf(w, "\nfailed checks (%s):\n", labels[i])
		for _, f := range c.Failures {
			fmt.Fprintf(w, "  - %s\n", f)
		}
	}
	return nil
}

func kindsOf(cards []Scorecard) []string {
	var kinds []string
	for _, c := range cards {
		for k := range c.Kinds {
			if !slices.Contains(kinds, k) {
				kinds = append(kinds, k)
			}
		}
	}
	slices.Sort(kinds)
	return kinds
}
