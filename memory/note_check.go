package memory

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"concierge/memory/guard"
)

// The categories a note can be refused for. They are stable strings, used
// as metric labels and in blocked-write records. The rules' own (the
// sensitive data, instructions, scripts they cannot read, broken text) are
// guard's; the others come from the note checks and the model layer.
const (
	CategorySSN              = guard.CategorySSN
	CategoryPaymentCard      = guard.CategoryPaymentCard
	CategoryIBAN             = guard.CategoryIBAN
	CategoryPassportNumber   = guard.CategoryPassportNumber
	CategoryDateOfBirth      = guard.CategoryDateOfBirth
	CategoryStreetAddress    = guard.CategoryStreetAddress
	CategorySecret           = guard.CategorySecret
	CategoryBookingReference = guard.CategoryBookingReference
	CategoryAccountNumber    = guard.CategoryAccountNumber
	CategoryPhone            = guard.CategoryPhone
	CategoryEmail            = guard.CategoryEmail
	CategoryInstruction      = guard.CategoryInstruction
	CategoryUnreadable       = guard.CategoryUnreadable
	CategoryBadEncoding      = guard.CategoryBadEncoding
	// CategorySensitive and CategoryGuess come from the optional model
	// layer: sensitive data the rules did not name, and a note that is the
	// assistant's inference rather than what the traveler said.
	CategorySensitive   = "sensitive_data"
	CategoryGuess       = "guess"
	CategoryTooLong     = "too_long"
	CategoryBadFormat   = "bad_format"
	CategoryBadKeywords = "bad_keywords"
	CategorySessionCap  = "session_cap"
	CategoryUserCap     = "user_cap"
)

// BlockedCategories lists every refusal category, sensitive ones first.
func BlockedCategories() []string {
	return []string{
		CategorySSN, CategoryPaymentCard, CategoryIBAN, CategoryPassportNumber,
		CategoryDateOfBirth, CategoryStreetAddress, CategorySecret,
		CategoryBookingReference, CategoryAccountNumber, CategoryPhone, CategoryEmail,
		CategoryInstruction, CategorySensitive, CategoryGuess, CategoryTooLong, CategoryBadFormat, CategoryBadKeywords,
		CategorySessionCap, CategoryUserCap, CategoryUnreadable, CategoryBadEncoding,
	}
}

// MaxNoteChars is the longest note text accepted, in characters.
const MaxNoteChars = 180

// Default limits on how many notes a session and a user may hold.
const (
	DefaultMaxSessionNotes = 12
	DefaultMaxGlobalNotes  = 200
)

// Limits bounds how many notes a session and a user may hold. Zero values
// mean the defaults.
type Limits struct {
	MaxSessionNotes int // default 12
	MaxGlobalNotes  int // default 200
}

func (l Limits) withDefaults() Limits {
	if l.MaxSessionNotes <= 0 {
		l.MaxSessionNotes = DefaultMaxSessionNotes
	}
	if l.MaxGlobalNotes <= 0 {
		l.MaxGlobalNotes = DefaultMaxGlobalNotes
	}
	return l
}

// Refusal says why a save_memory_note call was refused. Message is meant for
// the model (what to fix) and never contains the refused text.
type Refusal struct {
	Category string
	Message  string
}

// Error makes a Refusal usable as an error.
func (r *Refusal) Error() string { return "memory: note refused (" + r.Category + "): " + r.Message }

// refusalMessages tell the model what to do instead; none echoes the note.
var refusalMessages = map[string]string{
	CategorySSN:              "Not saved: the note contains a social-security-like number. Never store government identifiers; save only the preference itself.",
	CategoryPaymentCard:      "Not saved: the note contains a payment card number. Never store card details; payment is handled by the booking tools.",
	CategoryIBAN:             "Not saved: the note contains a bank account (IBAN). Never store bank details.",
	CategoryPassportNumber:   "Not saved: the note contains a passport-like number. Identity documents stay in the profile, not in notes.",
	CategoryDateOfBirth:      "Not saved: the note contains a full date of birth. Leave the date out.",
	CategoryStreetAddress:    "Not saved: the note contains a street address. Keep at most the city or neighbourhood.",
	CategorySecret:           "Not saved: the note contains a password, PIN, key or one-time code. Never store secrets and do not repeat them.",
	CategoryBookingReference: "Not saved: the note contains a booking reference. References live with the booking, not in memory.",
	CategoryAccountNumber:    "Not saved: the note contains an account or membership number. Keep the programme or status, drop the number.",
	CategoryPhone:            "Not saved: the note contains a phone number. Contact details stay in the profile, not in notes.",
	CategoryEmail:            "Not saved: the note contains an e-mail address. Contact details stay in the profile, not in notes.",
	CategorySensitive:        "Not saved: the note contains personal data that must not be stored. Save only the preference itself.",
	CategoryGuess:            "Not saved: the note reads as a guess or an inference, not something the traveler said. Save only what the traveler stated.",
	CategoryInstruction:      "Not saved: notes record facts about the traveler, not instructions to the assistant, role markers or prompt tags. Rephrase as a plain preference, or do not save it.",
	CategoryTooLong:          "Not saved: the note is longer than 180 characters. Shorten it to one short sentence.",
	CategoryBadFormat:        "Not saved: the note must be one or two short sentences with scope durable or this_trip.",
	CategoryBadKeywords:      "Not saved: give 1 to 3 keywords, each a single lowercase word without numbers or personal data.",
	CategorySessionCap:       "Not saved: this session already holds the maximum number of notes. Save only what matters most; nothing more can be stored in this session.",
	CategoryUserCap:          "Not saved: this traveler already has the maximum number of long-term notes. Do not retry; staff can tidy the memory.",
	CategoryBadEncoding:      "Not saved: the note is not valid text (broken characters or a lone surrogate). Write it again in plain text.",
}

func refuse(category string) *Refusal {
	if category == CategoryUnreadable {
		return &Refusal{Category: category, Message: "Not saved: the note is written in a script the memory checks cannot read. Notes are checked in " +
			strings.Join(guard.Languages(), ", ") + "; write the note in one of them."}
	}
	return &Refusal{Category: category, Message: refusalMessages[category]}
}

// CheckNote vets one save_memory_note call before anything is written. It
// returns the arguments normalised (text trimmed with inner whitespace
// collapsed, keywords trimmed, lowercased and de-duplicated) or a Refusal.
// Sensitive and instruction-like content is reported before length, format
// and caps, so a blocked write is always counted under its real category.
// sessionCount and globalCount are the notes the session and the user hold
// now; the user cap is only hit when globalCount exceeds the limit, because
// consolidation prunes every user back down to it.
func CheckNote(args SaveNoteArgs, sessionCount, globalCount int, lim Limits) (SaveNoteArgs, *Refusal) {
	return CheckNoteIn(NoteContext{}, args, sessionCount, globalCount, lim)
}

// NoteContext is what the guard knows about where a note is being written
// (see guard.Context).
type NoteContext struct {
	// Previous are the session's earlier notes, oldest first: the rules
	// also read the new note joined to them, so an instruction or a number
	// split over two notes is refused when its second half arrives.
	Previous []string
	// Reviewed says the model layer (NoteClassifier) reviews what the rules
	// pass: a note in a script no language file covers is then left to it
	// instead of being refused as CategoryUnreadable.
	Reviewed bool
}

// CheckNoteIn is CheckNote for a note written in a context: the session's
// earlier notes and whether the model layer reviews it (see NoteContext).
func CheckNoteIn(nc NoteContext, args SaveNoteArgs, sessionCount, globalCount int, lim Limits) (SaveNoteArgs, *Refusal) {
	lim = lim.withDefaults()
	norm := SaveNoteArgs{Text: CollapseSpace(args.Text), Scope: args.Scope}
	if norm.Text == "" {
		return norm, refuse(CategoryBadFormat)
	}
	if cat, blocked := guard.ScreenTextIn(guard.Context{Previous: nc.Previous, Reviewed: nc.Reviewed}, norm.Text); blocked {
		return SaveNoteArgs{}, refuse(cat)
	}
	if utf8.RuneCountInString(norm.Text) > MaxNoteChars {
		return norm, refuse(CategoryTooLong)
	}
	if sentenceCount(norm.Text) > 2 || (norm.Scope != ScopeDurable && norm.Scope != ScopeThisTrip) {
		return norm, refuse(CategoryBadFormat)
	}
	seen := map[string]bool{}
	for _, k := range args.Keywords {
		k = strings.ToLower(strings.TrimSpace(k))
		if !validKeyword(k) {
			return norm, refuse(CategoryBadKeywords)
		}
		if !seen[k] {
			seen[k] = true
			norm.Keywords = append(norm.Keywords, k)
		}
	}
	if len(norm.Keywords) < 1 || len(norm.Keywords) > 3 {
		return norm, refuse(CategoryBadKeywords)
	}
	if sessionCount >= lim.MaxSessionNotes {
		return norm, refuse(CategorySessionCap)
	}
	if globalCount > lim.MaxGlobalNotes {
		return norm, refuse(CategoryUserCap)
	}
	return norm, nil
}

// validKeyword accepts one lowercase word: letters, then letters, digits or
// hyphens, at most 30 characters and at most two digits (anything more
// numeric is more likely an identifier than a topic).
func validKeyword(k string) bool {
	if k == "" || utf8.RuneCountInString(k) > 30 {
		return false
	}
	digits := 0
	for i, r := range k {
		switch {
		case unicode.IsLower(r) || (unicode.IsLetter(r) && !unicode.IsUpper(r)):
		case unicode.IsDigit(r) && i > 0:
			digits++
		case r == '-' && i > 0:
		default:
			return false
		}
	}
	return digits <= 2
}

// CollapseSpace trims text and turns every run of whitespace into one space.
func CollapseSpace(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// abbreviations end with a dot without ending a sentence.
var abbreviations = SetOf("mr", "mrs", "ms", "dr", "st", "e.g", "i.e", "etc", "vs", "approx", "no", "jr", "sr", "a.m", "p.m", "u.s", "u.k", "min", "hrs", "ave", "mt", "ft")

// sentenceCount counts sentences, ignoring the dots of abbreviations,
// initials and decimals.
func sentenceCount(s string) int {
	count := 0
	segmentHasText := false
	runes := []rune(s)
	for i := 0; i < len(runes); i++ {
		r := runes[i]
		if r != '.' && r != '!' && r != '?' {
			if !unicode.IsSpace(r) {
				segmentHasText = true
			}
			continue
		}
		j := i
		for j+1 < len(runes) && (runes[j+1] == '.' || runes[j+1] == '!' || runes[j+1] == '?') {
			j++
		}
		atEnd := j+1 >= len(runes)
		if !atEnd && !unicode.IsSpace(runes[j+1]) {
			i = j
			continue // "2.5", "a.m"
		}
		if r == '.' && j == i {
			k := i
			for k > 0 && !unicode.IsSpace(runes[k-1]) {
				k--
			}
			prev := strings.ToLower(string(runes[k:i]))
			if abbreviations[prev] || utf8.RuneCountInString(prev) == 1 {
				i = j
				continue
			}
		}
		if segmentHasText {
			count++
			segmentHasText = false
		}
		i = j
	}
	if segmentHasText {
		count++
	}
	return count
}

// CheckProfile screens what a profile would put in the prompt before it is
// saved: every key and every text value outside the private fields (which
// never reach the prompt), for instructions, role markers and delimiters.
// The profile is a trusted record that holds identifiers by design (as
// private fields), so the sensitive-data checks do not apply to it.
func CheckProfile(p Profile) *Refusal {
	if profileHasInstruction(map[string]any(p)) {
		return refuse(CategoryInstruction)
	}
	return nil
}

func profileHasInstruction(v any) bool {
	text := guard.IsInstruction
	switch x := v.(type) {
	case map[string]any:
		for k, val := range x {
			if text(k) || !IsPrivateField(k) && profileHasInstruction(val) {
				return true
			}
		}
	case Profile:
		return profileHasInstruction(map[string]any(x))
	case []any:
		for _, val := range x {
			if profileHasInstruction(val) {
				return true
			}
		}
	case string:
		return text(x)
	case fmt.Stringer: // json.Number
		return text(x.String())
	}
	return false
}

// Warm compiles what the guard and the token counter otherwise build on
// first use: the language files' rules and the model's encoding, a few hundred
// milliseconds of CPU. The server runs it as it starts, so the first turns
// after a start (a burst after a deploy) do not all wait on it.
func Warm(model string) {
	guard.Warm()
	NewTokenCounter(model)
}
