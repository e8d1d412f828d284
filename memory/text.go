package memory

import (
	"slices"
	"strings"
	"unicode"
)

// stopwords carry no topic. Negations are deliberately absent (they flip a
// note's meaning and are tracked as polarity), and so are comparison words
// such as over/under/before/after, which often are the whole point of a note.
var stopwords = SetOf(
	"a", "an", "the", "to", "of", "in", "on", "at", "for", "and", "or", "with",
	"is", "are", "was", "were", "be", "been", "being", "am", "i", "he", "she",
	"they", "them", "their", "his", "her", "this", "that", "these", "those",
	"it", "its", "as", "by", "from", "into", "than", "then", "when", "while",
	"very", "really", "usually", "always", "often", "also", "just", "only",
	"has", "have", "had", "do", "does", "did", "my", "me", "we", "our", "us",
	"who", "which", "what", "will", "would", "should", "can", "could", "so",
	"traveler", "traveller", "user", "customer", "some", "any", "more", "most",
	"s", "t", "d", "ll", "re", "ve", "m",
)

// canonical folds the handful of words travelers use interchangeably, so
// that "Likes aisle seats" and "Prefers an aisle seat" compare as equal.
var canonical = map[string]string{
	"prefers": "prefer", "preferred": "prefer", "preference": "prefer", "preferences": "prefer",
	"likes": "prefer", "like": "prefer", "liked": "prefer", "loves": "prefer", "love": "prefer",
	"enjoys": "prefer", "enjoy": "prefer", "wants": "prefer", "want": "prefer",
	"favours": "prefer", "favors": "prefer", "favour": "prefer", "favor": "prefer",
	"allergic": "allergy", "allergies": "allergy",
	"lives": "live", "living": "live", "lived": "live", "resides": "live", "reside": "live",
	"residing": "live", "based": "live",
	"neighbourhood": "neighborhood", "neighbourhoods": "neighborhood", "neighborhoods": "neighborhood",
	"centre": "center", "central": "center", "favourite": "favorite", "travelling": "travel",
	"traveling": "travel", "travels": "travel", "flights": "flight", "flying": "fly", "flies": "fly",
	"rooms": "room", "floors": "floor", "seats": "seat", "bags": "bag", "kids": "kid", "children": "kid",
	"non-vegetarian": "omnivore", "nonvegetarian": "omnivore",
}

// negators flip the polarity of a note.
var negators = SetOf(
	"not", "no", "never", "avoid", "avoids", "avoided", "avoiding", "dislike", "dislikes",
	"hate", "hates", "don't", "doesn't", "dont", "doesnt", "won't", "cannot", "can't", "refuses",
)

// SetOf is a set of words.
func SetOf(ws ...string) map[string]bool {
	m := make(map[string]bool, len(ws))
	for _, w := range ws {
		m[w] = true
	}
	return m
}

// Words splits text into lowercase words: letters and digits, with inner
// hyphens and apostrophes kept ("non-vegetarian", "doesn't").
func Words(text string) []string {
	return lowerWords(strings.ToLower(text))
}

// lowerWords is Words for text that is already lowercase.
func lowerWords(lower string) []string {
	out := make([]string, 0, 12)
	ascii := true
	for i := 0; i < len(lower); i++ {
		if lower[i] >= 0x80 {
			ascii = false
			break
		}
	}
	if ascii {
		isWord := func(c byte) bool { return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' }
		start := -1
		for i := 0; i <= len(lower); i++ {
			in := false
			if i < len(lower) {
				c := lower[i]
				in = isWord(c) || (c == '-' || c == '\'') && start >= 0 && i+1 < len(lower) && isWord(lower[i+1])
			}
			if in && start < 0 {
				start = i
			}
			if !in && start >= 0 {
				out = append(out, lower[start:i])
				start = -1
			}
		}
		return out
	}
	isWordRune := func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }
	runes := []rune(lower)
	start := -1
	for i := 0; i <= len(runes); i++ {
		inWord := false
		if i < len(runes) {
			r := runes[i]
			switch {
			case isWordRune(r):
				inWord = true
			case (r == '-' || r == '\'' || r == '’') && start >= 0 && i+1 < len(runes) && isWordRune(runes[i+1]):
				inWord = true
			}
		}
		if inWord && start < 0 {
			start = i
		}
		if !inWord && start >= 0 {
			out = append(out, strings.ReplaceAll(string(runes[start:i]), "’", "'"))
			start = -1
		}
	}
	return out
}

// Stem folds a lowercase word to a rough base form: synonyms first, then
// plural and -ing/-ed endings. It is deliberately crude; it only has to make
// two phrasings of the same short note meet.
func Stem(w string) string {
	if c, ok := canonical[w]; ok {
		return c
	}
	n := len(w)
	switch {
	case n > 4 && strings.HasSuffix(w, "ies"):
		w = w[:n-3] + "y"
	case n > 5 && strings.HasSuffix(w, "ing"):
		w = w[:n-3]
	case n > 4 && strings.HasSuffix(w, "ed") && !strings.HasSuffix(w, "eed"):
		w = w[:n-2]
	case n > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") &&
		!strings.HasSuffix(w, "us") && !strings.HasSuffix(w, "is"):
		w = w[:n-1]
	}
	if c, ok := canonical[w]; ok {
		return c
	}
	return w
}

// Features are the comparable parts of a note, computed once per note.
type Features struct {
	Content  []string // sorted, distinct stems without stopwords or negators
	Negative bool     // the note contains a negator
	axes     map[string][]string
	city     string // lowercase city from "lives in X", "" if none
	pin      bool   // about an allergy, a medical or an accessibility need
}

// FeaturesOf computes a note text's Features.
func FeaturesOf(text string) Features {
	var f Features
	lower := strings.ToLower(text)
	var ws []string
	for _, w := range lowerWords(lower) {
		if _, ok := canonical[w]; !ok && strings.ContainsRune(w, '-') {
			ws = append(ws, strings.Split(w, "-")...) // "high-floor" → high, floor
			continue
		}
		ws = append(ws, w)
	}
	for _, w := range ws {
		if negators[w] {
			f.Negative = true
			continue
		}
		if stopwords[w] {
			continue
		}
		if s := Stem(w); !stopwords[s] {
			f.Content = append(f.Content, s)
		}
	}
	slices.Sort(f.Content)
	f.Content = slices.Compact(f.Content)
	f.axes = axisValues(text, f.Content)
	f.city = cityOf(text, lower)
	f.pin = pinWorthy(f.Content, lower)
	return f
}

// Jaccard is |a∩b| / |a∪b| over two sorted, distinct slices; two empty sets
// are identical.
func Jaccard(a, b []string) float64 {
	if len(a) == 0 && len(b) == 0 {
		return 1
	}
	inter := 0
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i] == b[j]:
			inter++
			i++
			j++
		case a[i] < b[j]:
			i++
		default:
			j++
		}
	}
	union := len(a) + len(b) - inter
	return float64(inter) / float64(union)
}

// without returns the sorted slice a minus the words in drop.
func without(a []string, drop map[string]bool) []string {
	out := make([]string, 0, len(a))
	for _, w := range a {
		if !drop[w] {
			out = append(out, w)
		}
	}
	return out
}
