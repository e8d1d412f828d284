package offline

import (
	"cmp"
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"concierge/memory"
	"concierge/memory/longchat"
)

// searchQuery returns the words to look for when the traveler asks about
// something said earlier that is not in the messages in front of the
// model; found is the message that answers it when it is in front. The
// query is the question's content words, widened by the voice's search
// synonyms ("place" looks for hotels and restaurants too), with "I" first
// when the traveler asks what they said, so their own messages rank first.
func (t *table) searchQuery(v *view) (query string, found *memory.Message) {
	vc, low := v.vc, strings.ToLower(v.latest)
	if !vc.is["earlier"].MatchString(low) || !vc.is["question"].MatchString(low) {
		return "", nil
	}
	tr := t.tripSoFar(v)
	if slices.ContainsFunc(vc.answers, func(a answer) bool { return len(tr.keys(a.Trip)) > 0 && a.re.MatchString(low) }) {
		return "", nil // "which city did I say I'm going to?": the trip so far says it
	}
	var words []string
	for _, w := range strings.FieldsFunc(low, func(r rune) bool { return !unicode.IsLetter(r) && r != '\'' }) {
		if len([]rune(w)) > 2 && !vc.stop[w] && !slices.Contains(words, w) {
			words = append(words, w)
		}
	}
	if len(words) == 0 {
		return "", nil
	}
	own := vc.is["own"].MatchString(low) // "the place I told you about" is a statement of theirs
	var q []string
	if own {
		q = append(q, "I")
	}
	for _, w := range words { // a vague word gives way to what it stands for
		if syn := vc.Synonyms[w]; syn != nil {
			q = append(q, syn...)
		} else {
			q = append(q, w)
		}
	}
	if vc.is["start"].MatchString(low) {
		q = append(q, "start")
	}
	for i := len(v.front) - 1; i >= 0; i-- {
		m := &v.front[i]
		if own && (m.Role != memory.RoleUser || strings.HasSuffix(strings.TrimSpace(m.Content), "?")) {
			continue
		}
		if (m.Role == memory.RoleUser || m.Role == memory.RoleAssistant) && containsAll(strings.ToLower(m.Content), words, vc.Synonyms) {
			return strings.Join(q, " "), m // "what did I say about food?": "I'm vegetarian" answers it
		}
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
func (t *table) answerEarlier(v *view, frags []longchat.Fragment, query string) string {
	r, pick := v.vc.Replies, v.picker(t)
	ranked := longchat.RankFragments(query, frags, nil)
	if len(ranked) == 0 {
		return pick(r["earlier_missing"], nil)
	}
	f := ranked[0]
	who := r["who_traveler"][0]
	if f.Role == memory.RoleAssistant {
		who = r["who_assistant"][0]
	}
	text := strings.Join(strings.Fields(f.Text), " ")
	if r := []rune(text); len(r) > 240 {
		text = string(r[:240]) + "…"
	}
	return pick(r["earlier_found"], map[string]string{"turn": strconv.Itoa(f.Turn), "who": who, "text": text})
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// containsAll reports whether s holds every word, or one of its synonyms.
func containsAll(s string, words []string, synonyms map[string][]string) bool {
	for _, w := range words {
		if !strings.Contains(s, w) && !slices.ContainsFunc(synonyms[w], func(syn string) bool { return strings.Contains(s, syn) }) {
			return false
		}
	}
	return true
}
