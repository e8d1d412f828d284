package memory

import (
	"time"
)

// EBADEXPIRY refuses an end date a note cannot have: not a date, in the
// past, or more than MaxExpiryAhead ahead.
const EBADEXPIRY = "bad_expiry"

// MaxExpiryAhead is how far ahead a note's end date may lie: a fact that
// holds longer is simply durable.
const MaxExpiryAhead = 2 * 365 * 24 * time.Hour

// CheckExpiry validates a note's end date (YYYY-MM-DD, or "" for none)
// against today (YYYY-MM-DD): it must be today or later and at most two
// years ahead. The message says what is allowed.
func CheckExpiry(date, today string) error {
	if date == "" {
		return nil
	}
	d, err := time.Parse(DateLayout, date)
	t, terr := time.Parse(DateLayout, today)
	if err != nil || terr != nil {
		return &Error{Code: EBADEXPIRY, Message: "The end date must be a date written YYYY-MM-DD, from today up to two years ahead, or empty for none."}
	}
	last := t.AddDate(2, 0, 0)
	if d.Before(t) || d.After(last) {
		return &Error{Code: EBADEXPIRY, Message: "The end date must be from today (" + today + ") up to two years ahead (" +
			last.Format(DateLayout) + "), or empty for none."}
	}
	return nil
}

// LaterExpiry is the later of two end dates, where "" (no end) is later
// than any date: a merge of two notes keeps the fact for as long as either
// said it holds.
func LaterExpiry(a, b string) string {
	if a == "" || b == "" {
		return ""
	}
	return max(a, b)
}

// FormatExpiry renders an end date for people: "31 March 2027"; "" for none.
func FormatExpiry(date string) string {
	d, err := time.Parse(DateLayout, date)
	if err != nil {
		return date
	}
	return d.Format("2 January 2006")
}

// Handle is the short name a note carries in the instructions ("n4k2z"):
// the tools name notes by it, so the model never sees a database id. It is
// derived from the id alone, so it stays the same in every round and turn;
// the server maps it back only among the notes the turn injected or the
// session saved, and refuses a handle two of those share.
func Handle(id string) string {
	const digits = "0123456789abcdefghijklmnopqrstuvwxyz"
	// FNV-1a: fast, stable and well spread; not a secret.
	h := uint32(2166136261)
	for i := 0; i < len(id); i++ {
		h ^= uint32(id[i])
		h *= 16777619
	}
	b := []byte{'n', 0, 0, 0, 0}
	for i := 4; i >= 1; i-- {
		b[i] = digits[h%36]
		h /= 36
	}
	return string(b)
}
