package memory

import (
	"bytes"
	"html"
	"regexp"
	"sort"
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
	s = unwrap(s)
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
	emitByte := func(c byte, keepCase bool) {
		if c == ' ' {
			if space {
				return
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
	emit := func(str string, keepCase bool) {
		for i := 0; i < len(str); i++ {
			emitByte(str[i], keepCase)
		}
	}
	if ascii {
		// Most notes and messages: byte by byte, no rune decoding.
		for i := 0; i < len(s); i++ {
			c := s[i]
			if c < 0x20 || c == 0x7F {
				c = ' '
			}
			emitByte(c, true)
		}
		s = ""
	}
	for _, r := range s {
		switch {
		case r < utf8.RuneSelf:
			if r < 0x20 || r == 0x7F {
				r = ' '
			}
			emitByte(byte(r), true)
		case unicode.Is(unicode.Cf, r), unicode.Is(unicode.Mn, r), unicode.Is(unicode.Me, r), r == utf8.RuneError:
			// invisible, or the mark of a character that was not text: dropped
		case unicode.IsSpace(r), unicode.Is(unicode.Zs, r), unicode.IsControl(r):
			emit(" ", false)
		case unicode.Is(unicode.Nd, r):
			emit(string(rune('0'+digitValue(r))), false)
		case isWordFree(r):
			// Chinese and Japanese write no spaces: each character stands
			// as a word of its own, in the text and in the patterns alike.
			emit(" ", false)
			emit(foldRune(r), false)
			emit(" ", false)
		default:
			emit(foldRune(r), false)
		}
	}
	for len(cb) > 0 && cb[len(cb)-1] == ' ' {
		cb, lb = cb[:len(cb)-1], lb[:len(lb)-1]
	}
	cb, lb = collapseSpacedLetters(cb, lb)
	cb, lb = readNumberWords(cb, lb)
	readDigitLikeLetters(cb, lb)
	cb, lb = joinDigitRuns(cb, lb)
	return string(cb), string(lb)
}

// isWordFree reports whether r belongs to a script written without spaces
// between words that the guard reads: Han, Hiragana, Katakana.
func isWordFree(r rune) bool {
	return r >= 0x2E80 && (unicode.Is(unicode.Han, r) || unicode.Is(unicode.Hiragana, r) || unicode.Is(unicode.Katakana, r) || r == 0x30FC || r == 0x3007)
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
	if c, ok := smallCapitals[r]; ok {
		return string(c)
	}
	return string(l)
}

// smallCapitals are the Latin small capitals ("ɪɢɴᴏʀᴇ") that the
// confusables table does not fold onto a letter: each is read as its
// letter.
var smallCapitals = map[rune]byte{
	'ᴀ': 'a', 'ʙ': 'b', 'ᴄ': 'c', 'ᴅ': 'd', 'ᴇ': 'e', 'ꜰ': 'f', 'ɢ': 'g', 'ʜ': 'h', 'ɪ': 'i', 'ᴊ': 'j', 'ᴋ': 'k', 'ʟ': 'l', 'ᴍ': 'm',
	'ɴ': 'n', 'ᴏ': 'o', 'ᴘ': 'p', 'ꞯ': 'q', 'ʀ': 'r', 'ꜱ': 's', 'ᴛ': 't', 'ᴜ': 'u', 'ᴠ': 'v', 'ᴡ': 'w', 'ʏ': 'y', 'ᴢ': 'z',
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

// joinDigitRuns rewrites every run of one to three separators between two
// digits as one "-", and, where a number is dictated in groups ("4111 and
// 1111 and 1111 and 1111"), the filler words between its groups too: at
// least three groups joined by fillers, eight digits or more. Decisions are
// taken on lb and applied to both forms, which stay aligned.
func joinDigitRuns(cb, lb []byte) ([]byte, []byte) {
	type group struct{ start, end int }
	var groups []group
	for i := 0; i < len(lb); i++ {
		if lb[i] >= '0' && lb[i] <= '9' {
			j := i
			for j < len(lb) && lb[j] >= '0' && lb[j] <= '9' {
				j++
			}
			groups = append(groups, group{i, j})
			i = j
		}
	}
	if len(groups) < 2 {
		return cb, lb
	}
	fillers := guardRules().fillers
	var edits, pending []textEdit // pending: the filler links of the current chain
	digits := groups[0].end - groups[0].start
	flush := func() {
		if len(pending) >= 2 && digits >= 8 {
			edits = append(edits, pending...)
		}
		pending = pending[:0]
	}
	for k := 1; k < len(groups); k++ {
		a, b := groups[k-1], groups[k]
		gap := lb[a.end:b.start]
		switch {
		case len(gap) <= 3 && allDigitSeps(gap):
			edits = append(edits, textEdit{a.end, b.start, "-"})
		case len(fillers) > 0 && fillerLink(lb, a.end, fillers) == b.start:
			pending = append(pending, textEdit{a.end, b.start, "-"})
		default:
			flush()
			digits = 0
		}
		digits += b.end - b.start
	}
	flush()
	if len(edits) == 0 {
		return cb, lb
	}
	sortEdits(edits)
	return applyEdits(cb, edits), applyEdits(lb, edits)
}

func allDigitSeps(b []byte) bool {
	for _, c := range b {
		if !isDigitSep(c) {
			return false
		}
	}
	return true
}

// fillerLink returns where the next digit group starts when what follows
// from is a few separators, one filler word ("and", "puis", "和") and a few
// separators; 0 when it is not.
func fillerLink(lb []byte, from int, fillers []string) int {
	j := from
	for j < len(lb) && j-from < 3 && (isDigitSep(lb[j]) || lb[j] == ',') {
		j++
	}
	for _, f := range fillers {
		if !bytes.HasPrefix(lb[j:], []byte(f)) {
			continue
		}
		k := j + len(f)
		if k < len(lb) && lb[k] >= 'a' && lb[k] <= 'z' {
			continue // a longer word
		}
		if j > 0 && lb[j-1] >= 'a' && lb[j-1] <= 'z' {
			continue
		}
		e := k
		for e < len(lb) && e-k < 3 && (isDigitSep(lb[e]) || lb[e] == ',') {
			e++
		}
		if e < len(lb) && lb[e] >= '0' && lb[e] <= '9' {
			return e
		}
	}
	return 0
}

// textEdit replaces lb[from:to] (and the same bytes of the cased form).
type textEdit struct {
	from, to int
	with     string
}

func sortEdits(edits []textEdit) {
	sort.SliceStable(edits, func(i, j int) bool { return edits[i].from < edits[j].from })
}

// applyEdits applies sorted, non-overlapping edits to b.
func applyEdits(b []byte, edits []textEdit) []byte {
	out := make([]byte, 0, len(b))
	pos := 0
	for _, e := range edits {
		if e.from < pos {
			continue
		}
		out = append(out, b[pos:e.from]...)
		out = append(out, e.with...)
		pos = e.to
	}
	return append(out, b[pos:]...)
}

// unwrap decodes, once, the wrappers that hide text from the checks: HTML
// character references ("&#32;", "&lt;") and percent-encoding ("%20"),
// the latter only when what it decodes to is valid UTF-8.
func unwrap(s string) string {
	if strings.IndexByte(s, '&') >= 0 && strings.IndexByte(s, ';') >= 0 {
		s = html.UnescapeString(s)
	}
	if i := strings.IndexByte(s, '%'); i >= 0 && i+2 < len(s) {
		var b []byte
		for k := 0; k < len(s); k++ {
			if s[k] == '%' && k+2 < len(s) && isHex(s[k+1]) && isHex(s[k+2]) {
				if b == nil {
					b = append(make([]byte, 0, len(s)), s[:k]...)
				}
				b = append(b, unhex(s[k+1])<<4|unhex(s[k+2]))
				k += 2
				continue
			}
			if b != nil {
				b = append(b, s[k])
			}
		}
		if b != nil && utf8.Valid(b) {
			s = string(b)
		}
	}
	return s
}

func isHex(c byte) bool { return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }

func unhex(c byte) byte {
	switch {
	case c >= 'a':
		return c - 'a' + 10
	case c >= 'A':
		return c - 'A' + 10
	}
	return c - '0'
}

// collapseSpacedLetters joins letters written one at a time ("I g n o r e",
// "v.e.r.g.i.s.s"): three or more one-letter words in a row, one separator
// apart, become one word. Chinese and Japanese characters are words of
// their own already and are left alone.
func collapseSpacedLetters(cb, lb []byte) ([]byte, []byte) {
	var edits []textEdit
	type single struct{ start, end int }
	var run []single
	flush := func() {
		if len(run) >= 3 {
			for k := 1; k < len(run); k++ {
				edits = append(edits, textEdit{run[k-1].end, run[k].start, ""})
			}
		}
		run = run[:0]
	}
	for i := 0; i < len(lb); {
		if !isLetterStart(lb, i) {
			i++
			continue
		}
		j := i
		n := 0
		for j < len(lb) && isLetterStart(lb, j) {
			if lb[j] < utf8.RuneSelf {
				j++
				n++
				continue
			}
			r, size := utf8.DecodeRune(lb[j:])
			if isWordFree(r) {
				break
			}
			j += size
			n++
		}
		if n == 0 { // a word-free character
			flush()
			_, size := utf8.DecodeRune(lb[i:])
			i += size
			continue
		}
		if n != 1 || j < len(lb) && lb[j] >= '0' && lb[j] <= '9' || i > 0 && lb[i-1] >= '0' && lb[i-1] <= '9' {
			flush()
			i = j
			continue
		}
		if len(run) > 0 && (i-run[len(run)-1].end != 1 || !isLetterGap(lb[i-1])) {
			flush()
		}
		run = append(run, single{i, j})
		i = j
	}
	flush()
	if len(edits) == 0 {
		return cb, lb
	}
	return applyEdits(cb, edits), applyEdits(lb, edits)
}

func isLetterGap(c byte) bool { return c == ' ' || c == '.' || c == '-' || c == '_' || c == '*' }

// isLetterStart reports whether a letter starts at b[i].
func isLetterStart(b []byte, i int) bool {
	c := b[i]
	if c < utf8.RuneSelf {
		return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
	}
	r, _ := utf8.DecodeRune(b[i:])
	return unicode.IsLetter(r)
}

// readNumberWords reads numbers spelled out digit by digit ("four one one
// one…", "null eins sieben", "一三八"): four or more number words of the
// language files (or digits) in a row become digits, which joinDigitRuns
// then reads as one number. Fewer stay words: "sei un assistente" is no
// number.
func readNumberWords(cb, lb []byte) ([]byte, []byte) {
	rs := guardRules()
	numbers := rs.numbers
	if len(numbers) == 0 {
		return cb, lb
	}
	type word struct {
		start, end int
		digit      byte // 0 when the word is a digit run already
	}
	var edits []textEdit
	var buf [16]word
	run := buf[:0]
	flush := func() {
		spelled := 0
		for _, w := range run {
			if w.digit != 0 {
				spelled++
			}
		}
		if len(run) >= 4 && spelled > 0 {
			for _, w := range run {
				if w.digit != 0 {
					edits = append(edits, textEdit{w.start, w.end, string(w.digit)})
				}
			}
		}
		run = run[:0]
	}
	for i := 0; i < len(lb); {
		c := lb[i]
		switch {
		case c >= '0' && c <= '9':
			j := i
			for j < len(lb) && lb[j] >= '0' && lb[j] <= '9' {
				j++
			}
			run = append(run, word{i, j, 0})
			i = j
		case isLetterStart(lb, i):
			j := i
			for j < len(lb) && isLetterStart(lb, j) {
				if lb[j] < utf8.RuneSelf {
					j++
					continue
				}
				r, size := utf8.DecodeRune(lb[j:])
				j += size
				if isWordFree(r) {
					break
				}
			}
			if d, ok := byte(0), false; j-i <= rs.numberLongest && rs.numberLens[lb[i]]&(1<<(j-i)) != 0 {
				if d, ok = numbers[string(lb[i:j])]; ok {
					run = append(run, word{i, j, d})
				}
				if !ok {
					flush()
				}
			} else {
				flush()
			}
			i = j
		case c == ' ' || c == '-' || c == ',' || c == '.':
			i++
		default:
			flush()
			i++
		}
	}
	flush()
	if len(edits) == 0 {
		return cb, lb
	}
	return applyEdits(cb, edits), applyEdits(lb, edits)
}

// readDigitLikeLetters reads O, o, l and I as digits inside a run that is
// mostly digits ("4OOO OOOO OOOO OOO2", "C0lX00T47"): in a word with a
// digit where digits and such letters are at least 60 per cent, and in
// words of three or more such letters next to one. In place: one byte for
// one byte.
func readDigitLikeLetters(cb, lb []byte) {
	if bytes.IndexAny(lb, "0123456789") < 0 {
		return // no run of digits to read letters in
	}
	type word struct{ start, end, digits, like int }
	var words []word
	for i := 0; i < len(lb); {
		if !isAlnum(lb[i]) || lb[i] >= utf8.RuneSelf {
			i++
			continue
		}
		w := word{start: i}
		for i < len(lb) && lb[i] < utf8.RuneSelf && isAlnum(lb[i]) {
			switch lb[i] {
			case '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
				w.digits++
			case 'o', 'l', 'i':
				w.like++
			}
			i++
		}
		w.end = i
		if i < len(lb) && lb[i] >= utf8.RuneSelf {
			continue // part of a longer word
		}
		words = append(words, w)
	}
	numeric := make([]bool, len(words))
	any := false
	for k, w := range words {
		n := w.end - w.start
		if w.digits > 0 && w.like > 0 && n >= 2 && (w.digits+w.like)*10 >= n*6 {
			numeric[k], any = true, true
		}
	}
	if !any {
		return
	}
	near := func(a, b word) bool { // one to three separators apart
		if b.start-a.end < 1 || b.start-a.end > 3 {
			return false
		}
		for k := a.end; k < b.start; k++ {
			if !isDigitSep(lb[k]) {
				return false
			}
		}
		return true
	}
	for changed := true; changed; {
		changed = false
		for k, w := range words {
			if numeric[k] || w.digits > 0 || w.like != w.end-w.start || w.like < 3 {
				continue
			}
			if k > 0 && (numeric[k-1] || words[k-1].digits == words[k-1].end-words[k-1].start) && near(words[k-1], w) ||
				k+1 < len(words) && (numeric[k+1] || words[k+1].digits == words[k+1].end-words[k+1].start) && near(w, words[k+1]) {
				numeric[k], changed = true, true
			}
		}
	}
	digitLike := func(c byte) byte {
		switch c {
		case 'o':
			return '0'
		case 'l', 'i':
			return '1'
		}
		return 0
	}
	for k, w := range words {
		if !numeric[k] {
			continue
		}
		if w.digits == 0 { // all such letters, next to a number
			for i := w.start; i < w.end; i++ {
				cb[i], lb[i] = digitLike(lb[i]), digitLike(lb[i])
			}
			continue
		}
		// Inside a word, only the letters that touch a digit, directly or
		// through other such letters: "4ooo" is 4000, "otp482913" keeps its o.
		for changed := true; changed; {
			changed = false
			for i := w.start; i < w.end; i++ {
				d := digitLike(lb[i])
				if d == 0 {
					continue
				}
				if i > w.start && lb[i-1] >= '0' && lb[i-1] <= '9' || i+1 < w.end && lb[i+1] >= '0' && lb[i+1] <= '9' {
					cb[i], lb[i], changed = d, d, true
				}
			}
		}
	}
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
	prevWord, prevFree := false, false // the last rune written was a letter or digit; a word-free one
	for _, r := range p {
		word := unicode.IsLetter(r) || unicode.IsDigit(r)
		free := isWordFree(r)
		if word && (prevFree || free && prevWord) {
			// Word-free characters stand apart, as in the screening form,
			// by exactly one space there: an escaped space, which spaces()
			// leaves as it is (a separator class would cost more to compile).
			b.WriteString(`\x20`)
		}
		switch {
		case r < utf8.RuneSelf:
			b.WriteRune(r)
		case unicode.Is(unicode.Cf, r), unicode.Is(unicode.Mn, r), unicode.Is(unicode.Me, r):
			continue
		case unicode.Is(unicode.Nd, r):
			b.WriteByte(byte('0' + digitValue(r)))
		default:
			b.WriteString(regexp.QuoteMeta(foldRune(r)))
		}
		prevWord, prevFree = word, free
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
