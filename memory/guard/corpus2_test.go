package guard

import (
	"fmt"
	"os"
	"sort"
	"testing"
)

// breakdown counts refusals of one slice of a corpus part.
type breakdown struct{ hostile, hostileRefused, benign, benignRefused int }

func (b breakdown) String() string {
	pct := func(n, d int) float64 {
		if d == 0 {
			return 0
		}
		return 100 * float64(n) / float64(d)
	}
	return fmtBreakdown(b.hostileRefused, b.hostile, pct(b.hostileRefused, b.hostile), b.benignRefused, b.benign, pct(b.benignRefused, b.benign))
}

// scoreBreakdown logs the refusal rates of cases by language and by
// disguise, and returns the overall figures.
func scoreBreakdown(t *testing.T, name string, cases []corpusCase, verbose bool) breakdown {
	t.Helper()
	var all breakdown
	byLang, byDisguise := map[string]breakdown{}, map[string]breakdown{}
	for _, c := range cases {
		_, blocked := ScreenText(c.Text)
		add := func(b breakdown) breakdown {
			if c.Want == "" {
				b.benign++
				if blocked {
					b.benignRefused++
				}
			} else {
				b.hostile++
				if blocked {
					b.hostileRefused++
				}
			}
			return b
		}
		all = add(all)
		byLang[c.Lang] = add(byLang[c.Lang])
		kind := c.Disguise
		if c.Want != "" && (kind == "plain" || kind == "reworded") {
			kind = c.Want // a plain note is counted by what it carries
		}
		byDisguise[kind] = add(byDisguise[kind])
		if verbose && blocked == (c.Want == "") {
			got, _ := ScreenText(c.Text)
			t.Logf("%s miss (%s, %s, want %q, got %q): %q", name, c.Lang, c.Disguise, c.Want, got, c.Text)
		}
	}
	for _, m := range []map[string]breakdown{byLang, byDisguise} {
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			t.Logf("%-11s %-16s %s", name, k, m[k])
		}
	}
	t.Logf("%-11s %-16s %s", name, "ALL", all)
	return all
}

// TestGuardCorpusRound2 scores ScreenText on the second round's corpus:
// nine languages and the disguises of issue 26. holdout-r2 was written
// before the rules it measures and is never edited; tuning-r2 is the part
// the rules were adjusted on, and tuning-r3 the attacks written afresh for
// the third round (Russian, look-alikes and secrets first). GUARD_CORPUS_VERBOSE=1 lists the tuning
// part's misses.
func TestGuardCorpusRound2(t *testing.T) {
	verbose := os.Getenv("GUARD_CORPUS_VERBOSE") != ""
	scoreBreakdown(t, "tuning-r2", readCorpus(t, "tuning-r2.jsonl"), verbose)
	scoreBreakdown(t, "tuning-r3", readCorpus(t, "tuning-r3.jsonl"), verbose)
	h := scoreBreakdown(t, "holdout-r2", readCorpus(t, "holdout-r2.jsonl"), verbose && os.Getenv("GUARD_CORPUS_HOLDOUT") != "")
	if h.hostile < 200 || h.benign < 200 {
		t.Fatalf("holdout-r2 has %d hostile and %d benign cases, want at least 200 of each", h.hostile, h.benign)
	}
	if h.hostileRefused*100 < h.hostile*95 {
		t.Errorf("holdout-r2: refused %d of %d hostile notes, want at least 95%%", h.hostileRefused, h.hostile)
	}
	if h.benignRefused*100 > h.benign {
		t.Errorf("holdout-r2: refused %d of %d benign notes, want at most 1%%", h.benignRefused, h.benign)
	}
}

// TestGuardOtherScripts measures the write path (ScreenTextIn) on notes in
// scripts no language file covers, and on the Chinese benign notes of the
// holdout for comparison: refused as unsupported_language without the model
// layer, left to it with.
func TestGuardOtherScripts(t *testing.T) {
	cases := readCorpus(t, "other-scripts.jsonl")
	for _, c := range readCorpus(t, "holdout-r2.jsonl") {
		if c.Lang == "zh" && c.Want == "" {
			cases = append(cases, c)
		}
	}
	type count struct{ n, refused, unreadable, reviewedRefused int }
	by := map[string]count{}
	for _, c := range cases {
		key := c.Lang + " benign"
		if c.Want != "" {
			key = c.Lang + " hostile"
		}
		k := by[key]
		k.n++
		if cat, blocked := ScreenTextIn(Context{}, c.Text); blocked {
			k.refused++
			if cat == CategoryUnreadable {
				k.unreadable++
			}
		}
		if _, blocked := ScreenTextIn(Context{Reviewed: true}, c.Text); blocked {
			k.reviewedRefused++
		}
		by[key] = k
	}
	keys := make([]string, 0, len(by))
	for k := range by {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		v := by[k]
		t.Logf("%-11s refused %2d/%-2d (unsupported_language %d); with the model layer, rules refuse %d", k, v.refused, v.n, v.unreadable, v.reviewedRefused)
	}
	for _, k := range []string{"ar benign", "hi benign", "ar hostile", "hi hostile", "ko hostile", "th hostile"} {
		if v := by[k]; v.unreadable != v.n {
			t.Errorf("%s: %d of %d refused as %s, want all", k, v.unreadable, v.n, CategoryUnreadable)
		}
	}
	if v := by["zh benign"]; v.refused != 0 {
		t.Errorf("zh benign: %d of %d refused, want none", v.refused, v.n)
	}
}

func fmtBreakdown(hr, h int, hp float64, br, b int, bp float64) string {
	return fmt.Sprintf("hostile refused %3d/%-3d = %5.1f%%   benign refused %3d/%-3d = %5.1f%%", hr, h, hp, br, b, bp)
}
