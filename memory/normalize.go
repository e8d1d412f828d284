package memory

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"go.mau.fi/util/confusable"
	"golang.org/x/text/unicode/norm"
)

// The guard's normaliser. Every check reads text through it, and so does
// Neutralize, so a disguise that fools one cannot fool the other:
//
//  1. NFKC folds compatibility forms (full-width ＜ and ＠, mathematical
//     digits, ligatures, Roman numerals);
//  2. NFD then drops combining marks, so accents and stacked diacritics
//     ("códígo", "i̇gnore") do not split a word;
//  3. format characters (Unicode category Cf: zero-width spaces and
//     joiners, soft hyphens, bidi controls) are removed and every other
//     space or control becomes one space;
//  4. every decimal digit of any script (category Nd) becomes its ASCII
//     digit, before any look-alike folding (Arabic-Indic ١ is also a
//     look-alike of l);
//  5. other characters are folded to their Unicode TS #39 skeleton (the
//     confusables table, through go.mau.fi/util/confusable) when the
//     skeleton is ASCII, so Cyrillic "ѕуѕtеm" reads "system" and ˂ ‹ ᐸ read
//     "<"; letters only fold onto letters, so a Russian "б" never becomes a
//     "6"; the angle-bracket prototypes ❬ ❭ fold onto < >;
//  6. the result is lower case, and a run of separators between two digits
//     ("4111 - 1111", "17.05.1990", "+7 (495) 123") becomes one "-", so a
//     number reads as one run however it is written.
//
// The screening form is for matching only; what is stored is the text the
// traveler wrote, and only when its screening form passes.

// Normalize returns the screening form of s (see the steps above). The data
// files' patterns go through the same folding, so "игнорируй" in ru.yaml
// matches the same word typed with Latin look-alikes.
func Normalize(s string) string {
	_, lower := normalizeForms(s)
	return lower
}

// normalizeForms returns the screening form twice: with the case of ASCII
// letters kept (for shapes where case matters: base64, record locators)
// and lowered. Both have the same length and byte offsets.
func normalizeForms(s string) (cased, lower string) {
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	ascii := true
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	if !ascii {
		s = norm.NFD.String(norm.NFKC.String(s))
	}
	cb := make([]byte, 0, len(s)+8)
	lb := make([]byte, 0, len(s)+8)
	space := true // drops leading spaces
	emit := func(str string, keepCase bool) {
		for i := 0; i < len(str); i++ {
			c := str[i]
			if c == ' ' {
				if space {
					continue
				}
				space = true
			} else {
				space = false
			}
			l := c
			if c >= 'A' && c <= 'Z' {
				l = c + 'a' - 'A'
			}
			if !keepCase {
				c = l
			}
			cb = append(cb, c)
			lb = append(lb, l)
		}
	}
	for _, r := range s {
		switch {
		case r < utf8.RuneSelf:
			if r < 0x20 || r == 0x7F {
				r = ' '
			}
			emit(string(r), true)
		case unicode.Is(unicode.Cf, r), unicode.Is(unicode.Mn, r), unicode.Is(unicode.Me, r):
			// invisible: dropped
		case unicode.IsSpace(r), unicode.Is(unicode.Zs, r), unicode.IsControl(r):
			emit(" ", false)
		case unicode.Is(unicode.Nd, r):
			emit(string(rune('0'+digitValue(r))), false)
		default:
			emit(foldRune(r), false)
		}
	}
	for len(cb) > 0 && cb[len(cb)-1] == ' ' {
		cb, lb = cb[:len(cb)-1], lb[:len(lb)-1]
	}
	return string(joinDigitRuns(cb)), string(joinDigitRuns(lb))
}

// digitValue is the value of a decimal digit of any script. Unicode
// allocates every Nd digit in a contiguous run from zero to nine (a
// stability policy), so the value is the offset from the start of the
// range modulo ten.
func digitValue(r rune) int {
	for _, rg := range unicode.Nd.R16 {
		if r >= rune(rg.Lo) && r <= rune(rg.Hi) {
			return int(r-rune(rg.Lo)) % 10
		}
	}
	for _, rg := range unicode.Nd.R32 {
		if r >= rune(rg.Lo) && r <= rune(rg.Hi) {
			return int(r-rune(rg.Lo)) % 10
		}
	}
	return 0
}

// foldRune folds one non-ASCII character for screening: its TS #39
// skeleton when that is ASCII (trying its lower case, itself, then its
// upper case, so both cases of a letter fold alike), else the character in
// lower case.
func foldRune(r rune) string {
	l, u := unicode.ToLower(r), unicode.ToUpper(r)
	// Lower case first: capital І looks like l, small і like i.
	for _, probe := range []rune{l, r, u} {
		if s, ok := asciiSkeleton(probe, r); ok {
			return s
		}
	}
	return string(l)
}

// asciiSkeleton returns the skeleton of probe when it is an acceptable ASCII
// stand-in for orig: letters fold onto letters only (and onto < > when the
// table says so); modifier letters and symbols onto any ASCII but digits.
// The angle-bracket prototypes ❬ ❭ count as < >.
func asciiSkeleton(probe, orig rune) (string, bool) {
	rep := confusable.GetReplacement(probe)
	proto := false // mapped to the ❬ ❭ prototypes rather than to < >
	switch rep {
	case "":
		return "", false
	case "❬":
		rep, proto = "<", true
	case "❭":
		rep, proto = ">", true
	}
	letter := unicode.IsLetter(orig) && !unicode.Is(unicode.Lm, orig)
	if rep == "<" || rep == ">" {
		// Letters the table maps straight to a bracket count (Canadian
		// syllabics ᐸ ᐳ); letters it maps to ❬ ❭ do not (hiragana く).
		return rep, !(letter && proto)
	}
	if !isASCII(rep) {
		// "b̄" and the like: the base letter, once the mark is gone.
		rep = stripMarks(rep)
		if !isASCII(rep) || rep == "" {
			return "", false
		}
	}
	for i := 0; i < len(rep); i++ {
		c := rep[i]
		isLetter := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
		if letter && !isLetter || c >= '0' && c <= '9' {
			return "", false
		}
	}
	return strings.ToLower(rep), true
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

func stripMarks(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.Is(unicode.Mn, r) {
			return -1
		}
		return r
	}, norm.NFD.String(s))
}

// isDigitSep reports whether c may separate the groups of one number.
func isDigitSep(c byte) bool {
	switch c {
	case ' ', '-', '.', '/', '_', '(', ')', '*', '\'', '~', '|', '\\':
		return true
	}
	return false
}

// joinDigitRuns rewrites, in place, every run of one to three separators
// between two digits as one "-". The two forms of normalizeForms stay
// aligned because they differ in letter case only.
func joinDigitRuns(b []byte) []byte {
	w := 0
	for i := 0; i < len(b); i++ {
		c := b[i]
		if c >= '0' && c <= '9' && i+1 < len(b) && isDigitSep(b[i+1]) {
			j := i + 1
			for j < len(b) && j-i-1 < 4 && isDigitSep(b[j]) {
				j++
			}
			if j < len(b) && j-i-1 <= 3 && b[j] >= '0' && b[j] <= '9' {
				b[w] = c
				b[w+1] = '-'
				w += 2
				i = j - 1
				continue
			}
		}
		b[w] = c
		w++
	}
	return b[:w]
}

// foldPattern passes the non-ASCII parts of a data-file pattern through the
// normaliser's folding (NFKC, marks dropped, look-alikes folded, lower
// case), leaving ASCII — the regular-expression syntax — as written.
func foldPattern(p string) string {
	if isASCII(p) {
		return p
	}
	p = norm.NFD.String(norm.NFKC.String(p))
	var b strings.Builder
	for _, r := range p {
		switch {
		case r < utf8.RuneSelf:
			b.WriteRune(r)
		case unicode.Is(unicode.Cf, r), unicode.Is(unicode.Mn, r), unicode.Is(unicode.Me, r):
		case unicode.Is(unicode.Nd, r):
			b.WriteByte(byte('0' + digitValue(r)))
		default:
			b.WriteString(regexp.QuoteMeta(foldRune(r)))
		}
	}
	return b.String()
}

// Neutralize's rewrites, read on a rune-aligned folded copy of the text so
// look-alike letters and dashes are caught too.
var (
	neutralDashRe  = regexp.MustCompile(`-{3,}|[\x{2014}\x{2015}]{2,}`)
	neutralFenceRe = regexp.MustCompile("`{3,}|~{3,}|#{3,}|={3,}|\\|{2,}|\\[/?inst\\]|‹‹\\s*/?sys\\s*››")
)

// neutralize is the body of Neutralize for text that is not plain ASCII
// prose: see Neutralize for what it guarantees.
func neutralize(s string) string {
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	s = norm.NFKC.String(s)
	out := make([]rune, 0, len(s))
	folded := make([]rune, 0, len(s)) // one rune per rune of out
	space := true
	for _, r := range s {
		if unicode.Is(unicode.Cf, r) {
			continue
		}
		if r < 0x20 || r == 0x7F || unicode.IsSpace(r) || unicode.IsControl(r) {
			if space {
				continue
			}
			space = true
			out, folded = append(out, ' '), append(folded, ' ')
			continue
		}
		space = false
		f := r
		switch {
		case r < utf8.RuneSelf:
			f = unicode.ToLower(r)
		case unicode.Is(unicode.Nd, r):
			f = rune('0' + digitValue(r))
		default:
			if fs := foldRune(r); utf8.RuneCountInString(fs) == 1 {
				f, _ = utf8.DecodeRuneInString(fs)
			} else {
				f = unicode.ToLower(r)
			}
		}
		switch f {
		case '<':
			r, f = '‹', '‹'
		case '>':
			r, f = '›', '›'
		}
		out, folded = append(out, r), append(folded, f)
	}
	for len(out) > 0 && out[len(out)-1] == ' ' {
		out, folded = out[:len(out)-1], folded[:len(folded)-1]
	}
	type edit struct {
		from, to int // rune indexes into out
		with     string
	}
	var edits []edit
	fs := string(folded)
	// idx maps the byte offset of a rune of fs (matches start and end on
	// rune boundaries) to its index in out.
	idx := make([]int, len(fs)+1)
	n := 0
	for i := range fs {
		idx[i] = n
		n++
	}
	idx[len(fs)] = n
	for _, m := range neutralDashRe.FindAllStringIndex(fs, -1) {
		edits = append(edits, edit{idx[m[0]], idx[m[1]], "—"})
	}
	for _, m := range guardRules().roleMarkRe.FindAllStringSubmatchIndex(fs, -1) {
		// The colon after a role word becomes " -"; a bracketed role
		// ("[system]", "«assistant»") is put in plain parentheses.
		if end := idx[m[1]] - 1; folded[end] == ':' {
			edits = append(edits, edit{end, end + 1, " -"})
		} else if from := idx[m[0]]; end > from {
			edits = append(edits, edit{from, end + 1, "(" + strings.TrimSpace(string(out[from+1:end])) + ")"})
		}
	}
	for _, m := range neutralFenceRe.FindAllStringIndex(fs, -1) {
		from, to := idx[m[0]], idx[m[1]]
		seg := fs[m[0]:m[1]]
		with := string(out[from])
		if strings.HasPrefix(seg, "[") {
			with = "(" + strings.Trim(string(out[from:to]), "[]") + ")"
		} else if strings.HasPrefix(seg, "‹‹") {
			with = "‹"
		}
		edits = append(edits, edit{from, to, with})
	}
	if len(edits) == 0 {
		return string(out)
	}
	var b strings.Builder
	pos := 0
	sortEdits := func() {
		for i := 1; i < len(edits); i++ {
			for j := i; j > 0 && edits[j].from < edits[j-1].from; j-- {
				edits[j], edits[j-1] = edits[j-1], edits[j]
			}
		}
	}
	sortEdits()
	for _, e := range edits {
		if e.from < pos {
			continue // overlaps an earlier edit
		}
		b.WriteString(string(out[pos:e.from]))
		b.WriteString(e.with)
		pos = e.to
	}
	b.WriteString(string(out[pos:]))
	return collapseSpace(b.String())
}
