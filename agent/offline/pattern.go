package offline

import (
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
	"unicode/utf8"
)

// pattern is a compiled pattern of the table that knows some words every
// match must contain. Most patterns do not match most texts, and finding
// that none of those words is there (strings.Contains) is many times
// cheaper than running the expression. When one of them is there, or the
// pattern has no such words, the expression decides, so a pattern answers
// exactly as its regexp does.
//
// Two more checks sharpen it. A match contains a match of every part of a
// sequence ("prefer" and an airline's name) and of one branch of an
// alternative, so the literals of all parts and branches make a condition
// (cond), checked when the set lets a text through. A pattern
// anchored at the start of the text has literals one of which every match
// begins with (prefix), and the text must begin with one: "so" is in most
// clauses, but few begin with it.
type pattern struct {
	*regexp.Regexp
	need   []literal // every match contains one of these; empty: no such set
	cond   *cond     // and every match meets this; nil: nothing more to tell
	prefix []literal // every match, at the start of the text, begins with one of these; empty: no such set
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
		tree = tree.Simplify()
		p.need = required(tree)
		p.prefix = anchoredPrefix(tree)
		if c := condOf(tree); c != nil && c.size() <= maxCond && !(c.op == 's' && slices.Equal(c.lits, p.need)) {
			p.cond = c
		}
	}
	return p, nil
}

// cond is a condition every match puts on the text: it contains one of
// lits (a set), or all (and) or one (or) of subs hold.
type cond struct {
	op   byte // 's', '&' or '|'
	lits []literal
	subs []*cond
}

// maxCond caps how many literals a condition checks: each costs a scan.
const maxCond = 256

// condOf returns the condition every match of re puts on the text, or nil
// when there is none to tell. Unlike required it keeps every part of a
// sequence (a match contains a match of each), each branch of an
// alternative, and small character classes.
func condOf(re *syntax.Regexp) *cond {
	switch re.Op {
	case syntax.OpLiteral:
		if lits := required(re); lits != nil {
			return &cond{op: 's', lits: lits}
		}
	case syntax.OpCharClass:
		var lits []literal
		for i := 0; i+1 < len(re.Rune); i += 2 {
			if re.Rune[i+1]-re.Rune[i] >= 8 || len(lits) > 8 || re.Rune[i] <= utf8.RuneError && utf8.RuneError <= re.Rune[i+1] {
				return nil // large, or an invalid byte of the input matches it
			}
			for r := re.Rune[i]; r <= re.Rune[i+1]; r++ {
				lits = append(lits, literal{text: string(r)})
			}
		}
		if len(lits) > 0 && len(lits) <= 8 {
			return &cond{op: 's', lits: lits}
		}
	case syntax.OpCapture, syntax.OpPlus:
		return condOf(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return condOf(re.Sub[0])
		}
	case syntax.OpConcat:
		var subs []*cond
		for _, sub := range re.Sub {
			if c := condOf(sub); c != nil {
				subs = append(subs, c)
			}
		}
		switch len(subs) {
		case 0:
			return nil
		case 1:
			return subs[0]
		}
		return &cond{op: '&', subs: subs}
	case syntax.OpAlternate:
		or := &cond{op: '|'}
		merged := &cond{op: 's'} // the branches that are sets make one set
		for _, sub := range re.Sub {
			c := condOf(sub)
			switch {
			case c == nil:
				return nil
			case c.op == 's':
				merged.lits = append(merged.lits, c.lits...)
			default:
				or.subs = append(or.subs, c)
			}
		}
		if len(or.subs) == 0 {
			return merged
		}
		if len(merged.lits) > 0 {
			or.subs = append(or.subs, merged)
		}
		return or
	}
	return nil
}

func (c *cond) size() int {
	n := len(c.lits)
	for _, sub := range c.subs {
		n += sub.size()
	}
	return n
}

// holds evaluates the condition on a text.
func (c *cond) holds(f *folded) bool {
	switch c.op {
	case 's':
		return f.any(c.lits, strings.Contains)
	case '&':
		for _, sub := range c.subs {
			if !sub.holds(f) {
				return false
			}
		}
		return true
	}
	for _, sub := range c.subs {
		if sub.holds(f) {
			return true
		}
	}
	return false
}

// anchoredPrefix returns, for a pattern that begins with ^ (the start of
// the text, not of a line), literals one of which every match begins with,
// or nil when it cannot tell.
func anchoredPrefix(re *syntax.Regexp) []literal {
	for re.Op == syntax.OpCapture {
		re = re.Sub[0]
	}
	if re.Op != syntax.OpConcat || len(re.Sub) < 2 || re.Sub[0].Op != syntax.OpBeginText {
		return nil
	}
	return firsts(re.Sub[1:])
}

// maxFirsts caps how many prefixes firsts spells out.
const maxFirsts = 64

// firsts returns literals one of which every match of the sequence seq
// begins with, or nil when it cannot tell (a match may be empty, or begin
// with something that is no literal).
func firsts(seq []*syntax.Regexp) []literal {
	if len(seq) == 0 {
		return nil
	}
	x, rest := seq[0], seq[1:]
	with := func(subs ...*syntax.Regexp) []*syntax.Regexp { return append(subs, rest...) }
	switch x.Op {
	case syntax.OpWordBoundary, syntax.OpNoWordBoundary, syntax.OpEmptyMatch:
		return firsts(rest) // they consume nothing
	case syntax.OpCapture:
		return firsts(with(x.Sub[0]))
	case syntax.OpConcat:
		return firsts(with(x.Sub...))
	case syntax.OpAlternate:
		var all []literal
		for _, alt := range x.Sub {
			lits := firsts(with(alt))
			if lits == nil || len(all)+len(lits) > maxFirsts {
				return nil
			}
			all = append(all, lits...)
		}
		return all
	case syntax.OpQuest:
		a := firsts(with(x.Sub[0]))
		if a == nil || len(a) > maxFirsts {
			return nil // the rest is not read: a run of optional parts would read it once per choice
		}
		b := firsts(rest)
		if b == nil || len(a)+len(b) > maxFirsts {
			return nil
		}
		return append(a, b...)
	case syntax.OpPlus:
		return firsts([]*syntax.Regexp{x.Sub[0]}) // the first time round begins the match
	case syntax.OpLiteral:
		head := required(x)
		if head == nil {
			return nil
		}
		// Spell out what follows, while it is literals and the list stays short.
		tails := firsts(rest)
		if tails == nil || len(tails) > maxFirsts {
			return head
		}
		var out []literal
		for _, tl := range tails {
			l := literal{text: head[0].text + tl.text, fold: head[0].fold || tl.fold}
			if l.fold {
				if !isASCII(head[0].text) || !isASCII(tl.text) {
					return head
				}
				l.text = strings.ToLower(l.text)
			}
			out = append(out, l)
		}
		return out
	}
	return nil
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
	if len(p.need) == 0 && len(p.prefix) == 0 && p.cond == nil {
		return true
	}
	c := folded{s: s}
	if len(p.need) > 0 && !c.any(p.need, strings.Contains) {
		return false
	}
	if p.cond != nil && !p.cond.holds(&c) {
		return false
	}
	return len(p.prefix) == 0 || c.any(p.prefix, strings.HasPrefix)
}

// folded is a text under the literal checks, lower-cased once if a check
// needs it.
type folded struct {
	s, lower     string
	ascii, known bool // known: ascii and lower are worked out
}

// any reports whether in(text, literal) holds for one of lits, or the
// check cannot tell (a literal matched ignoring case, a text not ASCII).
func (c *folded) any(lits []literal, in func(s, lit string) bool) bool {
	for _, l := range lits {
		if !l.fold {
			if in(c.s, l.text) {
				return true
			}
			continue
		}
		if !c.known {
			c.ascii, c.known = isASCII(c.s), true
			if c.ascii {
				c.lower = strings.ToLower(c.s)
			}
		}
		if !c.ascii || in(c.lower, l.text) {
			return true
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
