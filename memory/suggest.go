package memory

// SuggestKeywords picks up to three keywords for a note someone wrote in
// their own words without choosing any: its topic words in the order they
// appear, skipping stopwords, negations, the verbs of preference ("prefers",
// "likes"), words under three letters and anything CheckNote would not
// accept as a keyword (digit-heavy words look like identifiers). CheckNote
// still validates the result.
func SuggestKeywords(text string) []string {
	var out []string
	seen := map[string]bool{}
	for _, w := range words(text) {
		if len([]rune(w)) < 3 || stopwords[w] || negators[w] || stem(w) == "prefer" || !validKeyword(w) {
			continue
		}
		if seen[w] {
			continue
		}
		seen[w] = true
		out = append(out, w)
		if len(out) == 3 {
			break
		}
	}
	return out
}
