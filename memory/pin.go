package memory

import "strings"

// pinStems are the word beginnings of allergies, medical and accessibility
// needs: the notes whose absence could cause harm.
var pinStems = []string{
	"allerg", "anaphyla", "epipen", "celiac", "coeliac", "diabet", "insulin",
	"asthma", "inhaler", "epilep", "seizure", "pacemaker", "dialysis", "cpap", "oxygen",
	"medical", "medicat", "pregnan", "wheelchair", "mobility", "accessib",
	"disabilit", "disabled", "deaf", "blind", "hearing", "visually", "crutch", "intoleran",
}

// pinStemsByFirst indexes pinStems by first byte.
var pinStemsByFirst = func() (t [256][]string) {
	for _, p := range pinStems {
		t[p[0]] = append(t[p[0]], p)
	}
	return t
}()

// pinPhrases are the multi-word needs pinStems cannot catch.
var pinPhrases = []string{"service dog", "service animal", "guide dog", "epi-pen", "step-free", "step free"}

// pinWorthy reports whether a note's stemmed words or lowercase text are
// about an allergy, a medical or an accessibility need.
func pinWorthy(content []string, lower string) bool {
	for _, w := range content {
		if w == "" {
			continue
		}
		for _, p := range pinStemsByFirst[w[0]] {
			if strings.HasPrefix(w, p) {
				return true
			}
		}
	}
	for _, p := range pinPhrases {
		if strings.Contains(lower, p) {
			return true
		}
	}
	return false
}

func keywordsNeedPin(keywords []string) bool {
	for _, k := range keywords {
		if pinWorthy([]string{strings.ToLower(k)}, "") {
			return true
		}
	}
	return false
}

// NeedsPin reports whether a note with these text features and keywords is
// about an allergy, a medical or an accessibility need: consolidation pins
// such notes.
func NeedsPin(f Features, keywords []string) bool {
	return f.pin || keywordsNeedPin(keywords)
}
