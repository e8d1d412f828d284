package memory

// The text handling the packages under memory (prompt, longchat) share
// with this one. The lowercase forms are this package's own names for the
// same functions.

// Words splits text into lowercase words (see words).
func Words(text string) []string { return words(text) }

// SetOf is a set of words.
func SetOf(ws ...string) map[string]bool { return setOf(ws...) }

// IsStopword reports whether w, lowercase, carries no meaning of its own.
func IsStopword(w string) bool { return stopwords[w] }

// IsNegator reports whether w, lowercase, flips a statement's polarity.
func IsNegator(w string) bool { return negators[w] }

// Stem is a lowercase word's stem (see stem).
func Stem(w string) string { return stem(w) }

// CounterOr is c, or the estimate when c is nil.
func CounterOr(c TokenCounter) TokenCounter { return counterOr(c) }

// DayNumber parses a YYYY-MM-DD date into days since 1970-01-01.
func DayNumber(s string) (int, bool) { return dayNumber(s) }

// Expired reports whether n expired before today (see expired).
func Expired(n Note, today string) bool { return expired(n, today) }

// ValidDate reports whether s is a real YYYY-MM-DD date.
func ValidDate(s string) bool { return validDate(s) }
