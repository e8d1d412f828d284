package offline

import (
	"encoding/json"
	"maps"
	"regexp"
	"strconv"
	"strings"
	"time"

	"concierge/memory"
)

// Steering: the traveler talking to the memory itself — forgetting a note
// ("please forget that…", "that's no longer true"), confirming a pinned
// one's forgetting, and ending a fact ("until the end of March").

var (
	reForget     = regexp.MustCompile(`(?i)\b(?:please\s+)?(?:forget|don'?t\s+remember|do\s+not\s+remember|stop\s+remembering)\b(?:\s+(?:about|that|the\s+(?:fact|note)\s+that|what\s+i\s+said\s+about|my))*\s*([^.?!]*)`)
	reNoLong     = regexp.MustCompile(`(?i)^\s*(?:actually,?\s*)?(.*?)\s*(?:is|are|'s|’s)?\s*(?:no\s+longer\s+(?:true|the\s+case|right|correct)|not\s+true\s+any\s?more)`)
	reDontForget = regexp.MustCompile(`(?i)\b(?:don'?t|do\s+not|never)\s+forget\b`)
	reYesForget  = regexp.MustCompile(`(?i)^\s*(?:yes|yeah|yep|sure|confirm(?:ed)?|go\s+ahead|do\s+it|i'?m\s+sure|please\s+do)\b`)
	reTodayIs    = regexp.MustCompile(`Today is (\d{4}-\d{2}-\d{2})\.`)
	reHandle     = regexp.MustCompile(`^\[(n[0-9a-z]{4})\]\s*`)
	reNext       = regexp.MustCompile(`(?i)\bfor\s+the\s+(?:next\s+)?(\d+|a|one|two|three|four|five|six|seven|eight|nine|ten|twelve)\s+(day|week|month)s?\b`)
	reMonth      = regexp.MustCompile(`(?i)\b(?:until|till|through|thru|up\s+until|to)\s+(?:the\s+end\s+of\s+|end\s+of\s+|mid-?|early\s+|late\s+)?(january|february|march|april|may|june|july|august|september|october|november|december)(?:\s+(\d{1,2})(?:st|nd|rd|th)?)?(?:\s+(\d{4}))?`)
	reDayOf      = regexp.MustCompile(`(?i)\b(?:until|till|through)\s+(?:the\s+)?(\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?(january|february|march|april|may|june|july|august|september|october|november|december)`)
	numbers      = map[string]int{"a": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10, "twelve": 12}
	noteStops    = map[string]bool{"that": true, "the": true, "and": true, "prefer": true, "prefers": true, "like": true, "likes": true,
		"about": true, "with": true, "have": true, "has": true, "not": true, "any": true, "more": true, "longer": true, "true": true,
		"please": true, "remember": true, "forget": true, "what": true, "said": true, "you": true, "your": true, "i'm": true, "am": true}
)

// steer answers a message that talks to the memory with forget_memory_note
// calls: a confirmation of the pinned note asked about last turn, or a
// forget of the remembered note the message names best.
func (t *table) steer(v *view) []any {
	if !v.tools[memory.ForgetToolName] {
		return nil
	}
	if h := v.askedHandle(); h != "" && reYesForget.MatchString(v.latest) {
		return []any{memory.ForgetArgs{Handle: h, Confirm: true}}
	}
	about, ok := "", false
	if m := reForget.FindStringSubmatchIndex(v.latest); m != nil && !reDontForget.MatchString(v.latest[:m[1]]) {
		about, ok = v.latest[m[2]:m[3]], true
	} else if m := reNoLong.FindStringSubmatch(v.latest); m != nil {
		about, ok = m[1], true
	}
	if !ok {
		return nil
	}
	if n := v.bestNote(about); n != nil {
		return []any{memory.ForgetArgs{Handle: n.handle}}
	}
	return nil
}

// askedHandle is the handle a forget of the last turn answered
// needs_confirmation for.
func (v *view) askedHandle() string {
	for i := len(v.front) - 1; i >= 0; i-- {
		m := v.front[i]
		if m.Role == memory.RoleUser {
			return ""
		}
		var r struct{ Error, Handle string }
		if m.Role == memory.RoleTool && json.Unmarshal([]byte(m.Content), &r) == nil && r.Error == "needs_confirmation" {
			return r.Handle
		}
	}
	return ""
}

// bestNote is the remembered note with a handle sharing the most content
// words with about; "that" alone (nothing named) means the latest one.
func (v *view) bestNote(about string) *known {
	words := contentWords(about)
	var best *known
	score := 0
	for i := len(v.notes) - 1; i >= 0; i-- {
		n := &v.notes[i]
		if n.handle == "" {
			continue
		}
		if len(words) == 0 {
			return n
		}
		s := 0
		for _, w := range contentWords(n.text) {
			for _, a := range words {
				if strings.HasPrefix(w, a[:min(len(a), 4)]) || strings.HasPrefix(a, w[:min(len(w), 4)]) {
					s++
					break
				}
			}
		}
		if s > score {
			best, score = n, s
		}
	}
	return best
}

func contentWords(s string) []string {
	var out []string
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !(r >= 'a' && r <= 'z' || r == '\'') }) {
		if len(w) >= 3 && !noteStops[w] {
			out = append(out, w)
		}
	}
	return out
}

// afterForget words the results of this turn's forget calls, when they
// are all the turn called.
func (t *table) afterForget(v *view) (string, bool) {
	var done, asked []string
	missing := 0
	for _, c := range v.thisTurn {
		if c.tc.Name != memory.ForgetToolName {
			return "", false
		}
		var r struct {
			OK          bool
			Error, Text string
		}
		_ = json.Unmarshal([]byte(c.result), &r)
		switch {
		case r.OK:
			done = append(done, t.sayNote(v.vc, r.Text))
		case r.Error == "needs_confirmation":
			asked = append(asked, t.sayNote(v.vc, r.Text))
		default:
			missing++
		}
	}
	r, pick := v.vc.Replies, v.picker(t)
	var out []string
	if len(done) > 0 {
		out = append(out, pick(r["forgot"], map[string]string{"facts": v.vc.joinAnd(done)}))
	}
	if len(asked) > 0 {
		out = append(out, pick(r["forget_confirm"], map[string]string{"facts": v.vc.joinAnd(asked)}))
	}
	if missing > 0 && len(out) == 0 {
		out = append(out, pick(r["forget_missing"], nil))
	}
	return strings.Join(out, " "), len(out) > 0
}

// endOf reads when a fact stops holding from a message ("until the end of
// March", "for the next six weeks", "through the 15th of June"), as a
// date from today's, or "" when it says none. A month that is already
// over this year means next year's.
func endOf(msg, instructions string) string {
	m := reTodayIs.FindStringSubmatch(instructions)
	if m == nil {
		return ""
	}
	today, err := time.Parse(memory.DateLayout, m[1])
	if err != nil {
		return ""
	}
	var end time.Time
	switch {
	case reDayOf.MatchString(msg):
		d := reDayOf.FindStringSubmatch(msg)
		day, _ := strconv.Atoi(d[1])
		end = onOrAfter(today, monthOf(d[2]), day, 0)
	case reMonth.MatchString(msg):
		d := reMonth.FindStringSubmatch(msg)
		day, _ := strconv.Atoi(d[2])
		year, _ := strconv.Atoi(d[3])
		end = onOrAfter(today, monthOf(d[1]), day, year)
	case reNext.MatchString(msg):
		d := reNext.FindStringSubmatch(msg)
		n, err := strconv.Atoi(d[1])
		if err != nil {
			n = numbers[strings.ToLower(d[1])]
		}
		switch strings.ToLower(d[2]) {
		case "day":
			end = today.AddDate(0, 0, n)
		case "week":
			end = today.AddDate(0, 0, 7*n)
		default:
			end = today.AddDate(0, n, 0)
		}
	default:
		return ""
	}
	if end.IsZero() || memory.CheckExpiry(end.Format(memory.DateLayout), m[1]) != nil {
		return ""
	}
	return end.Format(memory.DateLayout)
}

func monthOf(name string) time.Month {
	t, _ := time.Parse("January", strings.ToUpper(name[:1])+strings.ToLower(name[1:]))
	return t.Month()
}

// onOrAfter is day (0: the month's last) of month in year (0: the first
// year in which that day is not before today).
func onOrAfter(today time.Time, month time.Month, day, year int) time.Time {
	at := func(y int) time.Time {
		if day == 0 {
			return time.Date(y, month+1, 0, 0, 0, 0, 0, time.UTC)
		}
		return time.Date(y, month, day, 0, 0, 0, 0, time.UTC)
	}
	if year != 0 {
		return at(year)
	}
	if d := at(today.Year()); !d.Before(today) {
		return d
	}
	return at(today.Year() + 1)
}

// readOverrides reads the profile fields this conversation overrides from
// the memories' OVERRIDES list: field → "value (the profile says old)".
func readOverrides(instructions string) map[string][2]string {
	_, rest, ok := strings.Cut(block(instructions, "memories"), "\nOVERRIDES")
	if !ok {
		return nil
	}
	out := map[string][2]string{}
	for _, line := range strings.Split(rest, "\n")[1:] {
		field, val, ok := strings.Cut(strings.TrimPrefix(strings.TrimSpace(line), "- "), ": ")
		if !ok {
			break
		}
		now, old, _ := strings.Cut(val, " (the profile says ")
		out[field] = [2]string{now, strings.TrimSuffix(old, ")")}
	}
	return out
}

// withoutFields is the profile without the overridden fields.
func withoutFields(p map[string]any, ov map[string][2]string) map[string]any {
	out := maps.Clone(p)
	maps.DeleteFunc(out, func(k string, _ any) bool { _, gone := ov[k]; return gone })
	return out
}
