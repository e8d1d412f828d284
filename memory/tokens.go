package memory

import (
	"hash/maphash"
	"strings"
	"sync"

	"github.com/tiktoken-go/tokenizer"
)

// Encoding names returned by EncodingFor.
const (
	EncodingO200k    = "o200k_base"
	EncodingCl100k   = "cl100k_base"
	EncodingEstimate = "estimate"
)

// charsPerToken is the fallback ratio for unknown models. Real BPE
// vocabularies average about four characters per token on English; three
// over-counts on purpose so that budgets are never exceeded.
const charsPerToken = 3

// EncodingFor names the tokenizer NewTokenCounter uses for model:
// EncodingO200k, EncodingCl100k or EncodingEstimate for unknown models.
func EncodingFor(model string) string {
	m := strings.ToLower(strings.TrimSpace(model))
	if i := strings.LastIndexByte(m, '/'); i >= 0 {
		m = m[i+1:] // "openai/gpt-4o" as routers spell it
	}
	m = strings.TrimPrefix(m, "ft:")
	hasFamily := func(families ...string) bool {
		for _, f := range families {
			if m == f || strings.HasPrefix(m, f+"-") || strings.HasPrefix(m, f+".") || strings.HasPrefix(m, f+":") {
				return true
			}
		}
		return false
	}
	switch {
	case hasFamily("gpt-4o", "chatgpt-4o", "gpt-4.1", "gpt-4.5", "gpt-5", "o1", "o3", "o4", "gpt-oss"):
		return EncodingO200k
	case hasFamily("gpt-4", "gpt-3.5", "gpt-35", "text-embedding-3", "text-embedding-ada"):
		return EncodingCl100k
	}
	return EncodingEstimate
}

// NewTokenCounter returns the token counter for model: the real tiktoken
// encoding for OpenAI families (o200k_base for gpt-4o, gpt-4.1, gpt-5 and the
// o-series; cl100k_base for gpt-4 and gpt-3.5) and, for any other model, a
// conservative estimate of one token per three bytes, rounded up. Each
// counter remembers its own recent counts (create one per process and pass
// it in) and is safe for concurrent use.
func NewTokenCounter(model string) TokenCounter {
	switch EncodingFor(model) {
	case EncodingO200k:
		return newTiktokenCounter(o200kCodec())
	case EncodingCl100k:
		return newTiktokenCounter(cl100kCodec())
	}
	return estimateCounter{}
}

// The encodings are built once per process on first use: building one
// compiles its split expression and loads a vocabulary of 100k–200k entries,
// far too slow to repeat per request. They are immutable, not state: the
// counts a counter remembers are its own.
var (
	o200kCodec  = sync.OnceValue(func() tokenizer.Codec { return codecFor(tokenizer.O200kBase) })
	cl100kCodec = sync.OnceValue(func() tokenizer.Codec { return codecFor(tokenizer.Cl100kBase) })
)

// codecFor builds enc, nil when it cannot be built (the counter then falls
// back to the estimate; the encodings are embedded, so this is not
// expected).
func codecFor(enc tokenizer.Encoding) tokenizer.Codec {
	c, err := tokenizer.Get(enc)
	if err != nil {
		return nil
	}
	return c
}

// EstimateTokens is the one token estimate, for every count without a
// real encoding (a model tiktoken does not know, the offline model without
// a counter): ceil(bytes/3), an over-estimate for every BPE vocabulary we
// know, and the byte length already penalises non-Latin text.
func EstimateTokens(text string) int {
	return (len(text) + charsPerToken - 1) / charsPerToken
}

// estimateCounter counts with EstimateTokens.
type estimateCounter struct{}

func (estimateCounter) Count(text string) int { return EstimateTokens(text) }

// CounterOr is c, or the estimate when c is nil.
func CounterOr(c TokenCounter) TokenCounter {
	if c == nil {
		return estimateCounter{}
	}
	return c
}

// memoLimit bounds the count cache; when full it is emptied rather than
// evicted entry by entry, which keeps the hot path a single map lookup.
// Texts longer than memoMaxTextLen (the instructions, counted on every
// model round) are memoised by a 64-bit hash and their length instead, so
// the cache does not keep their bytes alive; longMemoLimit bounds it.
const (
	memoLimit      = 8192
	memoMaxTextLen = 4096
	longMemoLimit  = 512
)

type tiktokenCounter struct {
	codec tokenizer.Codec // nil when the encoding could not be built

	memo     *Memo[string, int]
	seed     maphash.Seed
	longMemo *Memo[longKey, int]
}

// longKey identifies a long text in the count cache.
type longKey struct {
	hash uint64
	len  int
}

func newTiktokenCounter(c tokenizer.Codec) *tiktokenCounter {
	return &tiktokenCounter{codec: c, memo: NewMemo[string, int](memoLimit), seed: maphash.MakeSeed(), longMemo: NewMemo[longKey, int](longMemoLimit)}
}

// Count returns the exact number of tokens of text. The same strings (notes,
// earlier messages) are counted on every turn, so counts are memoised: a BPE
// count costs microseconds, a map lookup nanoseconds. A long text (the
// instructions) is rarely the same twice, but it is mostly made of lines
// counted before — the standing orders, the profile, the notes — so on a
// miss it is counted line by line (countLines), each line memoised.
func (t *tiktokenCounter) Count(text string) int {
	if text == "" {
		return 0
	}
	if t.codec == nil {
		return estimateCounter{}.Count(text)
	}
	if len(text) <= memoMaxTextLen {
		return t.memo.Get(text, func() int { return t.bpe(text) })
	}
	return t.longMemo.Get(longKey{hash: maphash.String(t.seed, text), len: len(text)}, func() int { return t.countLines(text) })
}

// bpe counts text with the encoding itself.
func (t *tiktokenCounter) bpe(text string) int {
	n, err := t.codec.Count(text)
	if err != nil {
		return estimateCounter{}.Count(text)
	}
	return n
}

// countLines counts a long text as the sum of its pieces, cut after a
// newline that the encodings' pre-tokenizer always ends a piece with
// (splitsAfter): BPE never merges across such a cut, so the sum is the
// text's exact count. Each piece is memoised on its own, as a copy, so
// the cache does not keep the long text alive.
func (t *tiktokenCounter) countLines(text string) int {
	total := 0
	for text != "" {
		end := len(text)
		for i := strings.IndexByte(text, '\n'); i >= 0; {
			if splitsAfter(text, i) {
				end = i + 1
				break
			}
			j := strings.IndexByte(text[i+1:], '\n')
			if j < 0 {
				break
			}
			i += 1 + j
		}
		piece := text[:end]
		text = text[end:]
		if len(piece) > memoMaxTextLen {
			total += t.bpe(piece)
			continue
		}
		total += t.memo.GetStored(piece, strings.Clone, func() int { return t.bpe(piece) })
	}
	return total
}

// splitsAfter reports whether the newline at text[i] ends a pre-token
// piece of both encodings (o200k_base and cl100k_base) whatever came
// before it. Their split expressions let a piece run past a newline only
// as more whitespace (or, after punctuation, a "/" in o200k_base); no
// letter, digit or punctuation piece starts with a newline. So a newline
// followed by a printable ASCII character other than "/" is always the
// end of a piece, and the next piece starts after it. Other characters
// (spaces, non-ASCII, whose class might differ between Unicode tables)
// are not cut before: the line simply joins the next one.
// TestCountLinesIsExact holds it to both encodings.
func splitsAfter(text string, i int) bool {
	if i+1 >= len(text) {
		return false
	}
	c := text[i+1]
	return c > ' ' && c < 0x7f && c != '/'
}
