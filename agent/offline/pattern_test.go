package offline

import (
	"fmt"
	"regexp/syntax"
	"slices"
	"strings"
	"testing"
)

func TestRequiredLiterals(t *testing.T) {
	cases := []struct {
		expr string
		want []literal // nil: no set, the expression always runs
	}{
		{`\bvegans?\b`, []literal{{"vegan", false}}},
		{`\bhalal\b|\bkosher\b`, []literal{{"halal", false}, {"kosher", false}}},
		{`(?i)hotel|room`, []literal{{"hotel", true}, {"room", true}}},
		{`\b(?:vegetarian|veggie)s?\b`, []literal{{"veg", false}}}, // the parser factors out "veg"; "etarian|gie" is no longer
		{`\ballergic to (?P<items>[a-z ,&'-]+)`, []literal{{"allergic to ", false}}},
		{`\b(?i:from)\s+([A-Z]\w+)`, []literal{{"from", true}}},
		{`(?:a|b)?c?`, nil},                                // nothing is required
		{`\bhalal\b|[0-9]+`, nil},                          // one branch needs no word
		{`(?i)\x{212A}elvin`, []literal{{"kelvin", true}}}, // folds to ASCII k; an input with the sign is not ASCII
		{`(?i)café au lait`, nil},                          // folding outside ASCII is the expression's
		{`\d+ nights`, []literal{{" nights", false}}},
	}
	for _, c := range cases {
		tree, err := syntax.Parse(c.expr, syntax.Perl)
		if err != nil {
			t.Fatalf("%s: %v", c.expr, err)
		}
		if got := required(tree.Simplify()); !slices.Equal(got, c.want) {
			t.Errorf("required(%s) = %v, want %v", c.expr, got, c.want)
		}
	}
}

// TestPatternsAnswerAsTheirRegexps runs every pattern of the table over the
// training corpus, a conversation, and texts made to trip a literal check
// (upper case, case folding outside ASCII, invalid UTF-8), and wants the
// pattern's answer to be the regexp's, method by method.
func TestPatternsAnswerAsTheirRegexps(t *testing.T) {
	texts := []string{
		"I'm ALLERGIC TO PEANUTS and Shellfish.", "HOTEL near the Beach, King room please",
		"\u017Feat by the window",          // the long s folds to s under (?i)
		"a \u212Aing bed and a quiet room", // the Kelvin sign folds to k
		"vegan \xff\xfe meals", "Flying from Paris to Lisbon on 3rd March for 4 nights, €200 a night",
		"", "?", "I, me and my wife.", "remember: I never eat pork",
	}
	for i, it := range loadCorpus(t, "labelled/corpus.json") {
		texts = append(texts, it.Text)
		if i%4 == 0 { // and some in other cases, as the engine lower-cases
			texts = append(texts, strings.ToLower(it.Text), strings.ToUpper(it.Text))
		}
	}
	texts = append(texts, goa...)
	tb := model.table
	all := map[string]*pattern{} // the place finder "near" is one of tb.re
	for k, p := range tb.re {
		all[k] = p
	}
	for _, r := range tb.rules {
		all["rule "+r.Pattern] = r.re
		if r.context != nil {
			all["context "+r.Context] = r.context
		}
		if r.unless != nil {
			all["unless "+r.Unless] = r.unless
		}
	}
	for lang, vc := range tb.voices {
		for _, tp := range vc.topics {
			all[lang+" topic "+tp.Name] = tp.re
			if tp.uses != nil {
				all[lang+" uses "+tp.Name] = tp.uses
			}
		}
		for k, p := range vc.is {
			all[lang+" intent "+k] = p
		}
	}
	for _, p := range tb.requests {
		all["request "+p.String()] = p
	}
	withLiterals, spared := 0, 0
	for name, p := range all {
		if p == nil {
			continue
		}
		if len(p.need) > 0 {
			withLiterals++
		}
		// A pattern answers as its regexp unless the check spares a text
		// the expression matches: that is the one way to be wrong.
		for _, s := range texts {
			if !p.mayMatch(s) {
				spared++
				if p.Regexp.MatchString(s) {
					t.Errorf("%s: the literal check spared %q, which the expression matches", name, s)
				}
			}
		}
	}
	// The check is only worth having if it spares most runs: a change that
	// lost the literals would pass the comparison above.
	if withLiterals < len(all)*2/3 {
		t.Errorf("%d of %d patterns have required literals; want most", withLiterals, len(all))
	}
	t.Logf("%d patterns, %d with literals; %d of %d runs spared", len(all), withLiterals, spared, len(all)*len(texts))
}

// TestPatternMethods checks that each method the engine calls answers as
// the regexp's, on a text the check lets through and on one it spares.
func TestPatternMethods(t *testing.T) {
	p := mustPattern(`(?P<n>\d+) (?i:nights)\b`)
	for _, s := range []string{"4 NIGHTS and 2 nights", "a week away"} {
		if got, want := p.MatchString(s), p.Regexp.MatchString(s); got != want {
			t.Errorf("MatchString(%q) = %v, regexp %v", s, got, want)
		}
		if got, want := p.FindString(s), p.Regexp.FindString(s); got != want {
			t.Errorf("FindString(%q) = %q, regexp %q", s, got, want)
		}
		if got, want := p.FindStringIndex(s), p.Regexp.FindStringIndex(s); !slices.Equal(got, want) {
			t.Errorf("FindStringIndex(%q) = %v, regexp %v", s, got, want)
		}
		if got, want := p.FindStringSubmatch(s), p.Regexp.FindStringSubmatch(s); !slices.Equal(got, want) {
			t.Errorf("FindStringSubmatch(%q) = %v, regexp %v", s, got, want)
		}
		if got, want := p.FindStringSubmatchIndex(s), p.Regexp.FindStringSubmatchIndex(s); !slices.Equal(got, want) {
			t.Errorf("FindStringSubmatchIndex(%q) = %v, regexp %v", s, got, want)
		}
		if got, want := p.FindAllString(s, -1), p.Regexp.FindAllString(s, -1); !slices.Equal(got, want) {
			t.Errorf("FindAllString(%q) = %v, regexp %v", s, got, want)
		}
		if got, want := p.FindAllStringSubmatch(s, -1), p.Regexp.FindAllStringSubmatch(s, -1); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("FindAllStringSubmatch(%q) = %v, regexp %v", s, got, want)
		}
		if got, want := p.FindAllStringIndex(s, -1), p.Regexp.FindAllStringIndex(s, -1); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("FindAllStringIndex(%q) = %v, regexp %v", s, got, want)
		}
		if got, want := p.ReplaceAllString(s, "<$n>"), p.Regexp.ReplaceAllString(s, "<$n>"); got != want {
			t.Errorf("ReplaceAllString(%q) = %q, regexp %q", s, got, want)
		}
		if got, want := p.ReplaceAllStringFunc(s, strings.ToUpper), p.Regexp.ReplaceAllStringFunc(s, strings.ToUpper); got != want {
			t.Errorf("ReplaceAllStringFunc(%q) = %q, regexp %q", s, got, want)
		}
	}
	if p.mayMatch("a week away") {
		t.Error("the check let through a text without the word nights")
	}
}
