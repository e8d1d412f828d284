package memory

import (
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

// TestCountLinesIsExact checks that counting a long text line by line
// (what the counter does on a miss) gives the encoding's own count of the
// whole text, for both encodings, on texts built to cross every kind of
// line start: letters, digits, punctuation, "/", spaces, tabs, carriage
// returns, blank lines, apostrophes, Cyrillic, CJK and no-break spaces.
func TestCountLinesIsExact(t *testing.T) {
	starts := []string{"- ", "<", "</", "/", " ", "\t", "\r", "\n", "'s ", "’", "1", "12345", "[n3] ", "A", "a", "Ж", "東", "\u00a0", "\u2028", "---", "-", ".", "\"", "(", "#", "_"}
	bodies := []string{
		"Prefers aisle seats. [updated 2024-06-01; pinned]",
		"Предпочитает место у прохода.",
		"Prefiere asientos de pasillo, ¿verdad?",
		"home_city: San Francisco",
		"http://example.com/a/b",
		"   ",
		"",
		"it's what they'll do",
		"1234567 89 0",
		"東京で寿司を食べたい",
		"!!!///",
		"tab\tseparated\tvalues",
	}
	r := rand.New(rand.NewPCG(31, 1))
	texts := []string{strings.Repeat("- Prefers aisle seats.\n", 300)}
	for range 60 {
		var b strings.Builder
		for b.Len() < 6000 {
			b.WriteString(starts[r.IntN(len(starts))])
			b.WriteString(bodies[r.IntN(len(bodies))])
			b.WriteString(strings.Repeat("\n", 1+r.IntN(2)))
		}
		texts = append(texts, b.String())
	}
	for name, c := range map[string]*tiktokenCounter{"o200k": newTiktokenCounter(o200kCodec()), "cl100k": newTiktokenCounter(cl100kCodec())} {
		for i, text := range texts {
			if got, want := c.countLines(text), c.bpe(text); got != want {
				t.Errorf("%s text %d: line by line %d tokens, whole %d", name, i, got, want)
			}
			if got, want := c.Count(text), c.bpe(text); got != want {
				t.Errorf("%s text %d: Count %d tokens, whole %d", name, i, got, want)
			}
		}
	}
}

// BenchmarkCountInstructionsMiss counts a long text never seen before whose
// lines were: the instructions of a new turn.
func BenchmarkCountInstructionsMiss(b *testing.B) {
	c := newTiktokenCounter(o200kCodec())
	var lines strings.Builder
	for i := range 80 {
		lines.WriteString("- A standing order or a note of the traveler, line ")
		lines.WriteString(strings.Repeat("x", i%7))
		lines.WriteString(".\n")
	}
	base := lines.String()
	for i := 0; b.Loop(); i++ {
		c.Count(base + "- Today is turn " + strconv.Itoa(i) + ".\n")
	}
}
