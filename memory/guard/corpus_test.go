package guard

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"testing"
)

// corpusCase is one labelled note of testdata/guard: want is the category
// it must be refused under, "" for a note that must pass.
type corpusCase struct {
	Text     string `json:"text"`
	Want     string `json:"want"`
	Lang     string `json:"lang"`
	Disguise string `json:"disguise"`
}

func readCorpus(t *testing.T, name string) []corpusCase {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "guard", name))
	if err != nil {
		t.Fatalf("open corpus: %v", err)
	}
	defer f.Close()
	var out []corpusCase
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		var c corpusCase
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			t.Fatalf("%s:%d: %v", name, line, err)
		}
		out = append(out, c)
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("read corpus: %v", err)
	}
	return out
}

// corpusScore is what one part of the corpus gave.
type corpusScore struct {
	refuse, refused, sameCategory int
	benign, benignRefused         int
	byCategory                    map[string][2]int // refused, total
}

func scoreCorpus(t *testing.T, name string, cases []corpusCase, verbose bool) corpusScore {
	t.Helper()
	s := corpusScore{byCategory: map[string][2]int{}}
	for _, c := range cases {
		got, blocked := ScreenText(c.Text)
		if c.Want == "" {
			s.benign++
			if blocked {
				s.benignRefused++
				if verbose {
					t.Logf("%s: benign refused as %s: %q", name, got, c.Text)
				}
			}
			continue
		}
		s.refuse++
		bc := s.byCategory[c.Want]
		bc[1]++
		if blocked {
			s.refused++
			bc[0]++
			if got == c.Want {
				s.sameCategory++
			}
		} else if verbose {
			t.Logf("%s: %s let through (%s, %s): %q", name, c.Want, c.Lang, c.Disguise, c.Text)
		}
		s.byCategory[c.Want] = bc
	}
	cats := make([]string, 0, len(s.byCategory))
	for k := range s.byCategory {
		cats = append(cats, k)
	}
	sort.Strings(cats)
	for _, k := range cats {
		v := s.byCategory[k]
		t.Logf("%-8s %-18s recall %3d/%-3d = %5.1f%%", name, k, v[0], v[1], 100*float64(v[0])/float64(v[1]))
	}
	t.Logf("%-8s refused %d/%d = %.1f%% (same category %d); benign refused %d/%d = %.1f%%", name,
		s.refused, s.refuse, 100*float64(s.refused)/float64(s.refuse), s.sameCategory,
		s.benignRefused, s.benign, 100*float64(s.benignRefused)/float64(max(s.benign, 1)))
	return s
}

// TestGuardCorpus scores ScreenText on the labelled corpus: the tuning part
// the rules were adjusted on and the holdout part written first and left
// alone. The thresholds hold on the whole corpus. Set GUARD_CORPUS_VERBOSE=1
// to list the misses of the tuning part (never look at the holdout's
// while tuning).
func TestGuardCorpus(t *testing.T) {
	tuning := readCorpus(t, "tuning.jsonl")
	holdout := readCorpus(t, "holdout.jsonl")
	all := append(append([]corpusCase{}, tuning...), holdout...)
	if len(all) < 300 {
		t.Fatalf("corpus has %d cases, want at least 300", len(all))
	}
	langs := map[string]bool{}
	benign := 0
	for _, c := range all {
		langs[c.Lang] = true
		if c.Want == "" {
			benign++
		}
	}
	if benign < 100 || !langs["en"] || !langs["es"] || !langs["ru"] {
		t.Fatalf("corpus has %d benign cases and languages %v; want at least 100 and en, es, ru", benign, langs)
	}
	verbose := os.Getenv("GUARD_CORPUS_VERBOSE") != ""
	scoreCorpus(t, "tuning", tuning, verbose)
	scoreCorpus(t, "holdout", holdout, verbose && os.Getenv("GUARD_CORPUS_HOLDOUT") != "")
	s := scoreCorpus(t, "all", all, false)
	if s.refused*100 < s.refuse*98 {
		t.Errorf("refused %d of %d refuse cases, want at least 98%%", s.refused, s.refuse)
	}
	if s.benignRefused*100 > s.benign {
		t.Errorf("refused %d of %d benign cases, want at most 1%%", s.benignRefused, s.benign)
	}
}
