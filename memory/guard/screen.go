package guard

import (
	"strings"
)

// screen is a note in its screening form with what the checks share.
type screen struct {
	cased, lower string // same length and offsets; see normalizeForms
	ascii        bool   // lower is all ASCII
	digits       int
	tokens       []token      // every word that holds a digit
	present      []uint64     // the anchor sets the words start, built on first use (mayContain)
	presentIn    *anchorIndex // the index present was built from
	leetText     string       // unleet's reading, once leetDone
	leetOK       bool
	leetDone     bool
}

// token is a word of the screening form that holds digits: letters, digits
// and the "-" that joins the groups of a number.
type token struct {
	start, end int    // byte offsets in lower
	text       string // lower case
	groups     []string
	digits     int
	letters    int
	plus       bool // written with a leading "+"
	digitsOnly bool
}

func newScreen(text string) *screen {
	cased, lower := normalizeForms(text)
	sc := &screen{cased: cased, lower: lower, ascii: isASCII(lower)}
	for i := 0; i < len(lower); i++ {
		if lower[i] >= '0' && lower[i] <= '9' {
			sc.digits++
		}
	}
	if sc.digits == 0 {
		return sc
	}
	isTok := func(c byte) bool { return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' }
	for i := 0; i < len(lower); {
		if !isTok(lower[i]) {
			i++
			continue
		}
		j := i
		for j < len(lower) && isTok(lower[j]) {
			j++
		}
		s, e := i, j
		for s < e && lower[s] == '-' {
			s++
		}
		for e > s && lower[e-1] == '-' {
			e--
		}
		i = j
		t := token{start: s, end: e, text: lower[s:e], plus: s > 0 && lower[s-1] == '+'}
		for k := s; k < e; k++ {
			switch c := lower[k]; {
			case c >= '0' && c <= '9':
				t.digits++
			case c != '-':
				t.letters++
			}
		}
		if t.digits == 0 {
			continue
		}
		t.digitsOnly = t.letters == 0
		t.groups = strings.Split(t.text, "-")
		sc.tokens = append(sc.tokens, t)
	}
	return sc
}
