package guard

import (
	"fmt"
	"regexp"
	"regexp/syntax"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// compiler expands templates against the merged lists.
type compiler struct {
	lists    map[string][]string
	expanded map[string]string
	index    *anchorIndex // every anchor set the rules gate on
}

// entry folds one list entry and turns its spaces into separators.
func entry(s string) string { return spaces(strings.TrimSpace(foldPattern(strings.TrimSpace(s)))) }

// plainFold folds a plain word of a data file (no pattern syntax) the way
// the screening form folds text; "" when it is not one plain word.
func plainFold(w string) string {
	f := strings.TrimSpace(foldPattern(strings.TrimSpace(w)))
	if f == "" || strings.ContainsAny(f, `\ `) {
		return ""
	}
	return f
}

// spaces turns each run of spaces of a folded pattern into a separator,
// except before a quantifier (" *:" is an optional space, as written).
func spaces(s string) string {
	var b strings.Builder
	inClass := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\\' && i+1 < len(s):
			b.WriteByte(c)
			i++
			b.WriteByte(s[i])
			continue
		case c == '[':
			inClass = true
		case c == ']':
			inClass = false
		case c == ' ' && !inClass:
			for i+1 < len(s) && s[i+1] == ' ' {
				i++
			}
			if i+1 < len(s) && strings.IndexByte("*?+{", s[i+1]) >= 0 {
				b.WriteByte(' ')
				continue
			}
			b.WriteString(sepRe)
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}

// list returns the alternation of a list's entries, longest first.
func (c *compiler) list(name string) (string, error) { return c.listOf(name, false) }

// listOf is list, of the entries that fold to ASCII only when asciiOnly:
// what a note whose screening form is ASCII can match, in a smaller
// expression. A list with no such entry gives an alternation that matches
// nothing.
func (c *compiler) listOf(name string, asciiOnly bool) (string, error) {
	if re, ok := builtins[name]; ok {
		return re, nil
	}
	key := name
	if asciiOnly {
		key += "\x00ascii"
	}
	if alt, ok := c.expanded[key]; ok {
		return alt, nil
	}
	items, ok := c.lists[name]
	if !ok || len(items) == 0 {
		return "", fmt.Errorf("guard: no list %q in the language files", name)
	}
	seen := map[string]bool{}
	parts := []string{}
	for _, it := range items {
		e := entry(it)
		if e == "" || seen[e] || asciiOnly && !isASCII(strings.ReplaceAll(e, `\pL`, "")) {
			continue
		}
		if _, err := regexp.Compile(e); err != nil {
			return "", fmt.Errorf("guard list %s entry %q: %w", name, it, err)
		}
		seen[e] = true
		parts = append(parts, e)
	}
	sort.SliceStable(parts, func(i, j int) bool { return len(parts[i]) > len(parts[j]) })
	if len(parts) == 0 {
		parts = append(parts, `[^\x00-\x{10FFFF}]`)
	}
	alt := "(?:" + strings.Join(parts, "|") + ")"
	c.expanded[key] = alt
	return alt, nil
}

// spaced is the alternation of a list of connector words ("at", "dot"):
// bare words need spaces around them, bracketed ones do not.
func (c *compiler) spaced(name string) string {
	var parts []string
	for _, it := range c.lists[name] {
		e := entry(it)
		if strings.ContainsAny(it, `[({`) || !isASCII(it) && !strings.ContainsAny(e, "abcdefghijklmnopqrstuvwxyz") {
			parts = append(parts, `\s*`+e+`\s*`)
		} else {
			parts = append(parts, `\s+`+e+`\s+`)
		}
	}
	return strings.Join(parts, "|")
}

// anchorsOf returns the words a list's entries start with, or nil when
// one may start otherwise (the rule then always runs).
func (c *compiler) anchorsOf(name string) []string {
	if _, ok := builtins[name]; ok {
		return nil
	}
	var out []string
	for _, it := range c.lists[name] {
		lits := firstWords(entry(it))
		if lits == nil {
			return nil
		}
		out = append(out, lits...)
	}
	return out
}

// firstWords returns words one of which starts a word of any text the
// regular expression e matches — for each alternative, its longest word
// that starts a word — or nil when that cannot be told.
func firstWords(e string) []string {
	re, err := syntax.Parse(e, syntax.Perl)
	if err != nil {
		return nil
	}
	return wordsOf(re.Simplify())
}

// wordsOf is firstWords on a parsed expression.
func wordsOf(re *syntax.Regexp) []string {
	switch re.Op {
	case syntax.OpLiteral:
		if re.Flags&syntax.FoldCase != 0 {
			return nil
		}
		// The longest piece between separators: each starts a word.
		l, best := string(re.Rune), ""
		for i := 0; i < len(l); {
			j := i
			for j < len(l) && isGateByte(l[j]) {
				j++
			}
			if j-i > len(best) {
				best = l[i:j]
			}
			i = j + 1
		}
		if best == "" {
			return nil
		}
		return []string{best}
	case syntax.OpCapture, syntax.OpPlus:
		return wordsOf(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min > 0 {
			return wordsOf(re.Sub[0])
		}
	case syntax.OpAlternate:
		var out []string
		for _, sub := range re.Sub {
			l := wordsOf(sub)
			if l == nil {
				return nil
			}
			out = append(out, l...)
		}
		return out
	case syntax.OpCharClass:
		// A small class ("[её]"): each of its characters.
		var out []string
		for i := 0; i+1 < len(re.Rune); i += 2 {
			if re.Rune[i+1]-re.Rune[i] > 8 {
				return nil
			}
			for r := re.Rune[i]; r <= re.Rune[i+1]; r++ {
				if r < utf8.RuneSelf && !isGateByte(byte(r)) {
					return nil
				}
				out = append(out, string(r))
			}
		}
		return out
	case syntax.OpConcat:
		// The best of the parts that start a word: the first one, and any
		// that follows a run of separators.
		var best []string
		for i, sub := range re.Sub {
			if i > 0 && !isSeparatorRun(re.Sub[i-1]) {
				continue
			}
			if w := wordsOf(sub); w != nil && (best == nil || shortest(w) > shortest(best)) {
				best = w
			}
		}
		return best
	}
	return nil
}

// isSeparatorRun reports whether re is a repeated class that matches no
// letter: the separators between two words of a template.
func isSeparatorRun(re *syntax.Regexp) bool {
	if (re.Op != syntax.OpPlus && re.Op != syntax.OpRepeat) || re.Sub[0].Op != syntax.OpCharClass || re.Op == syntax.OpRepeat && re.Min == 0 {
		return false
	}
	cls := re.Sub[0].Rune
	for i := 0; i+1 < len(cls); i += 2 {
		if cls[i] <= 'a' && 'a' <= cls[i+1] {
			return false
		}
	}
	return true
}

func shortest(ws []string) int {
	n := -1
	for _, w := range ws {
		if n < 0 || len(w) < n {
			n = len(w)
		}
	}
	return n
}

// rule compiles one template.
func (c *compiler) rule(tpl string) (rule, error) {
	var b strings.Builder
	body := tpl
	start := wordStartRe
	if strings.HasPrefix(body, "^") {
		start, body = clauseStarRe, body[1:]
	}
	var gates []*anchors
	depth := 0 // open groups: a list inside one may be skipped, so it gates nothing
	for len(body) > 0 {
		switch {
		case strings.HasPrefix(body, "{~"):
			end := strings.IndexByte(body, '}')
			n, err := strconv.Atoi(body[2:max(end, 2)])
			if end < 0 || err != nil {
				return rule{}, fmt.Errorf("guard template %q: bad gap", tpl)
			}
			fmt.Fprintf(&b, "(?:%s%s){0,%d}", sepRe, wordRe, n)
			body = body[end+1:]
		case strings.HasPrefix(body, "{") && strings.IndexByte(body, '}') > 1 && isListName(body[1:strings.IndexByte(body, '}')]):
			end := strings.IndexByte(body, '}')
			name := body[1:end]
			alt, err := c.list(name)
			if err != nil {
				return rule{}, fmt.Errorf("guard template %q: %w", tpl, err)
			}
			if a := c.anchorsOf(name); a != nil && depth == 0 {
				gates = append(gates, c.index.add(a))
			}
			b.WriteString(alt)
			body = body[end+1:]
		default:
			// A literal run up to the next list or gap.
			next := len(body)
			for i := 1; i < len(body); i++ {
				if body[i] == '{' && (strings.HasPrefix(body[i:], "{~") || isListName(body[i+1:max(i+1, strings.IndexByte(body[i:], '}')+i)])) {
					next = i
					break
				}
			}
			lit := body[:next]
			a := firstWords(spaces(foldPattern(lit)))
			if a == nil {
				// A part that opens a group ("role *: *(?:") does not parse
				// alone: its leading word, if it stands on its own.
				w := 0
				for w < len(lit) && isGateByte(lit[w]) {
					w++
				}
				if w > 0 && w < len(lit) && (lit[w] == ' ' || lit[w] == '"') {
					a = []string{lit[:w]}
				}
			}
			if a != nil && depth == 0 {
				gates = append(gates, c.index.add(a))
			}
			depth += groupDepth(lit)
			b.WriteString(spaces(foldPattern(lit)))
			body = body[next:]
		}
	}
	re, err := regexp.Compile(start + "(?:" + b.String() + ")" + wordEndRe)
	if err != nil {
		return rule{}, fmt.Errorf("guard template %q: %w", tpl, err)
	}
	return rule{re: re, anchors: gates}, nil
}

// groupDepth returns how many more groups a part of a template opens than
// it closes.
func groupDepth(s string) int {
	d := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '(':
			d++
		case ')':
			d--
		}
	}
	return d
}

// isListName reports whether s names a list: lowercase letters, digits and
// underscores (so "{0,3}" stays a regular-expression quantifier).
func isListName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c == '_' || c >= '0' && c <= '9' && i > 0) {
			return false
		}
	}
	return true
}
