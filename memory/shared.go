package memory

// The word tests the packages under memory (prompt, longchat) share with
// this one, over sets this package keeps unexported.

// IsStopword reports whether w, lowercase, carries no meaning of its own.
func IsStopword(w string) bool { return stopwords[w] }

// IsNegator reports whether w, lowercase, flips a statement's polarity.
func IsNegator(w string) bool { return negators[w] }
