// Package guard holds the rules every note and message passes before it is
// stored or shown to a model: the normaliser that reads disguises
// (normalize.go), the language files and the rules compiled from them
// (lang.go, lang_compile.go, lang/*.yaml), and the detectors that run on the
// screening form (screen.go, detect.go, context.go). It knows nothing of
// notes, profiles or tools: memory's note checks (CheckNote, CheckProfile)
// and the model layer (NoteClassifier) call it.
package guard

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// The categories the rules refuse text for. They are stable strings, used
// as metric labels and in blocked-write records; memory names them too,
// beside the categories of the note checks and the model layer.
const (
	CategorySSN              = "ssn"
	CategoryPaymentCard      = "payment_card"
	CategoryIBAN             = "iban"
	CategoryPassportNumber   = "passport_number"
	CategoryDateOfBirth      = "date_of_birth"
	CategoryStreetAddress    = "street_address"
	CategorySecret           = "secret"
	CategoryBookingReference = "booking_reference"
	CategoryAccountNumber    = "account_number"
	CategoryPhone            = "phone"
	CategoryEmail            = "email"
	CategoryInstruction      = "instruction"
	// CategoryUnreadable is a note written in a script no language file
	// covers (Arabic, Hindi, Thai, Korean…): the rules cannot read it, so it
	// is refused unless the model layer reviews notes.
	CategoryUnreadable = "unsupported_language"
	// CategoryBadEncoding is text that is not valid UTF-8 or holds the
	// replacement character a lone surrogate decodes to.
	CategoryBadEncoding = "bad_encoding"
)

// Context is what the guard knows about where a note is being written.
type Context struct {
	// Previous are the session's earlier notes, oldest first: the rules
	// also read the new note joined to them, so an instruction or a number
	// split over two notes is refused when its second half arrives.
	Previous []string
	// Reviewed says the model layer (memory.NoteClassifier) reviews what
	// the rules pass: a note in a script no language file covers is then
	// left to it instead of being refused as CategoryUnreadable.
	Reviewed bool
}

// Languages are the names, in English, of the languages the rules read.
func Languages() []string { return append([]string(nil), guardRules().languages...) }

// IsInstruction reports whether text reads as an instruction to the
// assistant, a role or delimiter marker or an encoded payload (the
// instruction check of ScreenText alone, for text such as profile values
// that may hold identifiers by design).
func IsInstruction(text string) bool { return isInstruction(newScreen(text), guardRules()) }

// ScreenText checks text for sensitive data and instruction-like payloads
// (not length, format or caps) and returns the first matching category.
// It reads the screening form of the text (see Normalize), so invisible
// characters, look-alike letters, other digit systems and separators
// inside numbers change nothing. Every write path and consolidation reuse
// it, so it must stay cheap and never panic.
func ScreenText(text string) (category string, blocked bool) {
	if !isASCII(text) && (!utf8.ValidString(text) || strings.Contains(text, "\uFFFD")) {
		return CategoryBadEncoding, true
	}
	return screenRules(newScreen(text))
}

// ScreenTextIn is ScreenText for a note written in a context (see
// Context): the note alone, then the note joined to the session's
// earlier notes (refused when the join is and the earlier notes alone are
// not), then, unless the model layer reviews notes, whether the rules can
// read its script at all.
func ScreenTextIn(nc Context, text string) (category string, blocked bool) {
	if cat, blocked := ScreenText(text); blocked {
		return cat, true
	}
	if len(nc.Previous) > 0 {
		before := strings.Join(nc.Previous, " ")
		if cat, blocked := screenRules(newScreen(before + " " + text)); blocked {
			if _, was := screenRules(newScreen(before)); !was {
				return cat, true
			}
		}
	}
	if !nc.Reviewed && unreadable(text) {
		return CategoryUnreadable, true
	}
	return "", false
}

// readableScripts are the scripts the language files are written in.
var readableScripts = []*unicode.RangeTable{unicode.Latin, unicode.Cyrillic, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Common, unicode.Inherited}

// unreadable reports whether text holds letters of a script no language
// file covers: three or more that are not look-alikes of Latin letters
// (a Greek Ο in an English word is read as o).
func unreadable(text string) bool {
	n := 0
	for _, r := range text {
		if r < utf8.RuneSelf || !unicode.IsLetter(r) || unicode.In(r, readableScripts...) {
			continue
		}
		if _, ok := asciiSkeleton(unicode.ToLower(r), r); ok {
			continue
		}
		if n++; n >= 3 {
			return true
		}
	}
	return false
}

// screenRules runs the checks of ScreenText on a screening form.
func screenRules(sc *screen) (category string, blocked bool) {
	rs := guardRules()
	if isInstruction(sc, rs) {
		return CategoryInstruction, true
	}
	if hasEmail(sc, rs) {
		return CategoryEmail, true
	}
	if hasKeyShape(sc) {
		return CategorySecret, true
	}
	if hasIBAN(sc) {
		return CategoryIBAN, true
	}
	if hasPaymentCard(sc) {
		return CategoryPaymentCard, true
	}
	if hasDateOfBirth(sc, rs) {
		return CategoryDateOfBirth, true
	}
	if cat := contextValue(sc, rs); cat != "" {
		return cat, true
	}
	if hasSecretWords(sc, rs) {
		return CategorySecret, true
	}
	if sc.digits > 0 && matchAny(rs.address, sc) {
		return CategoryStreetAddress, true
	}
	if hasLongToken(sc) {
		return CategorySecret, true
	}
	if cat := bareNumber(sc); cat != "" {
		return cat, true
	}
	return "", false
}
