package models

import (
	"errors"
	"strings"
	"unicode/utf8"

	"concierge/memory"
)

// The rules for the inputs that writes carry beside their data: a staff
// change's reason, an account's name, a chat message, a conversation's
// title. Each refusal is a memory.Error, which the HTTP layer maps once.

// MaxReasonChars bounds the reason staff give for a change.
const MaxReasonChars = 500

// MaxMessageChars bounds one chat message.
const MaxMessageChars = 4000

// Refusals of those inputs.
var (
	ErrNoReason      = &memory.Error{Code: memory.ENOREASON, Message: "Give a reason for this change; it is kept in the audit trail."}
	ErrReasonTooLong = &memory.Error{Code: memory.EREASONTOOLONG, Message: "Keep the reason under 500 characters."}
	ErrNoName        = &memory.Error{Code: memory.ENONAME, Message: "Give the account a name."}
	ErrMessageTooBig = &memory.Error{Code: memory.ETOOLARGE, Message: "Messages are limited to 4,000 characters."}
	ErrTitleTooLong  = &memory.Error{Code: memory.ETOOLONG, Message: "Keep the name under 80 characters."}
	// ErrWrongPassword is a password change's refusal of the current
	// password (where a sign-in answers ErrBadCredentials).
	ErrWrongPassword = errors.New("the current password is not right")
)

// CheckReason returns a staff change's reason with its whitespace folded,
// refusing an empty one and one over MaxReasonChars.
func CheckReason(reason string) (string, error) {
	reason = strings.Join(strings.Fields(reason), " ")
	if reason == "" {
		return "", ErrNoReason
	}
	if utf8.RuneCountInString(reason) > MaxReasonChars {
		return "", ErrReasonTooLong
	}
	return reason, nil
}

// CheckAccountName refuses an account without a name.
func CheckAccountName(name string) error {
	if strings.TrimSpace(name) == "" {
		return ErrNoName
	}
	return nil
}

// CheckMessageSize refuses a chat message over MaxMessageChars.
func CheckMessageSize(content string) error {
	if utf8.RuneCountInString(content) > MaxMessageChars {
		return ErrMessageTooBig
	}
	return nil
}
