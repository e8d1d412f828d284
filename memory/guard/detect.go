package guard

import (
	"encoding/base64"
	"regexp"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

var (
	// delimiterRe finds tags (in any bracket once folded), chat-template
	// markers, code fences and front-matter or heading rules.
	delimiterRe = regexp.MustCompile("<\\s*/?\\s*[\\pL!?|_]|<\\||\\|>|`{3,}|~{3,}|-{3,}|={3,}|#{3,}|\\[/?inst\\]")
)

// isInstruction finds instructions addressed to the assistant, role and
// delimiter markers, policy-shaped text and encoded payloads.
func isInstruction(sc *screen, rs *ruleSet) bool {
	if matchAny(rs.instruction, sc) {
		return true
	}
	if leet, ok := sc.leet(); ok && matchAny(rs.instruction, &screen{cased: leet, lower: leet}) {
		return true
	}
	if (containsAnyASCII(sc.lower, ":[](){}<>") || !sc.ascii && strings.ContainsAny(sc.lower, "«»")) && rs.roleMarkRe.MatchString(sc.lower) {
		return true
	}
	if strings.ContainsAny(sc.lower, "<|`~-=#[") && delimiterRe.MatchString(sc.lower) {
		return true
	}
	for _, tok := range longTokens(sc.cased) {
		if decodesToProse(tok) {
			return true
		}
	}
	return false
}

// leet is unleet(sc), computed once for the checks that read it.
func (sc *screen) leet() (string, bool) {
	if !sc.leetDone {
		sc.leetText, sc.leetOK = unleet(sc)
		sc.leetDone = true
	}
	return sc.leetText, sc.leetOK
}

// containsAnyASCII is strings.ContainsAny for a set of ASCII characters,
// without the rune decoding ContainsAny does when s is not ASCII.
func containsAnyASCII(s, chars string) bool {
	var set [128]bool
	for i := 0; i < len(chars); i++ {
		set[chars[i]] = true
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < utf8.RuneSelf && set[c] {
			return true
		}
	}
	return false
}

// unleet returns the instruction check's reading of leetspeak ("1gn0re
// all pr3vious instruct10ns"): in each word that mixes letters with digits
// or @ $, those stand for the letters they resemble (3 for з in a
// Cyrillic word). It is for the instruction check only: the stored text
// and the number checks never see it. ok is false when no word mixes.
func unleet(sc *screen) (string, bool) {
	s := sc.lower
	if sc.digits == 0 && strings.IndexByte(s, '@') < 0 && strings.IndexByte(s, '$') < 0 {
		return "", false
	}
	var b strings.Builder
	changed := false
	for i := 0; i < len(s); {
		if !isAlnum(s[i]) && s[i] != '@' && s[i] != '$' {
			b.WriteByte(s[i])
			i++
			continue
		}
		j := i
		letters, leet, cyrillic := 0, 0, false
		for j < len(s) && (isAlnum(s[j]) || s[j] == '@' || s[j] == '$') {
			r, size := utf8.DecodeRuneInString(s[j:])
			switch {
			case unicode.IsLetter(r):
				letters++
				cyrillic = cyrillic || unicode.Is(unicode.Cyrillic, r)
			case strings.ContainsRune("013457@$", r):
				leet++
			}
			j += size
		}
		if letters == 0 || leet == 0 {
			b.WriteString(s[i:j])
			i = j
			continue
		}
		changed = true
		for _, r := range s[i:j] {
			switch {
			case r == '3' && cyrillic:
				b.WriteString("з")
			case r == '0':
				b.WriteByte('o')
			case r == '1':
				b.WriteByte('i')
			case r == '3':
				b.WriteByte('e')
			case r == '4' || r == '@':
				b.WriteByte('a')
			case r == '5' || r == '$':
				b.WriteByte('s')
			case r == '7':
				b.WriteByte('t')
			default:
				b.WriteRune(r)
			}
		}
		i = j
	}
	return b.String(), changed
}

// longTokens returns the runs of 20 or more base64 characters.
func longTokens(s string) []string {
	if len(s) < 20 {
		return nil
	}
	var out []string
	for i := 0; i < len(s); {
		j := i
		for j < len(s) && isBase64Byte(s[j]) {
			j++
		}
		if j-i >= 20 {
			out = append(out, s[i:j])
		}
		i = j + 1
	}
	return out
}

func isBase64Byte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '+' || c == '/' || c == '_' || c == '=' || c == '-'
}

// decodesToProse reports whether a base64 run decodes to readable text: a
// payload hidden from the other checks.
func decodesToProse(tok string) bool {
	raw := strings.TrimRight(tok, "=")
	var out []byte
	var err error
	for _, enc := range []*base64.Encoding{base64.RawStdEncoding, base64.RawURLEncoding} {
		if out, err = enc.DecodeString(raw); err == nil {
			break
		}
	}
	if err != nil || len(out) < 12 {
		return false
	}
	printable, spaces := 0, 0
	for _, c := range out {
		switch {
		case c == ' ':
			spaces++
			printable++
		case c >= 0x21 && c < 0x7F:
			printable++
		}
	}
	return spaces >= 2 && printable*100 >= len(out)*90
}

var emailRe = regexp.MustCompile(`[a-z0-9._%+-]+@[a-z0-9-]+(?:\.[a-z0-9-]+)*\.[a-z]{2,}`)

func hasEmail(sc *screen, rs *ruleSet) bool {
	if strings.IndexByte(sc.lower, '@') >= 0 && emailRe.MatchString(sc.lower) {
		return true
	}
	at := sc.mayContain(rs.anchors["at"]) || strings.ContainsAny(sc.lower, "[({")
	dot := sc.mayContain(rs.anchors["dot"]) || strings.ContainsAny(sc.lower, "[({") || hasInnerDot(sc.lower)
	if at && dot && rs.emailObfRe.MatchString(sc.lower) {
		return true
	}
	if !at || !hasInnerDot(sc.lower) {
		return false
	}
	// "john at example.com": an address when the note starts with it, a
	// mail word names it, or the name is shaped like one ("j.doe", "ann99");
	// "prefers booking at hotels.com" is a place, not an address.
	for _, m := range rs.emailAtRe.FindAllStringSubmatchIndex(sc.lower, -1) {
		name := sc.lower[m[2]:m[3]]
		if m[2] == 0 || strings.ContainsAny(name, "._+%0123456789") || sc.mayContain(rs.anchors["ctx_email"]) && rs.ctx(sc, "ctx_email").MatchString(sc.lower) {
			return true
		}
	}
	return false
}

// hasInnerDot reports whether a dot stands between two letters or digits,
// as in a host name.
func hasInnerDot(s string) bool {
	for i := 1; i+1 < len(s); i++ {
		if s[i] == '.' && isGateByte(s[i-1]) && isGateByte(s[i+1]) {
			return true
		}
	}
	return false
}

// keyShapeRe finds the published shapes of API keys and tokens.
var keyShapeRe = regexp.MustCompile(`\b(?:sk-[A-Za-z0-9_-]{16,}|AKIA[0-9A-Z]{16}|gh[pousr]_[A-Za-z0-9]{20,}|xox[abpr]-[A-Za-z0-9-]{10,}|AIza[0-9A-Za-z_-]{30,}|eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,})`)

func hasKeyShape(sc *screen) bool {
	if len(sc.cased) < 14 {
		return false
	}
	for _, p := range []string{"sk-", "AKIA", "gh", "xox", "AIza", "eyJ"} {
		if strings.Contains(sc.cased, p) {
			return keyShapeRe.MatchString(sc.cased)
		}
	}
	return false
}

// hasLongToken finds a long random-looking run of letters and digits: a
// key, a token or a hash.
func hasLongToken(sc *screen) bool {
	if sc.digits == 0 || len(sc.cased) < 20 {
		return false
	}
	for _, tok := range longTokens(sc.cased) {
		if strings.ContainsAny(tok, "0123456789") && strings.IndexFunc(tok, unicode.IsLetter) >= 0 {
			return true
		}
	}
	return false
}

var ibanRe = regexp.MustCompile(`\b[a-z]{2}\d{2}(?:[ -]?[a-z0-9]{1,4}){3,9}`)

// hasIBAN finds an IBAN, grouped or not, by its ISO 13616 mod-97 checksum.
func hasIBAN(sc *screen) bool {
	if sc.digits < 8 || len(sc.lower) < 15 || !lettersThenDigits(sc.lower) {
		return false
	}
	for _, m := range ibanRe.FindAllString(sc.lower, -1) {
		compact := strings.NewReplacer(" ", "", "-", "").Replace(m)
		// The match may have swallowed a word after the number: try every
		// length an IBAN can have.
		for n := min(len(compact), 34); n >= 15; n-- {
			if validIBAN(compact[:n]) {
				return true
			}
		}
	}
	return false
}

// lettersThenDigits reports whether two letters are followed by two
// digits somewhere, the start of every IBAN.
func lettersThenDigits(s string) bool {
	for i := 0; i+4 <= len(s); i++ {
		if s[i] >= 'a' && s[i] <= 'z' && s[i+1] >= 'a' && s[i+1] <= 'z' && s[i+2] >= '0' && s[i+2] <= '9' && s[i+3] >= '0' && s[i+3] <= '9' {
			return true
		}
	}
	return false
}

// validIBAN checks the ISO 13616 mod-97 checksum of a compact lower-case
// IBAN, without big numbers: the remainder is carried digit by digit.
func validIBAN(s string) bool {
	if len(s) < 15 || len(s) > 34 {
		return false
	}
	mod := 0
	for _, c := range s[4:] + s[:4] {
		switch {
		case c >= '0' && c <= '9':
			mod = (mod*10 + int(c-'0')) % 97
		case c >= 'a' && c <= 'z':
			mod = (mod*100 + int(c-'a') + 10) % 97
		default:
			return false
		}
	}
	return mod == 1
}

// hasPaymentCard finds 13 to 19 digits, in groups or not, that pass the
// Luhn checksum; in a longer number, any run of whole groups that does.
func hasPaymentCard(sc *screen) bool {
	for _, t := range sc.tokens {
		if !t.digitsOnly || t.digits < 13 {
			continue
		}
		for i := range t.groups {
			d := ""
			for j := i; j < len(t.groups); j++ {
				d += t.groups[j]
				if len(d) > 19 {
					break
				}
				if len(d) >= 13 && luhn(d) {
					return true
				}
			}
		}
	}
	return false
}

// luhn reports whether a string of digits passes the Luhn checksum.
func luhn(d string) bool {
	sum := 0
	double := false
	for i := len(d) - 1; i >= 0; i-- {
		n := int(d[i] - '0')
		if double {
			n *= 2
			if n > 9 {
				n -= 9
			}
		}
		sum += n
		double = !double
	}
	return sum%10 == 0
}

// dateShaped reports whether a number in three groups reads as a date:
// day-month-year, month-day-year or year-month-day.
func dateShaped(t token) bool {
	if !t.digitsOnly || len(t.groups) != 3 {
		return false
	}
	n := make([]int, 3)
	for i, g := range t.groups {
		n[i], _ = strconv.Atoi(g)
	}
	l0, l1, l2 := len(t.groups[0]), len(t.groups[1]), len(t.groups[2])
	switch {
	case l0 == 4 && l1 <= 2 && l2 <= 2:
		return n[1] >= 1 && n[1] <= 12 && n[2] >= 1 && n[2] <= 31
	case l0 <= 2 && l1 <= 2 && (l2 == 4 || l2 == 2):
		dm := n[0] >= 1 && n[0] <= 31 && n[1] >= 1 && n[1] <= 12
		md := n[0] >= 1 && n[0] <= 12 && n[1] >= 1 && n[1] <= 31
		return dm || md
	}
	return false
}

// hasDateOfBirth finds a full date (with a year) in a note that speaks of
// a birth. A birthday without a year ("Birthday is 12 March") and a birth
// year or place alone pass: useful for planning, they identify nobody.
func hasDateOfBirth(sc *screen, rs *ruleSet) bool {
	// A date written out in words has no digits: then a word that starts a
	// written year ("mil", "neunzehnhundert…") must be there.
	if sc.digits < 4 && !sc.mayContain(rs.anchors["thousand"]) || !sc.mayContain(rs.anchors["birth"]) || len(sc.contextWords(rs, "birth", 0, len(sc.lower))) == 0 {
		return false
	}
	for _, t := range sc.tokens {
		if dateShaped(t) {
			return true
		}
	}
	return matchAny(rs.dob, sc)
}
