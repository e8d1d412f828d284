package guard

import (
	"embed"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"sort"
	"strings"
	"sync"
	"unicode/utf8"

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
	// Language is the language's name in English, for the message that
	// names the languages the guard reads.
	Language    string              `yaml:"language"`
	Lists       map[string][]string `yaml:"lists"`
	Instruction []string            `yaml:"instruction"`
	DOB         []string            `yaml:"dob"`
	Address     []string            `yaml:"address"`
	// Numbers are the words for the digits (0–9), read as digits when
	// four or more stand in a row.
	Numbers map[string]int `yaml:"numbers"`
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

// rule is one compiled pattern with what a text must hold for it to have a
// chance: for each list the pattern needs, a word starting with one of the
// list's words.
type rule struct {
	re      *regexp.Regexp
	anchors []*anchors
}

// anchors is a set of words one of which must start a word of a text for a
// check to have a chance (see screen.mayContain). A nil set gates nothing.
type anchors struct {
	id    int // its bit in what anchorIndex.present returns
	words []string
	index *anchorIndex
}

// anchorIndex holds every anchor set of a rule set by word, so a text's
// words are looked up once for all of them: a few map lookups per word
// instead of a search per anchor word (there are about a thousand).
type anchorIndex struct {
	sets    int
	byWord  map[string][]int // anchor word → the sets that hold it
	longest int              // bytes of the longest anchor word
	// lens holds, by first byte, a bit for each length of the anchor
	// words starting with it (bit 63: 63 bytes or more), so a prefix of
	// a length no anchor word has is not looked up.
	lens [256]uint64
}

// mayBe reports whether an anchor word could be w[:k].
func (ix *anchorIndex) mayBe(w string, k int) bool {
	return ix.lens[w[0]]&(1<<min(k, 63)) != 0
}

// add makes a set of words; nil words make a nil set, which gates nothing.
func (ix *anchorIndex) add(words []string) *anchors {
	if words == nil {
		return nil
	}
	a := &anchors{id: ix.sets, words: words, index: ix}
	ix.sets++
	for _, w := range words {
		if ids := ix.byWord[w]; len(ids) == 0 || ids[len(ids)-1] != a.id {
			ix.byWord[w] = append(ids, a.id)
		}
		ix.longest = max(ix.longest, len(w))
		if w != "" {
			ix.lens[w[0]] |= 1 << min(len(w), 63)
		}
	}
	return a
}

// present returns, as a bit set by id, the sets one of whose words starts
// a word of lower.
func (ix *anchorIndex) present(lower string) []uint64 {
	bits := make([]uint64, (ix.sets+63)/64)
	for i := 0; i < len(lower); {
		if !isGateByte(lower[i]) {
			i++
			continue
		}
		j := i
		for j < len(lower) && isGateByte(lower[j]) {
			j++
		}
		for k := i + 1; k <= min(j, i+ix.longest); k++ {
			if !ix.mayBe(lower[i:], k-i) {
				continue
			}
			for _, id := range ix.byWord[lower[i:k]] {
				bits[id/64] |= 1 << (id % 64)
			}
		}
		i = j
	}
	return bits
}

// startsWith reports whether word starts with a word of the set id.
func (ix *anchorIndex) startsWith(word string, id int) bool {
	for k := 1; k <= min(len(word), ix.longest); k++ {
		if !ix.mayBe(word, k) {
			continue
		}
		for _, got := range ix.byWord[word[:k]] {
			if got == id {
				return true
			}
		}
	}
	return false
}

func (r *rule) match(sc *screen) bool {
	for _, a := range r.anchors {
		if !sc.mayContain(a) {
			return false
		}
	}
	return r.re.MatchString(sc.lower)
}

// matchAny reports whether any rule matches.
func matchAny(rules []rule, sc *screen) bool {
	for i := range rules {
		if rules[i].match(sc) {
			return true
		}
	}
	return false
}

func isGateByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c >= utf8.RuneSelf
}

// mayContain reports whether some word of the text starts with one of
// the set's words (a nil set: yes). It is the cheap necessary condition
// that spares the regular expressions on ordinary notes: the text's words
// are looked up in the index once, on first use, for every set at once.
func (sc *screen) mayContain(a *anchors) bool {
	if a == nil {
		return true
	}
	if sc.present == nil || sc.presentIn != a.index {
		sc.present, sc.presentIn = a.index.present(sc.lower), a.index
	}
	return sc.present[a.id/64]&(1<<(a.id%64)) != 0
}

// ruleSet is every language file compiled.
type ruleSet struct {
	instruction, dob, address []rule
	// context finds the words that name a sensitive category, by list name
	// (ctx_booking, birth…); group 1 is the word.
	context map[string]*regexp.Regexp
	// contextASCII are the same for a screening form that is all ASCII:
	// the entries of Latin-script languages only, a smaller expression.
	contextASCII map[string]*regexp.Regexp
	// contextAt and contextAtASCII are the same anchored at the start of
	// the text, for a word an anchor word has pointed to (contextWords).
	contextAt, contextAtASCII map[string]*regexp.Regexp
	// anchors are the words each list's entries start with (see mayContain).
	anchors map[string]*anchors
	// roleMarkRe finds role markers ("system:", "«assistant»", "[user]").
	roleMarkRe *regexp.Regexp
	// emailObfRe finds "name at host dot com" in every language's words.
	emailObfRe *regexp.Regexp
	// emailAtRe finds "name at host.com": group 1 is the name.
	emailAtRe *regexp.Regexp
	// secretAssignRe finds, at the start of the text, a password word
	// assigned a value; secretAssignASCII is it for a screening form that
	// is all ASCII.
	secretAssignRe, secretAssignASCII *regexp.Regexp
	// secretAttachedRe finds a secret word glued to its digits ("otp482913").
	secretAttachedRe *regexp.Regexp
	// fillers are the words a dictated number's groups may be joined by
	// ("and", "puis", "和"), folded, longest first.
	fillers []string
	// numbers maps each folded digit word of every language to its digit;
	// numberLens holds, by first byte, the lengths they have, and
	// numberLongest is the longest, so most words are turned away without
	// a lookup.
	numbers       map[string]byte
	numberLens    [256]uint64 // by first byte, a bit for each length in bytes of a number word
	numberLongest int
	// languages are the names of the languages the files cover.
	languages []string
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

// Warm compiles the language files' rules, which are otherwise built on
// first use (a few hundred milliseconds of CPU); see memory.Warm.
func Warm() { guardRules() }

// contextLists are the lists the value checks look up around numbers.
var contextLists = []string{"ctx_secret", "ctx_password", "ctx_booking", "ctx_locator", "ctx_passport", "ctx_ssn", "ctx_account", "ctx_phone", "ctx_email", "birth"}

// loadRules reads and compiles every lang/*.yaml file of fsys.
func loadRules(fsys fs.FS) (*ruleSet, error) {
	names, err := fs.Glob(fsys, "lang/*.yaml")
	if err != nil {
		return nil, fmt.Errorf("guard languages: %w", err)
	}
	sort.Strings(names)
	lists := map[string][]string{}
	numbers := map[string]byte{}
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
		for w, d := range lf.Numbers {
			f := plainFold(w)
			if d < 0 || d > 9 || f == "" {
				return nil, fmt.Errorf("guard language %s: number word %q: want one word for a digit 0-9", path.Base(name), w)
			}
			if old, ok := numbers[f]; ok && old != byte('0'+d) {
				return nil, fmt.Errorf("guard language %s: number word %q means %c in another file", path.Base(name), w, old)
			}
			numbers[f] = byte('0' + d)
		}
		files = append(files, lf)
	}
	c := &compiler{lists: lists, expanded: map[string]string{}, index: &anchorIndex{byWord: map[string][]int{}}}
	rs := &ruleSet{numbers: numbers, context: map[string]*regexp.Regexp{}, contextASCII: map[string]*regexp.Regexp{}, contextAt: map[string]*regexp.Regexp{}, contextAtASCII: map[string]*regexp.Regexp{}, anchors: map[string]*anchors{}}
	for w := range numbers {
		if len(w) < 64 {
			rs.numberLens[w[0]] |= 1 << len(w)
			rs.numberLongest = max(rs.numberLongest, len(w))
		}
	}
	for _, f := range lists["filler"] {
		// A filler of a word-free script is folded apart ("还 有"), as the text is.
		if w := strings.ReplaceAll(strings.TrimSpace(foldPattern(strings.TrimSpace(f))), `\x20`, " "); w != "" && !strings.Contains(w, `\`) {
			rs.fillers = append(rs.fillers, w)
		}
	}
	sort.SliceStable(rs.fillers, func(i, j int) bool { return len(rs.fillers[i]) > len(rs.fillers[j]) })
	for _, lf := range files {
		if lf.Language == "" {
			return nil, fmt.Errorf("guard languages: a file without language:")
		}
		rs.languages = append(rs.languages, lf.Language)
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
		for _, ascii := range []bool{false, true} {
			alt, err := c.listOf(name, ascii)
			if err != nil {
				return nil, err
			}
			re, err := regexp.Compile(wordStartRe + "(" + alt + ")" + wordEndRe)
			if err != nil {
				return nil, fmt.Errorf("guard list %s: %w", name, err)
			}
			at, err := regexp.Compile(`^(` + alt + ")" + wordEndRe)
			if err != nil {
				return nil, fmt.Errorf("guard list %s: %w", name, err)
			}
			if ascii {
				rs.contextASCII[name], rs.contextAtASCII[name] = re, at
			} else {
				rs.context[name], rs.contextAt[name] = re, at
			}
		}
	}
	for _, name := range []string{"ctx_secret", "ctx_password", "ctx_booking", "ctx_locator", "ctx_passport", "ctx_ssn", "ctx_account", "ctx_phone", "ctx_email", "birth"} {
		rs.anchors[name] = c.index.add(c.anchorsOf(name))
	}
	for _, name := range []string{"at", "dot"} {
		// The bare words; the bracketed forms are gated on the brackets.
		var words []string
		for _, it := range lists[name] {
			if w := firstWords(entry(it)); w != nil && !strings.ContainsAny(it, `[({`) {
				words = append(words, w...)
			}
		}
		rs.anchors[name] = c.index.add(words)
	}
	rs.anchors["thousand"] = c.index.add(c.anchorsOf("thousand"))
	if secret, password := c.anchorsOf("ctx_secret"), c.anchorsOf("ctx_password"); secret != nil && password != nil {
		rs.anchors["secret_any"] = c.index.add(append(secret, password...))
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
	if rs.emailAtRe, err = compile("half-obfuscated e-mail", `(?:^|[^\pL\pN])([a-z0-9._%+-]+)(?:`+at+`)[a-z0-9-]+(?:\.[a-z0-9-]+)*\.[a-z]{2,6}`+wordEndRe); err != nil {
		return nil, err
	}
	if rs.emailObfRe, err = compile("obfuscated e-mail", `(?:^|[^\pL\pN])[a-z0-9._%+-]+(?:`+at+`)[a-z0-9-]+(?:(?:`+dot+`|\.)[a-z0-9-]+)*(?:`+dot+`)[a-z]{2,6}`+wordEndRe); err != nil {
		return nil, err
	}
	for _, ascii := range []bool{false, true} {
		var pw, assign, of string
		for name, into := range map[string]*string{"ctx_password": &pw, "assign": &assign, "of": &of} {
			if *into, err = c.listOf(name, ascii); err != nil {
				return nil, err
			}
		}
		// "password is x", "password: x", and with what it opens between:
		// "the password for my bank account is x", "mot de passe du compte est x".
		owner := `(?:\s+(?:` + of + `|for|to|vom|zum|zur|para|per|pour)(?:\s+[\pL\pN'’-]+){1,3})?`
		// Anchored: it is tried where a password word starts (hasSecretWords).
		// A quoted value needs no assignment word: "пароль «Ромашка»", "パスワード「さくら」".
		re, err := compile("secret assignment", `^(?:`+pw+`)`+owner+`(?:\s*(?:`+assign+`|=|:|—|–)\s*["'«]?[^\s"'»]{3,}|(?:\s*(?:`+assign+`|=|:|—|–))?\s*["«“„「『][^"»”“」』]{3,}["»”“」』])`)
		if err != nil {
			return nil, err
		}
		if ascii {
			rs.secretAssignASCII = re
		} else {
			rs.secretAssignRe = re
		}
	}
	pw, err := c.list("ctx_password")
	if err != nil {
		return nil, err
	}
	sec, err := c.list("ctx_secret")
	if err != nil {
		return nil, err
	}
	if rs.secretAttachedRe, err = compile("attached secret", `^(?:`+sec+`|`+pw+`)[:#=-]?\d{3,}$`); err != nil {
		return nil, err
	}
	return rs, nil
}

// ctx returns the context expression of a list for sc: the smaller ASCII
// one when sc's screening form is ASCII.
func (rs *ruleSet) ctx(sc *screen, list string) *regexp.Regexp {
	if sc.ascii {
		return rs.contextASCII[list]
	}
	return rs.context[list]
}
