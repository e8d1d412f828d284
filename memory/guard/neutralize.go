package guard

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Neutralize's rewrites, read on a rune-aligned folded copy of the text so
// look-alike letters and dashes are caught too.
var (
	neutralDashRe  = regexp.MustCompile(`-{3,}|[\x{2014}\x{2015}]{2,}`)
	neutralFenceRe = regexp.MustCompile("`{3,}|~{3,}|#{3,}|={3,}|\\|{2,}|\\[/?inst\\]|‹‹\\s*/?sys\\s*››")
)

// Neutralize makes untrusted text safe to place inside a block of a
// prompt (see memory.Neutralize, which skips plain ASCII prose and says
// what it guarantees).
func Neutralize(s string) string {
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

// collapseSpace trims text and turns every run of whitespace into one space.
func collapseSpace(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
