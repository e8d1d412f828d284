package offline

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"concierge/memory"
)

// answerFile is one direct question the profile or the notes answer: when
// match finds it in the traveler's message, the reply says what the profile
// keys and the notes matching notes hold, before anything else.
type answerFile struct {
	Name, Match, Notes string
	Keys               []string
	Say, Unknown       string
}

// answer is one compiled answerFile.
type answer struct {
	answerFile
	re, notes *pattern
}

// directAnswer answers a question the profile or the notes answer ("Do I
// need a visa?", "What seat do I like?"), in plain words with dates for
// people; ok is false when the message asks none of them.
func (t *table) directAnswer(v *view, low string) (string, bool) {
	for _, a := range t.answers {
		if !a.re.MatchString(low) {
			continue
		}
		var facts []string // the notes first: they are the traveler's own words, and newer
		for _, n := range v.notes {
			if a.notes != nil && a.notes.MatchString(n.text) {
				facts = append(facts, t.lex.second(n.text))
			}
		}
		for _, k := range a.Keys {
			if s := t.forPeople(v.profile[k]); s != "" && (len(facts) == 0 || a.notes == nil) {
				facts = append(facts, strings.ReplaceAll(cmp.Or(t.file.Phrases[k], "{x}"), "{x}", s))
			}
		}
		if len(facts) == 0 {
			return a.Unknown, a.Unknown != ""
		}
		return strings.ReplaceAll(a.Say, "{facts}", joinAnd(slices.Compact(facts))), true
	}
	return "", false
}

// forPeople writes a profile value as words: dates as "31 March 2027",
// lists joined with "and", a map's phrases from the table ("valid until
// …", "covering …"), private ids and "n/a" left out.
func (t *table) forPeople(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case []any:
		var parts []string
		for _, it := range x {
			if s := t.forPeople(it); s != "" {
				parts = append(parts, s)
			}
		}
		return joinAnd(parts)
	case map[string]any:
		var parts []string
		keys := slices.SortedFunc(maps.Keys(x), func(a, b string) int { // the table's order, then the rest by name
			if c := cmp.Compare(orderOf(t.file.Order, a), orderOf(t.file.Order, b)); c != 0 {
				return c
			}
			return cmp.Compare(a, b)
		})
		for _, k := range keys {
			phrase, private := t.file.Phrases[k], t.words["unsaid_keys"][k]
			if s := t.forPeople(x[k]); s != "" && !private {
				parts = append(parts, strings.ReplaceAll(cmp.Or(phrase, "{x}"), "{x}", s))
			}
		}
		return strings.Join(parts, " ")
	case time.Time:
		return x.Format("2 January 2006")
	case string:
		if d, err := time.Parse(memory.DateLayout, x); err == nil {
			return d.Format("2 January 2006")
		}
		if strings.EqualFold(x, "n/a") {
			return ""
		}
		return x
	}
	return strings.Join(strings.Fields(fmt.Sprint(v)), " ")
}

// profileSay says the profile to the traveler, a clause a key in key order,
// from the table's profile_say ("you fly from SFO"); a key it does not list
// is said as "key: value".
func (t *table) profileSay(p map[string]any) []string {
	var out []string
	for _, k := range slices.Sorted(maps.Keys(p)) {
		if s := t.forPeople(p[k]); s != "" && k != "name" && !t.words["unsaid_keys"][k] {
			out = append(out, strings.ReplaceAll(cmp.Or(t.file.ProfileSay[k], strings.ReplaceAll(k, "_", " ")+": {x}"), "{x}", s))
		}
	}
	return out
}

// askOnce returns the question for a missing trip detail unless an earlier
// reply of this conversation already asked it: the traveler heard it once.
func (t *table) askOnce(v *view, slot string, pick func([]string, map[string]string) string) string {
	for _, m := range v.front {
		if m.Role == memory.RoleAssistant && t.asks(m.Content, slot) {
			return ""
		}
	}
	return pick(t.file.Ask[slot], nil)
}

func orderOf(order []string, k string) int {
	if i := slices.Index(order, k); i >= 0 {
		return i
	}
	return len(order)
}
