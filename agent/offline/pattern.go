package offline

import (
	"regexp"
	"regexp/syntax"
	"strings"
	"unicode/utf8"
)

// pattern is a compiled pattern of the table that knows some words every
// match must contain. Most patterns do not match most texts, and finding
// that none of those words is there (strings.Contains) is many times
// cheaper than running the expression. When one of them is there, or the
// pattern has no such words, the expression decides, so a pattern answers
// exactly as its regexp does.
type pattern struct {
	*regexp.Regexp
	need []literal // every match contains one of these; empty: no such set
}

// literal is a string every match of some branch contains, lower-case and
// ASCII when fold is set (matched ignoring case).
type literal struct {
	text string
	fold bool
}

// compilePattern compiles expr as regexp.Compile does and works out what
// its matches must contain.
func compilePattern(expr string) (*pattern, error) {
	re, err := regexp.Compile(expr)
	if err != nil {
		return nil, err
	}
	p := &pattern{Regexp: re}
	if tree, err := syntax.Parse(expr, syntax.Perl); err == nil {
		p.need = required(tree.Simplify())
	}
	return p, nil
}

func mustPattern(expr string) *pattern {
	p, err := compilePattern(expr)
	if err != nil {
		panic(err)
	}
	return p
}

// required returns literals one of which every match of re contains, or
// nil when it cannot tell. Of a sequence it keeps the part whose shortest
// literal is longest; of alternatives it needs them all.
func required(re *syntax.Regexp) []literal {
	switch re.Op {
	case syntax.OpLiteral:
		fold := re.Flags&syntax.FoldCase != 0
		text := string(re.Rune)
		if fold {
			// Case folding outside ASCII (the Kelvin sign for k, the long s)
			// is left to the expression: an input that is not all ASCII
			// skips the check, and a literal that is not ASCII gives none.
			if !isASCII(text) {
				return nil
			}
			text = strings.ToLower(text)
		}
		if strings.ContainsRune(text, utf8.RuneError) {
			return nil // an invalid byte of the input matches it too
		}
		return []literal{{text: text, fold: fold}}
	case syntax.OpCapture:
		return required(re.Sub[0])
	case syntax.OpPlus:
		return required(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return required(re.Sub[0])
		}
		return nil
	case syntax.OpAlternate:
		var all []literal
		for _, sub := range re.Sub {
			lits := required(sub)
			if lits == nil {
				return nil
			}
			all = append(all, lits...)
		}
		return all
	case syntax.OpConcat:
		var best []literal
		for _, sub := range re.Sub {
			if lits := required(sub); lits != nil && shortest(lits) > shortest(best) {
				best = lits
			}
		}
		return best
	}
	return nil
}

func shortest(lits []literal) int {
	if len(lits) == 0 {
		return 0
	}
	n := len(lits[0].text)
	for _, l := range lits[1:] {
		n = min(n, len(l.text))
	}
	return n
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// mayMatch reports whether s contains one of the literals, or the check
// cannot tell.
func (p *pattern) mayMatch(s string) bool {
	if len(p.need) == 0 {
		return true
	}
	lower, ascii := "", isASCII(s)
	for _, l := range p.need {
		switch {
		case !l.fold:
			if strings.Contains(s, l.text) {
				return true
			}
		case !ascii:
			return true
		default:
			if lower == "" {
				lower = strings.ToLower(s)
			}
			if strings.Contains(lower, l.text) {
				return true
			}
		}
	}
	return false
}

// The methods the engine calls, each answering as the regexp would.

func (p *pattern) MatchString(s string) bool { return p.mayMatch(s) && p.Regexp.MatchString(s) }

func (p *pattern) FindString(s string) string {
	if !p.mayMatch(s) {
		return ""
	}
	return p.Regexp.FindString(s)
}

func (p *pattern) FindStringIndex(s string) []int {
	if !p.mayMatch(s) {
		return nil
	}
	return p.Regexp.FindStringIndex(s)
}

func (p *pattern) FindStringSubmatch(s string) []string {
	if !p.mayMatch(s) {
		return nil
	}
	return p.Regexp.FindStringSubmatch(s)
}

func (p *pattern) FindStringSubmatchIndex(s string) []int {
	if !p.mayMatch(s) {
		return nil
	}
	return p.Regexp.FindStringSubmatchIndex(s)
}

func (p *pattern) FindAllString(s string, n int) []string {
	if !p.mayMatch(s) {
		return nil
	}
	return p.Regexp.FindAllString(s, n)
}

func (p *pattern) FindAllStringSubmatch(s string, n int) [][]string {
	if !p.mayMatch(s) {
		return nil
	}
	return p.Regexp.FindAllStringSubmatch(s, n)
}

func (p *pattern) FindAllStringIndex(s string, n int) [][]int {
	if !p.mayMatch(s) {
		return nil
	}
	return p.Regexp.FindAllStringIndex(s, n)
}

func (p *pattern) ReplaceAllString(src, repl string) string {
	if !p.mayMatch(src) {
		return src
	}
	return p.Regexp.ReplaceAllString(src, repl)
}

func (p *pattern) ReplaceAllStringFunc(src string, repl func(string) string) string {
	if !p.mayMatch(src) {
		return src
	}
	return p.Regexp.ReplaceAllStringFunc(src, repl)
}
