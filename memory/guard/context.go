package guard

import (
	"strings"
	"unicode/utf8"
)

// valueRules say which words next to a context word make it sensitive,
// in the order a tie is settled ("confirmation code 7H3KQ2" is a booking).
var valueRules = []struct {
	list, category string
	ok             func(t token) bool
}{
	{"ctx_booking", CategoryBookingReference, func(t token) bool {
		return t.digits >= 5 || t.letters > 0 && len(t.text) >= 5 && len(t.text) <= 12
	}},
	{"ctx_passport", CategoryPassportNumber, func(t token) bool {
		// Six digits, or a document number that mixes letters in
		// ("C01X00T47", "C0lXOOT47" once its look-alikes are read).
		return t.digits >= 6 || t.digits >= 3 && t.letters >= 1 && len(t.text) >= 7 && len(t.text) <= 12 && len(t.groups) == 1
	}},
	{"ctx_ssn", CategorySSN, func(t token) bool { return t.digits >= 6 }},
	{"ctx_account", CategoryAccountNumber, func(t token) bool { return t.digits >= 5 }},
	{"ctx_phone", CategoryPhone, func(t token) bool { return t.digitsOnly && t.digits >= 7 }},
	{"ctx_password", CategorySecret, func(t token) bool { return t.digits >= 3 }},
	{"ctx_secret", CategorySecret, func(t token) bool { return t.digits >= 3 }},
}

// contextWindow is how far after its context word a value may be, in
// characters (a Cyrillic or Chinese character takes two or three bytes).
const contextWindow = 40

// contextValue finds identifiers and codes by the word that names them:
// a number or code within a few words after "passport", "PNR", "código",
// "пароль"… The first rule in valueRules that accepts the value wins. The
// context words are looked for only in the few words before a candidate
// value, which keeps ordinary notes cheap.
func contextValue(sc *screen, rs *ruleSet) string {
	caps := capsWords(sc)
	if len(sc.tokens) == 0 && len(caps) == 0 {
		return ""
	}
	for _, vr := range valueRules {
		var starts []int
		for _, t := range sc.tokens {
			if vr.ok(t) {
				starts = append(starts, t.start)
			}
		}
		if vr.list == "ctx_booking" && len(caps) > 0 && sc.mayContain(rs.anchors["ctx_locator"]) {
			// A word in capitals is a locator only after a word that names
			// one ("PNR QWERTZ"): after "booking" it is more likely a word
			// ("booking ONLINE").
			for _, start := range caps {
				if sc.contextBefore(rs, "ctx_locator", start) {
					return vr.category
				}
			}
		}
		if len(starts) == 0 || !sc.mayContain(rs.anchors[vr.list]) {
			continue
		}
		for _, start := range starts {
			if sc.contextBefore(rs, vr.list, start) {
				return vr.category
			}
		}
	}
	return ""
}

// contextBefore reports whether a word of list ends within contextWindow
// bytes before start, in the same clause, and is not part of a longer
// context phrase of another list ("código de reserva" is a booking phrase,
// not a secret word).
func (sc *screen) contextBefore(rs *ruleSet, list string, start int) bool {
	span := contextWindow + 24
	if !sc.ascii {
		span *= 3 // at most three bytes a character
	}
	from := max(0, start-span)
	for from > 0 && isGateByte(sc.lower[from-1]) {
		from-- // start the window on a word
	}
	for _, m := range sc.contextWords(rs, list, from, start) {
		hs, he := m[0], m[1]
		gap := start - he
		if !sc.ascii && gap > contextWindow {
			gap = utf8.RuneCountInString(sc.lower[he:start])
		}
		if gap > contextWindow || strings.ContainsAny(sc.lower[he:start], ";!?") {
			continue
		}
		covered := false
		for _, other := range valueRules {
			if other.list == list || !sc.mayContain(rs.anchors[other.list]) {
				continue
			}
			for _, o := range sc.contextWords(rs, other.list, from, hs+1) {
				if o[0] <= hs && he <= o[1] && o[1]-o[0] > he-hs {
					covered = true
				}
			}
		}
		if !covered {
			return true
		}
	}
	return false
}

// contextWords returns where the words of a context list stand in
// lower[from:to] (start and end of each), trying only the words that start
// with one of the list's anchor words, each with an expression anchored
// there: a few short matches instead of a scan by an expression of every
// language's words.
func (sc *screen) contextWords(rs *ruleSet, list string, from, to int) [][2]int {
	a := rs.anchors[list]
	if a == nil {
		var out [][2]int
		for _, m := range rs.ctx(sc, list).FindAllStringSubmatchIndex(sc.lower[from:to], -1) {
			out = append(out, [2]int{from + m[2], from + m[3]})
		}
		return out
	}
	at := rs.contextAt[list]
	if sc.ascii {
		at = rs.contextAtASCII[list]
	}
	var out [][2]int
	sc.atAnchorWords(a, from, to, func(p int) bool {
		if m := at.FindStringSubmatchIndex(sc.lower[p:]); m != nil && p+m[3] <= to {
			out = append(out, [2]int{p + m[2], p + m[3]})
		}
		return false
	})
	return out
}

// atAnchorWords calls try with the start of every word of lower[from:to]
// that starts with a word of the set a, and of the three words before it
// (an anchor word may stand inside a phrase: "b-day", "clave de acceso"),
// each once, until try returns true; it reports whether one did.
func (sc *screen) atAnchorWords(a *anchors, from, to int, try func(p int) bool) bool {
	s := sc.lower
	var starts [4]int
	n, tried := 0, -1
	for i := from; i < to; {
		if !isGateByte(s[i]) {
			i++
			continue
		}
		j := i
		for j < len(s) && isGateByte(s[j]) {
			j++
		}
		starts[n%len(starts)] = i
		n++
		if a.index.startsWith(s[i:j], a.id) {
			for k := max(0, n-len(starts)); k < n; k++ {
				if p := starts[k%len(starts)]; p > tried {
					tried = p
					if try(p) {
						return true
					}
				}
			}
		}
		i = j
	}
	return false
}

// capsWords returns where six-letter upper-case words start: record
// locators written without a digit ("PNR QWERTZ").
func capsWords(sc *screen) []int {
	var out []int
	s := sc.cased
	for i := 0; i+6 <= len(s); i++ {
		if (i == 0 || !isAlnum(s[i-1])) && (i+6 == len(s) || !isAlnum(s[i+6])) {
			all := true
			for k := i; k < i+6; k++ {
				if s[k] < 'A' || s[k] > 'Z' {
					all = false
					break
				}
			}
			if all {
				out = append(out, i)
			}
		}
	}
	return out
}

func isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c >= 0x80
}

// hasSecretWords finds a password or PIN given a value ("password is
// sunshine") and a code glued to its digits ("OTP482913").
func hasSecretWords(sc *screen, rs *ruleSet) bool {
	assign := rs.secretAssignRe
	if sc.ascii {
		assign = rs.secretAssignASCII
	}
	if a := rs.anchors["ctx_password"]; a != nil && sc.mayContain(a) &&
		sc.atAnchorWords(a, 0, len(sc.lower), func(p int) bool { return assign.MatchString(sc.lower[p:]) }) {
		return true
	}
	// "pa$$word: x": the password word in leetspeak. Only the word is read
	// so; the value and the number checks see the text as written.
	if leet, ok := sc.leet(); ok {
		ls := &screen{cased: leet, lower: leet, ascii: sc.ascii}
		if a := rs.anchors["ctx_password"]; a != nil && ls.mayContain(a) &&
			ls.atAnchorWords(a, 0, len(leet), func(p int) bool { return assign.MatchString(leet[p:]) }) {
			return true
		}
	}
	if sc.digits < 3 || !sc.mayContain(rs.anchors["secret_any"]) {
		return false
	}
	for _, t := range sc.tokens {
		if t.letters > 0 && t.digits >= 3 && rs.secretAttachedRe.MatchString(t.text) {
			return true
		}
	}
	return false
}

// bareNumber classifies long numbers that no word names by their shape:
// 3-2-4 groups are social-security-like, grouped or "+" numbers of 7 to 15
// digits are phone numbers, one to two capitals and 7-8 digits a passport,
// and any other eight digits or more an account number.
func bareNumber(sc *screen) string {
	for _, t := range sc.tokens {
		if chineseResidentID(t.text) {
			return CategorySSN
		}
	}
	for _, t := range sc.tokens {
		if t.digitsOnly && len(t.groups) == 3 && len(t.groups[0]) == 3 && len(t.groups[1]) == 2 && len(t.groups[2]) == 4 {
			return CategorySSN
		}
	}
	for _, t := range sc.tokens {
		if !t.digitsOnly || t.digits < 7 || t.digits > 15 || dateShaped(t) {
			continue
		}
		if t.plus || len(t.groups) >= 2 {
			return CategoryPhone
		}
	}
	for _, t := range sc.tokens {
		if t.letters >= 1 && t.letters <= 2 && (t.digits == 7 || t.digits == 8) && len(t.groups) == 1 && len(t.text) == t.letters+t.digits &&
			t.text[0] >= 'a' && t.text[t.letters-1] >= 'a' && sc.cased[t.start] >= 'A' && sc.cased[t.start] <= 'Z' && sc.cased[t.start+t.letters-1] <= 'Z' {
			return CategoryPassportNumber
		}
	}
	for _, t := range sc.tokens {
		if t.digitsOnly && (len(t.groups) == 1 && t.digits >= 8 || t.digits >= 12) {
			return CategoryAccountNumber
		}
	}
	return ""
}

// chineseResidentID reports whether s is a Chinese resident identity
// number: 17 digits and a check character (a digit or x) that matches
// them under ISO 7064 MOD 11-2.
func chineseResidentID(s string) bool {
	if len(s) != 18 {
		return false
	}
	sum := 0
	for i := 0; i < 17; i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
		// The weight of position i is 2^(17-i) mod 11.
		w := 1
		for k := 0; k < 17-i; k++ {
			w = w * 2 % 11
		}
		sum += int(s[i]-'0') * w
	}
	return s[17] == "10x98765432"[sum%11]
}
