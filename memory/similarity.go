package memory

import (
	"regexp"
	"slices"
	"strings"
)

// DuplicateThreshold is the token-set (Jaccard) similarity at or above which
// two notes of the same polarity that do not conflict are near duplicates.
// Similarity is computed over content words after lowercasing, dropping
// stopwords and folding plurals and a few synonyms (likes/prefers/wants):
//
//	"Prefers aisle seats."  vs "Likes an aisle seat."                    1.00 duplicate
//	"Prefers aisle seats."  vs "Prefers aisle seats on flights."         0.75 duplicate
//	"Is vegetarian."        vs "Is a vegetarian."                        1.00 duplicate
//	"Prefers aisle seats."  vs "Prefers aisle seats on flights over 2 hours." 0.43 kept apart
//	"Likes central, walkable neighbourhoods." vs "Likes central walkable areas." 0.60 kept apart
//	"Likes window seats."   vs "Does not like window seats."             opposite polarity: a conflict
const DuplicateThreshold = 0.7

// residualThreshold is how similar two notes must be once the contested
// values (aisle/window, vegetarian/vegan…) are removed for them to be about
// the same thing. It keeps "Wants a window seat on overnight flights" from
// overriding a plain "Prefers aisle seats" (residual 0.5, no conflict)
// while "Prefers window seats" does (residual 1.0).
const residualThreshold = 0.6

// polarityThreshold is the similarity above which a note and its negation
// ("Likes red-eye flights" / "Avoids red-eye flights") are a conflict; with a
// shared keyword polarityKeywordThreshold suffices.
const (
	polarityThreshold        = 0.6
	polarityKeywordThreshold = 0.4
)

// axis is one topic on which a traveler holds exactly one value at a time.
type axis struct {
	name     string
	triggers []string // stems that must appear for the axis to apply (any)
	values   []string // mutually exclusive stems
}

// contradictions is the small vocabulary of mutually exclusive preferences.
var contradictions = []axis{
	{name: "seat", triggers: []string{"seat", "aisle", "seating"}, values: []string{"aisle", "window", "middle"}},
	{name: "diet", triggers: []string{"vegetarian", "vegan", "pescatarian", "omnivore"}, values: []string{"vegetarian", "vegan", "pescatarian", "omnivore"}},
	{name: "floor", triggers: []string{"floor"}, values: []string{"high", "low", "ground"}},
	{name: "cabin", triggers: []string{"class", "cabin", "economy"}, values: []string{"economy", "premium", "business", "first"}},
	{name: "bed", triggers: []string{"bed"}, values: []string{"king", "queen", "twin", "double", "single"}},
}

// axisWords are all contested values, removed before the residual check.
var axisWords = func() map[string]bool {
	m := map[string]bool{}
	for _, a := range contradictions {
		for _, v := range a.values {
			m[v] = true
		}
	}
	return m
}()

func axisValues(_ string, content []string) map[string][]string {
	var out map[string][]string
	for _, a := range contradictions {
		triggered := false
		for _, t := range a.triggers {
			if _, ok := slices.BinarySearch(content, t); ok {
				triggered = true
				break
			}
		}
		if !triggered {
			continue
		}
		var vals []string
		for _, v := range a.values {
			if _, ok := slices.BinarySearch(content, v); ok {
				vals = append(vals, v)
			}
		}
		if len(vals) > 0 {
			if out == nil {
				out = map[string][]string{}
			}
			out[a.name] = vals
		}
	}
	return out
}

// cityRe finds where a traveler lives. City names must be capitalised: that
// is what separates "Lives in Pune" from "lives in a quiet suburb".
var cityRe = regexp.MustCompile(`(?:\b[Ll]ives|\b[Ll]iving|\b[Ll]ive|\b[Bb]ased|\b[Rr]esides|\b[Rr]esiding|\b[Mm]oved|\b[Rr]elocated|\b[Hh]ome\s+(?:city|town|base)\s+is)\s+(?:(?:in|to|now|at)\s+)*(?:the\s+)?(\p{Lu}[\p{L}'-]*(?:\s+\p{Lu}[\p{L}'-]*)*)`)

// cityCues are the lowercase fragments cityRe needs; checking them first
// spares the expression on the vast majority of notes.
var cityCues = []string{"live", "living", "based", "resid", "moved", "relocated", "home"}

func cityOf(text, lower string) string {
	if !slices.ContainsFunc(cityCues, func(c string) bool { return strings.Contains(lower, c) }) {
		return ""
	}
	m := cityRe.FindStringSubmatch(text)
	if m == nil {
		return ""
	}
	return strings.ToLower(m[1])
}

// Conflict reports whether two notes contradict each other on one topic and
// says why. It recognises three shapes, each deliberately narrow:
//   - different home cities ("Lives in Pune." / "Lives in Bengaluru.");
//   - disjoint values on a contradiction axis when the rest of the two notes
//     is about the same thing ("Prefers aisle seats." / "Prefers window seats.");
//   - the same statement with opposite polarity ("Likes red-eyes." / "Avoids red-eyes.").
func Conflict(a, b Features, sharedKeyword func() bool) (bool, string) {
	if a.city != "" && b.city != "" && a.city != b.city {
		return true, "home city changed"
	}
	for _, ax := range contradictions {
		va, vb := a.axes[ax.name], b.axes[ax.name]
		if len(va) == 0 || len(vb) == 0 || intersects(va, vb) {
			continue
		}
		if Jaccard(without(a.Content, axisWords), without(b.Content, axisWords)) >= residualThreshold {
			return true, ax.name + " preference changed (" + strings.Join(vb, "/") + " → " + strings.Join(va, "/") + ")"
		}
	}
	if a.Negative != b.Negative && len(a.Content) > 0 && len(b.Content) > 0 {
		sim := Jaccard(a.Content, b.Content)
		if sim >= polarityThreshold || (sim >= polarityKeywordThreshold && sharedKeyword()) {
			return true, "opposite statement on the same topic"
		}
	}
	return false, ""
}

// Duplicate reports whether two non-conflicting notes say the same thing.
func Duplicate(a, b Features) bool {
	if a.Negative != b.Negative {
		return false
	}
	// |a∩b|/|a∪b| ≤ min/max, so very different sizes cannot reach the threshold.
	short, long := min(len(a.Content), len(b.Content)), max(len(a.Content), len(b.Content))
	if long > 0 && float64(short)/float64(long) < DuplicateThreshold {
		return false
	}
	return Jaccard(a.Content, b.Content) >= DuplicateThreshold
}

func intersects(a, b []string) bool {
	for _, x := range a {
		if slices.Contains(b, x) {
			return true
		}
	}
	return false
}

// SharesKeyword reports whether two notes' keywords share one, ignoring case.
func SharesKeyword(a, b []string) bool {
	for _, x := range a {
		for _, y := range b {
			if strings.EqualFold(x, y) {
				return true
			}
		}
	}
	return false
}
