package memory

import (
	"errors"
	"fmt"
)

// Error codes: the stable, machine-readable reasons a domain operation
// refuses, shared by every package. The HTTP layer translates each code to
// a status in one place (handlers/errors.go); the codes double as the
// "code" field of API errors.
const (
	ENOTFOUND      = "not_found"          // the thing does not exist (or is not yours)
	ECONFLICT      = "conflict"           // the write collides with existing data
	EINVALID       = "invalid"            // the input is not acceptable
	ESESSIONCLOSED = "session_closed"     // the conversation no longer takes messages
	ENOTSTORED     = "not_stored"         // another instance holds the conversation; nothing was written
	EANSWERING     = "answer_in_progress" // the message is stored and another instance is answering it
	EKEYREUSED     = "idempotency_key_reused"
	ESELFERASURE   = "self_erasure" // an admin tried to erase their own account
	ENOTEREFUSED   = "note_refused" // the guard refused a note (Error.Note says why)
	ENOTEDITABLE   = "not_editable" // the note is not an active long-term note
	ECANNOTPIN     = "cannot_pin"   // travelers do not pin notes; staff pin safety needs
	ENOTHING       = "nothing_to_change"
	EEMAILTAKEN    = "email_taken"     // another account has this email
	EBADEMAIL      = "invalid_email"   // not an email address
	EBADROLE       = "bad_role"        // not traveler, support or admin
	EWEAKPASSWORD  = "weak_password"   // the password policy refuses it
	EBUSY          = "busy"            // the conversation is being answered or wrapped up
	ENOTFAILED     = "not_failed"      // only a failed consolidation can be re-run
	EOWNACCOUNT    = "own_account"     // an admin cannot do this to their own account
	EBADPROFILE    = "invalid_profile" // the profile does not match its JSON Schema (Error.Field names where)
	EINTERNAL      = "internal"
)

// Error codes of the rules for staff changes, accounts, conversations,
// messages and erasure.
const (
	ENOREASON      = "reason_required"    // a staff change carries no reason for the audit trail
	EREASONTOOLONG = "reason_too_long"    // a staff change's reason is over its limit
	ENONAME        = "name_required"      // an account needs a name
	ETOOLONG       = "too_long"           // a conversation's title is over its limit
	ETOOLARGE      = "too_large"          // a chat message is over its limit
	EBADREASON     = "bad_reason"         // an erasure's reason is not one of the listed codes
	EBADTICKET     = "bad_ticket"         // an erasure's ticket is not an opaque reference
	EERASEPARTIAL  = "erasure_incomplete" // the rows are gone; scrubbing or verifying did not finish
)

// Error is a domain failure with a code and a message written for people
// (never holding message or note text). Sentinels such as
// models.ErrNotFound are *Error values, so errors.Is and errors.As both
// work through wrapping.
type Error struct {
	Code    string
	Message string
	// Turn is the stored message's turn, for EANSWERING.
	Turn int
	// Note is the guard's verdict, for ENOTEREFUSED: the HTTP layer words
	// it for whoever wrote the note.
	Note *NoteRefusal
	// Field is the JSON path of the refused value, for EBADPROFILE.
	Field string
}

// NoteRefusal is why a note was not written, without its text.
type NoteRefusal struct {
	*Refusal
	// Own is set when the traveler wrote the note in their own words.
	Own bool
	// Chars is the note's length in characters, for CategoryTooLong.
	Chars int
}

func (e *Error) Error() string { return fmt.Sprintf("%s: %s", e.Code, e.Message) }

// Is matches another *Error with the same code and message, so that a
// copy carrying extra detail (Turn) still matches its sentinel.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Code == e.Code && t.Message == e.Message
}

// Errorf returns an *Error with code and a formatted message.
func Errorf(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// ErrorCode returns the code of the first *Error in err's chain, EINTERNAL
// for any other error and "" for nil.
func ErrorCode(err error) string {
	var e *Error
	switch {
	case err == nil:
		return ""
	case errors.As(err, &e):
		return e.Code
	}
	return EINTERNAL
}

// ErrorMessage returns the people's message of the first *Error in err's
// chain, or a generic one for any other error.
func ErrorMessage(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Message
	}
	return "Something went wrong on our side. Please try again."
}
