package guard

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
//     ("códígo", "i̇gnore") do not split a word, and a mixed-script word
//     reads in its majority script ("забуdь" as "забудь", see
//     foldMixedWords and mixed_script.tsv);
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
		s = foldMixedWords(norm.NFD.String(norm.NFKC.String(s)))
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
	switch {
	case r >= 0x1F170 && r <= 0x1F189: // negative squared letters 🅰…🆉
		return string(rune('a' + r - 0x1F170))
	case r >= 0x1F1E6 && r <= 0x1F1FF: // regional indicators 🇦…🇿
		return string(rune('a' + r - 0x1F1E6))
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
