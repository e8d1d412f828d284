package memory

import "sort"

// notTopics are words that carry no topic in a keyword, though they can
// matter in a note's text (and so are not stopwords): numbers, comparisons
// and the small verbs of a request.
var notTopics = SetOf(
	"one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
	"under", "over", "before", "after", "about", "around", "less", "fewer", "least",
	"please", "need", "needs", "get", "gets", "make", "take", "like", "want", "thing", "things",
)

// SuggestKeywords picks up to three keywords for a note someone wrote in
// their own words without choosing any: its longest topic words, in the
// order they appear, skipping stopwords, negations, the verbs of
// preference ("prefers", "likes"), numbers and comparisons, words under
// three letters and anything CheckNote would not accept as a keyword
// (digit-heavy words look like identifiers). CheckNote still validates
// the result.
func SuggestKeywords(text string) []string {
	type cand struct {
		w   string
		pos int
	}
	var cands []cand
	seen := map[string]bool{}
	for _, w := range Words(text) {
		if len([]rune(w)) < 3 || stopwords[w] || negators[w] || notTopics[w] || Stem(w) == "prefer" || !validKeyword(w) || seen[w] {
			continue
		}
		seen[w] = true
		cands = append(cands, cand{w, len(cands)})
	}
	sort.SliceStable(cands, func(i, j int) bool { return len([]rune(cands[i].w)) > len([]rune(cands[j].w)) })
	if len(cands) > 3 {
		cands = cands[:3]
	}
	sort.Slice(cands, func(i, j int) bool { return cands[i].pos < cands[j].pos })
	out := make([]string, len(cands))
	for i, c := range cands {
		out[i] = c.w
	}
	if len(out) == 0 {
		return nil
	}
	return out
}
