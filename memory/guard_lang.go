package memory

import (
	"embed"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"
)

// langFS holds the guard's language data: one file per language, each
// adding words to named lists and sentence shapes to the checks. See
// lang/en.yaml for the format.
//
//go:embed lang/*.yaml
var langFS embed.FS

// langFile is one language data file.
type langFile struct {
	Lists       map[string][]string `yaml:"lists"`
	Instruction []string            `yaml:"instruction"`
	DOB         []string            `yaml:"dob"`
	Address     []string            `yaml:"address"`
}

// The pieces the templates are made of, over the screening form.
const (
	sepRe        = `[^\pL\pN!?;]+`             // a space in a template: separators within a sentence
	wordRe       = `[\pL\pN'’-]+`              // one word of a {~N} gap
	wordStartRe  = `(?:^|[^\pL\pN])`           // a pattern starts on a word
	wordEndRe    = `(?:$|[^\pL\pN])`           // and ends on one
	clauseStarRe = `(?:^|[.!?;:,"'(\[«»‹]\s*)` // ^ at the start of a template
)

// builtins are the lists every language shares.
var builtins = map[string]string{
	"num":      `\d+(?:-\d+)*`,
	"day":      `(?:0?[1-9]|[12]\d|3[01])(?:st|nd|rd|th|er|o)?`,
	"year":     `(?:19|20)\d\d`,
	"housenum": `\d{1,5}[a-z]?(?:-\d{1,4}[a-z]?)?`,
}

// rule is one compiled pattern with the literals one of which a text must
// contain for the pattern to have a chance (nil: always try).
type rule struct {
	re      *regexp.Regexp
	anchors []string
}

func (r *rule) match(lower string) bool {
	if r.anchors != nil {
		found := false
		for _, a := range r.anchors {
			if strings.Contains(lower, a) {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return r.re.MatchString(lower)
}

// matchAny reports whether any rule matches.
func matchAny(rules []rule, lower string) bool {
	for i := range rules {
		if rules[i].match(lower) {
			return true
		}
	}
	return false
}

// ruleSet is every language file compiled.
type ruleSet struct {
	instruction, dob, address []rule
	// context finds the words that name a sensitive category, by list name
	// (ctx_booking, birth…); group 1 is the word.
	context map[string]*regexp.Regexp
	// roleMarkRe finds role markers ("system:", "«assistant»", "[user]").
	roleMarkRe *regexp.Regexp
	// emailObfRe finds "name at host dot com" in every language's words.
	emailObfRe *regexp.Regexp
	// secretAssignRe finds a password word assigned a value.
	secretAssignRe *regexp.Regexp
	// secretAttachedRe finds a secret word glued to its digits ("otp482913").
	secretAttachedRe *regexp.Regexp
}

// guardRules compiles the embedded language files once. They are part of
// the binary and a test compiles them, so an error is a programming error.
var guardRules = sync.OnceValue(func() *ruleSet {
	rs, err := loadRules(langFS)
	if err != nil {
		panic(err)
	}
	return rs
})

// contextLists are the lists the value checks look up around numbers.
var contextLists = []string{"ctx_secret", "ctx_password", "ctx_booking", "ctx_passport", "ctx_ssn", "ctx_account", "ctx_phone", "ctx_email", "birth"}

// loadRules reads and compiles every lang/*.yaml file of fsys.
func loadRules(fsys fs.FS) (*ruleSet, error) {
	names, err := fs.Glob(fsys, "lang/*.yaml")
	if err != nil {
		return nil, fmt.Errorf("guard languages: %w", err)
	}
	sort.Strings(names)
	lists := map[string][]string{}
	var files []langFile
	for _, name := range names {
		raw, err := fs.ReadFile(fsys, name)
		if err != nil {
			return nil, fmt.Errorf("guard language %s: %w", name, err)
		}
		var lf langFile
		dec := yaml.NewDecoder(strings.NewReader(string(raw)))
		dec.KnownFields(true)
		if err := dec.Decode(&lf); err != nil {
			return nil, fmt.Errorf("guard language %s: %w", path.Base(name), err)
		}
		for k, v := range lf.Lists {
			lists[k] = append(lists[k], v...)
		}
		files = append(files, lf)
	}
	c := &compiler{lists: lists, expanded: map[string]string{}}
	rs := &ruleSet{context: map[string]*regexp.Regexp{}}
	for _, lf := range files {
		for _, group := range []struct {
			tpls []string
			into *[]rule
		}{{lf.Instruction, &rs.instruction}, {lf.DOB, &rs.dob}, {lf.Address, &rs.address}} {
			for _, tpl := range group.tpls {
				r, err := c.rule(tpl)
				if err != nil {
					return nil, err
				}
				*group.into = append(*group.into, r)
			}
		}
	}
	for _, name := range contextLists {
		alt, err := c.list(name)
		if err != nil {
			return nil, err
		}
		if rs.context[name], err = regexp.Compile(wordStartRe + "(" + alt + ")" + wordEndRe); err != nil {
			return nil, fmt.Errorf("guard list %s: %w", name, err)
		}
	}
	compile := func(what, re string) (*regexp.Regexp, error) {
		out, err := regexp.Compile(re)
		if err != nil {
			return nil, fmt.Errorf("guard %s: %w", what, err)
		}
		return out, nil
	}
	role, err := c.list("role")
	if err != nil {
		return nil, err
	}
	if rs.roleMarkRe, err = compile("role markers", `(?:^|[^\pL\pN])(`+role+`)\s*:|[\[(<{«‹]\s*(?:`+role+`)\s*[\])>}»›]`); err != nil {
		return nil, err
	}
	at, dot := c.spaced("at"), c.spaced("dot")
	if rs.emailObfRe, err = compile("obfuscated e-mail", `(?:^|[^\pL\pN])[a-z0-9._%+-]+(?:`+at+`)[a-z0-9-]+(?:(?:`+dot+`|\.)[a-z0-9-]+)*(?:`+dot+`)[a-z]{2,6}`+wordEndRe); err != nil {
		return nil, err
	}
	pw, err := c.list("ctx_password")
	if err != nil {
		return nil, err
	}
	assign, err := c.list("assign")
	if err != nil {
		return nil, err
	}
	if rs.secretAssignRe, err = compile("secret assignment", wordStartRe+`(?:`+pw+`)\s*(?:`+assign+`|=|:)\s*["'«]?[^\s"'»]{3,}`); err != nil {
		return nil, err
	}
	sec, err := c.list("ctx_secret")
	if err != nil {
		return nil, err
	}
	if rs.secretAttachedRe, err = compile("attached secret", wordStartRe+`(?:`+sec+`|`+pw+`)[:#=-]?\d{3,}`+wordEndRe); err != nil {
		return nil, err
	}
	return rs, nil
}

// compiler expands templates against the merged lists.
type compiler struct {
	lists    map[string][]string
	expanded map[string]string
}

// entry folds one list entry and turns its spaces into separators.
func entry(s string) string { return spaces(foldPattern(strings.TrimSpace(s))) }

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
func (c *compiler) list(name string) (string, error) {
	if re, ok := builtins[name]; ok {
		return re, nil
	}
	if alt, ok := c.expanded[name]; ok {
		return alt, nil
	}
	items, ok := c.lists[name]
	if !ok || len(items) == 0 {
		return "", fmt.Errorf("guard: no list %q in the language files", name)
	}
	seen := map[string]bool{}
	var parts []string
	for _, it := range items {
		e := entry(it)
		if e == "" || seen[e] {
			continue
		}
		if _, err := regexp.Compile(e); err != nil {
			return "", fmt.Errorf("guard list %s entry %q: %w", name, it, err)
		}
		seen[e] = true
		parts = append(parts, e)
	}
	sort.SliceStable(parts, func(i, j int) bool { return len(parts[i]) > len(parts[j]) })
	alt := "(?:" + strings.Join(parts, "|") + ")"
	c.expanded[name] = alt
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

// anchorsOf returns the literal prefixes of a list's entries, or nil when
// one has none (the rule then always runs).
func (c *compiler) anchorsOf(name string) []string {
	if _, ok := builtins[name]; ok {
		return nil
	}
	var out []string
	for _, it := range c.lists[name] {
		lit := literalPrefix(foldPattern(strings.TrimSpace(it)))
		if lit == "" {
			return nil
		}
		out = append(out, lit)
	}
	return out
}

// literalPrefix is the text an entry starts with before any regular
// expression syntax or space.
func literalPrefix(e string) string {
	for i := 0; i < len(e); i++ {
		if strings.IndexByte(`\.+*?()|[]{}^$ `, e[i]) >= 0 {
			// A quantifier makes the character before it optional.
			if e[i] == '?' || e[i] == '*' || e[i] == '{' {
				if i == 0 {
					return ""
				}
				return e[:i-1]
			}
			return e[:i]
		}
	}
	return e
}

// rule compiles one template.
func (c *compiler) rule(tpl string) (rule, error) {
	var b strings.Builder
	body := tpl
	start := wordStartRe
	if strings.HasPrefix(body, "^") {
		start, body = clauseStarRe, body[1:]
	}
	var anchors []string
	first := true
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
			if first {
				anchors = c.anchorsOf(name)
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
			if first {
				if p := literalPrefix(foldPattern(lit)); p != "" {
					anchors = []string{p}
				}
			}
			b.WriteString(spaces(foldPattern(lit)))
			body = body[next:]
		}
		first = false
	}
	re, err := regexp.Compile(start + "(?:" + b.String() + ")" + wordEndRe)
	if err != nil {
		return rule{}, fmt.Errorf("guard template %q: %w", tpl, err)
	}
	return rule{re: re, anchors: anchors}, nil
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
