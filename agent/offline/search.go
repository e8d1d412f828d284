package offline

import (
	"cmp"
	"encoding/json"
	"slices"
	"strconv"
	"strings"

	"concierge/memory"
	"concierge/memory/longchat"
)

// searchQuery returns the words to look for when the traveler asks about
// something said earlier that is not in the messages in front of the
// model; found is the message that answers it when it is in front. The
// query is the question's content words, widened by the table's search
// synonyms ("place" looks for hotels and restaurants too), with "I" kept
// when the traveler asks what they said, so their own messages rank first.
func (t *table) searchQuery(v *view) (query string, found *memory.Message) {
	low := strings.ToLower(v.latest)
	if !t.re["intents.earlier"].MatchString(low) || (!strings.Contains(low, "?") && !t.re["questions"].MatchString(low) && !t.re["intents.remind"].MatchString(low)) {
		return "", nil
	}
	var words []string
	for _, w := range strings.FieldsFunc(low, func(r rune) bool { return !('a' <= r && r <= 'z' || r == '\'' || r >= 0x80) }) {
		if len(w) > 2 && !t.words["stopwords"][w] && !slices.Contains(words, w) {
			words = append(words, w)
		}
	}
	if len(words) == 0 {
		return "", nil
	}
	own := t.re["intents.own"].MatchString(low) // "the place I told you about" is a statement of theirs
	for i := len(v.front) - 1; i >= 0; i-- {
		m := &v.front[i]
		if own && (m.Role != memory.RoleUser || strings.HasSuffix(strings.TrimSpace(m.Content), "?")) {
			continue
		}
		if (m.Role == memory.RoleUser || m.Role == memory.RoleAssistant) && containsAll(strings.ToLower(m.Content), words) {
			return strings.Join(words, " "), m
		}
	}
	var q []string
	for _, w := range words { // a vague word gives way to what it stands for
		if syn := t.file.Synonyms[w]; syn != nil {
			q = append(q, syn...)
		} else {
			q = append(q, w)
		}
	}
	if own {
		q = append([]string{"I"}, q...)
	}
	if t.re["intents.start"].MatchString(low) {
		q = append(q, "start")
	}
	return strings.Join(q, " "), nil
}

// fragments reads a search_conversation result flexibly: any object with a
// text (or content) string anywhere in the JSON is a fragment.
func fragments(raw string) []longchat.Fragment {
	var doc any
	if json.Unmarshal([]byte(raw), &doc) != nil {
		return nil
	}
	var out []longchat.Fragment
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
			role, _ := x["role"].(string)
			f := longchat.Fragment{Text: text, Role: memory.Role(cmp.Or(role, string(memory.RoleUser)))}
			switch n := x["turn"].(type) {
			case float64:
				f.Turn = int(n)
			case string:
				f.Turn, _ = strconv.Atoi(n)
			}
			f.Seq = 2*f.Turn + btoi(f.Role == memory.RoleAssistant)
			out = append(out, f)
		}
	}
	walk(doc)
	return out
}

// answerEarlier quotes the fragment longchat.RankFragments puts first for
// the query, the same ranking the server gives search results.
func (t *table) answerEarlier(frags []longchat.Fragment, query string, pick func([]string, map[string]string) string) string {
	ranked := longchat.RankFragments(query, frags, nil)
	if len(ranked) == 0 {
		return pick(t.file.Replies["earlier_missing"], nil)
	}
	f := ranked[0]
	who := "you"
	if f.Role == memory.RoleAssistant {
		who = "I"
	}
	text := strings.Join(strings.Fields(f.Text), " ")
	if r := []rune(text); len(r) > 240 {
		text = string(r[:240]) + "…"
	}
	return pick(t.file.Replies["earlier_found"], map[string]string{"turn": strconv.Itoa(f.Turn), "who": who, "text": text})
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

func containsAll(s string, words []string) bool {
	for _, w := range words {
		if !strings.Contains(s, w) {
			return false
		}
	}
	return true
}
