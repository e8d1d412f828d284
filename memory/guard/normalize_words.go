package guard

import (
	"bytes"
	"html"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// The normaliser's passes over words and numbers (see normalizeForms):
// entities and percent-encoding, spaced letters, number words, digit-like
// letters and the separators inside numbers.

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
