package browsertest

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/chromedp/chromedp"
)

// axeSource is axe-core's minified build (npm axe-core, MPL-2.0; its licence
// header is kept at the top of the file), see testdata/README.md.
//
//go:embed testdata/axe.min.js
var axeSource string

// AxeViolation is one rule axe-core found broken on a page, with where.
type AxeViolation struct {
	ID      string   `json:"id"`
	Impact  string   `json:"impact"`
	Help    string   `json:"help"`
	Targets []string `json:"targets"`
}

func (v AxeViolation) String() string {
	return fmt.Sprintf("%s (%s): %s at %s", v.ID, v.Impact, v.Help, strings.Join(v.Targets, ", "))
}

// axeRun runs the WCAG 2.2 A and AA rules (and the 2.0/2.1 ones they
// include) on the whole document and keeps up to five targets per rule.
const axeRun = `(async () => {
  const r = await axe.run(document, {runOnly: {type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"]}, resultTypes: ["violations"]});
  return JSON.stringify(r.violations.map(v => ({id: v.id, impact: v.impact || "", help: v.help,
    targets: v.nodes.slice(0, 5).map(n => n.target.join(" "))})));
})()`

// Axe injects axe-core into the current page (once per document) and
// returns the WCAG 2.2 AA violations it finds there.
func Axe(ctx context.Context) ([]AxeViolation, error) {
	loaded, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`typeof window.axe === "object"`))
	if err != nil {
		return nil, err
	}
	if !loaded {
		if _, err := chromedp.Run(ctx, chromedp.Evaluate[chromedp.Void](axeSource)); err != nil {
			return nil, fmt.Errorf("load axe-core: %w", err)
		}
	}
	out, err := chromedp.Run(ctx, chromedp.Evaluate[string](axeRun, chromedp.EvalAwaitPromise))
	if err != nil {
		return nil, fmt.Errorf("run axe-core: %w", err)
	}
	var vs []AxeViolation
	if err := json.Unmarshal([]byte(out), &vs); err != nil {
		return nil, fmt.Errorf("read axe-core's answer: %w", err)
	}
	return vs, nil
}

// Serious keeps the violations whose impact is serious or critical.
func Serious(vs []AxeViolation) []AxeViolation {
	var out []AxeViolation
	for _, v := range vs {
		if v.Impact == "serious" || v.Impact == "critical" {
			out = append(out, v)
		}
	}
	return out
}
