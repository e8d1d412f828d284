package offline

import (
	"encoding/json"
	"strconv"
	"strings"

	"concierge/memory"
)

// searchQuery returns the words to look for when the traveler asks about
// something said earlier that is not in the messages in front of the
// model; found is the message that answers it when it is in front.
func (t *table) searchQuery(v *view) (query string, found *memory.Message) {
	low := strings.ToLower(v.latest)
	if !t.re["intents.earlier"].MatchString(low) || (!strings.Contains(low, "?") && !t.re["questions"].MatchString(low)) {
		return "", nil
	}
	var words []string
	for _, w := range strings.FieldsFunc(low, func(r rune) bool { return !('a' <= r && r <= 'z' || r == '\'' || r >= 0x80) }) {
		if len(w) > 2 && !t.words["stopwords"][w] {
			words = append(words, w)
		}
	}
	if len(words) == 0 {
		return "", nil
	}
	for i := len(v.front) - 1; i >= 0; i-- {
		if m := &v.front[i]; (m.Role == memory.RoleUser || m.Role == memory.RoleAssistant) && containsAll(strings.ToLower(m.Content), words) {
			return strings.Join(words, " "), m
		}
	}
	return strings.Join(words, " "), nil
}

func containsAll(s string, words []string) bool {
	for _, w := range words {
		if !strings.Contains(s, w) {
			return false
		}
	}
	return true
}

// fragment is one piece of earlier conversation a search returned.
type fragment struct {
	turn       int
	role, text string
}

// fragments reads a search_conversation result flexibly: any object with a
// text (or content) string anywhere in the JSON is a fragment.
func fragments(raw string) []fragment {
	var doc any
	if json.Unmarshal([]byte(raw), &doc) != nil {
		return nil
	}
	var out []fragment
	var walk func(any)
	walk = func(x any) {
		switch x := x.(type) {
		case []any:
			for _, it := range x {
				walk(it)
			}
		case map[string]any:
			text, _ := x["text"].(string)
			if text == "" {
				text, _ = x["content"].(string)
			}
			if text == "" {
				for _, it := range x {
					walk(it)
				}
				return
			}
			f := fragment{text: text}
			f.role, _ = x["role"].(string)
			switch n := x["turn"].(type) {
			case float64:
				f.turn = int(n)
			case string:
				f.turn, _ = strconv.Atoi(n)
			}
			out = append(out, f)
		}
	}
	walk(doc)
	return out
}

// answerEarlier quotes the fragment that best matches the query: most
// query words, then the traveler's own words, then the latest.
func (t *table) answerEarlier(frags []fragment, query string, pick func([]string, map[string]string) string) string {
	best, bestScore := -1, -1
	for i, f := range frags {
		score := 0
		for _, w := range strings.Fields(query) {
			if strings.Contains(strings.ToLower(f.text), w) {
				score += 4
			}
		}
		if f.role == "" || f.role == "user" {
			score += 2
		}
		if score > bestScore || (score == bestScore && f.turn > frags[best].turn) {
			best, bestScore = i, score
		}
	}
	if best < 0 {
		return pick(t.file.Replies["earlier_missing"], nil)
	}
	f := frags[best]
	who := "you"
	if f.role == "assistant" {
		who = "I"
	}
	text := strings.Join(strings.Fields(f.text), " ")
	if r := []rune(text); len(r) > 240 {
		text = string(r[:240]) + "…"
	}
	return pick(t.file.Replies["earlier_found"], map[string]string{"turn": strconv.Itoa(f.turn), "who": who, "text": text})
}
