package guard

import (
	_ "embed"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// mixedScriptData is the table of stand-in letters for mixed-script words;
// see the file for its format and what it holds.
//
//go:embed mixed_script.tsv
var mixedScriptData string

// mixedTables are the two directions of mixed_script.tsv: a Latin letter in
// a Cyrillic word, and a Cyrillic or Greek letter in a Latin word.
type mixedTables struct {
	toCyrillic map[rune]rune
	toLatin    map[rune]rune
}

var mixedOnce = sync.OnceValue(func() mixedTables {
	t := mixedTables{toCyrillic: map[rune]rune{}, toLatin: map[rune]rune{}}
	for _, line := range strings.Split(mixedScriptData, "\n") {
		if line == "" || line[0] == '#' {
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) < 3 {
			panic("guard: mixed_script.tsv: bad line " + line)
		}
		lat, n1 := utf8.DecodeRuneInString(f[0])
		other, n2 := utf8.DecodeRuneInString(f[1])
		dir := f[2]
		if n1 != len(f[0]) || n2 != len(f[1]) || !unicode.Is(unicode.Latin, lat) || !(unicode.Is(unicode.Cyrillic, other) || unicode.Is(unicode.Greek, other)) || dir != "cyr" && dir != "lat" && dir != "both" {
			panic("guard: mixed_script.tsv: bad line " + line)
		}
		if _, ok := t.toCyrillic[lat]; !ok && dir != "lat" && unicode.Is(unicode.Cyrillic, other) {
			t.toCyrillic[lat] = other
		}
		if _, ok := t.toLatin[other]; !ok && dir != "cyr" {
			t.toLatin[other] = lat
		}
	}
	return t
})

// foldMixedWords reads each mixed-script word of s (after NFD: letters,
// marks and digits between non-letters) in its majority script. A word is
// Cyrillic when it has at least as many Cyrillic letters as Latin and
// Greek ones and one that is no look-alike of a Latin letter ("забуdь",
// "Пapoль"; a tie goes to Cyrillic, where Latin look-alikes such as a p o
// read as they would anyway): its
// Latin letters become their Cyrillic stand-ins. Any other word that mixes
// scripts is Latin ("iдnore", and "ѕуѕtеm" written all in look-alikes):
// its Cyrillic and Greek letters that the confusables table leaves
// unfolded become their Latin stand-ins. Single-script words, and text
// without such a word, come back as they were; case is kept for the
// normaliser to lower.
func foldMixedWords(s string) string {
	var b []byte // nil until a word changes
	done := 0    // s[:done] is in b
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if !unicode.IsLetter(r) {
			i += size
			continue
		}
		j, lat, cyr, grk := i, 0, 0, 0
		for j < len(s) {
			r, n := utf8.DecodeRuneInString(s[j:])
			switch {
			case r < utf8.RuneSelf && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z'):
				lat++
			case r < utf8.RuneSelf && r >= '0' && r <= '9':
			case r < utf8.RuneSelf:
				goto end
			case unicode.Is(unicode.Mn, r):
			case unicode.Is(unicode.Cyrillic, r):
				cyr++
			case unicode.Is(unicode.Greek, r):
				grk++
			case unicode.IsLetter(r):
				if unicode.Is(unicode.Latin, r) {
					lat++
				}
			default:
				goto end
			}
			j += n
		}
	end:
		word := s[i:j]
		if j == i {
			j = i + size
		}
		if lat > 0 && cyr+grk > 0 {
			if folded, changed := foldMixedWord(word, cyr >= lat+grk); changed {
				b = append(b, s[done:i]...)
				b = append(b, folded...)
				done = j
			}
		}
		i = j
	}
	if b == nil {
		return s
	}
	return string(append(b, s[done:]...))
}

// foldMixedWord rewrites one mixed word: toward Cyrillic when cyrillic
// holds and the word has a letter only Cyrillic has, else toward Latin.
func foldMixedWord(w string, cyrillic bool) (string, bool) {
	t := mixedOnce()
	if cyrillic {
		distinct := false
		for _, r := range w {
			if unicode.Is(unicode.Cyrillic, r) && !isASCII(foldRune(r)) {
				distinct = true
				break
			}
		}
		cyrillic = distinct
	}
	var sb strings.Builder
	changed := false
	for _, r := range w {
		l := unicode.ToLower(r)
		var to rune
		var ok bool
		if cyrillic {
			to, ok = t.toCyrillic[l]
		} else if l >= utf8.RuneSelf && !unicode.Is(unicode.Latin, l) && !isASCII(foldRune(l)) {
			to, ok = t.toLatin[l]
		}
		if !ok {
			sb.WriteRune(r)
			continue
		}
		if r != l {
			to = unicode.ToUpper(to)
		}
		sb.WriteRune(to)
		changed = true
	}
	return sb.String(), changed
}
