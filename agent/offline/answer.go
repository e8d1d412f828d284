package offline

import (
	"cmp"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
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
	Trip               []string // trip keys it answers from the trip so far ("which city am I going to?")
	Say, Unknown       string
}

// answer is one compiled answerFile.
type answer struct {
	answerFile
	re, notes *pattern
}

// directAnswer answers a question the profile or the notes answer ("Do I
// need a visa?", "What seat do I like?"), in plain words with dates for
// people, its placeholders filled from fill (the trip's "for Lisbon");
// ok is false when the message asks none of them.
func (t *table) directAnswer(v *view, low string, tr trip, fill map[string]string) (string, bool) {
	for _, a := range v.vc.answers {
		if !a.re.MatchString(low) {
			continue
		}
		var facts []string // the notes first: they are the traveler's own words, and newer
		if told := v.vc.summary(tr.keys(a.Trip)); told != "" {
			facts = append(facts, told)
		}
		for _, n := range v.notes {
			if a.notes != nil && a.notes.MatchString(n.text) {
				facts = append(facts, t.sayNote(v.vc, n.text))
			}
		}
		if len(a.Keys) > 0 && (len(facts) == 0 || a.notes == nil) {
			facts = append(facts, t.profileSay(v, v.profile, a.Keys...)...)
		}
		if len(facts) == 0 {
			return a.Unknown, a.Unknown != ""
		}
		return t.pick([]string{a.Say}, v, fill, map[string]string{"facts": strings.Join(slices.Compact(facts), "; ")}), true
	}
	return "", false
}

// profileSay says profile fields to the traveler, a clause a field, from
// the voice's profile_say ("you fly from SFO"): the keys asked for, or
// every field but the name in key order. A field it has no words for is
// said as "field: value".
func (t *table) profileSay(v *view, p map[string]any, keys ...string) []string {
	if len(keys) == 0 {
		keys = slices.DeleteFunc(slices.Sorted(maps.Keys(p)), func(k string) bool { return k == "name" })
	}
	var out []string
	for _, k := range keys {
		if s := t.forPeople(v.vc, p[k]); s != "" && !t.words["unsaid_keys"][k] {
			out = append(out, strings.ReplaceAll(cmp.Or(v.vc.ProfileSay[k], strings.ReplaceAll(k, "_", " ")+": {x}"), "{x}", s))
		}
	}
	return out
}

// forPeople writes a profile value as words: dates as "31 March 2027",
// lists joined with "and", a map's parts in the table's order with the
// voice's phrases ("valid until …", "covering …"), private ids and "n/a"
// left out.
func (t *table) forPeople(vc *voice, v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case []any:
		var parts []string
		for _, it := range x {
			if s := t.forPeople(vc, it); s != "" {
				parts = append(parts, s)
			}
		}
		return vc.joinAnd(parts)
	case map[string]any:
		var parts []string
		keys := slices.SortedFunc(maps.Keys(x), func(a, b string) int { // the table's order, then the rest by name
			return cmp.Or(cmp.Compare(orderOf(t.file.Order, a), orderOf(t.file.Order, b)), cmp.Compare(a, b))
		})
		for _, k := range keys {
			if s := t.forPeople(vc, x[k]); s != "" && !t.words["unsaid_keys"][k] {
				parts = append(parts, strings.ReplaceAll(cmp.Or(vc.Phrases[k], "{x}"), "{x}", s))
			}
		}
		return strings.Join(parts, " ")
	case time.Time:
		return vc.date(x)
	case string:
		if d, err := time.Parse(memory.DateLayout, x); err == nil {
			return vc.date(d)
		}
		if strings.EqualFold(x, "n/a") {
			return ""
		}
		if country, ok := strings.CutSuffix(x, " (citizen)"); ok && vc.Phrases["citizen"] != "" { // a citizenship listed with the visas
			return strings.ReplaceAll(vc.Phrases["citizen"], "{x}", country)
		}
		return cmp.Or(vc.Values[x], x)
	}
	return strings.Join(strings.Fields(fmt.Sprint(v)), " ")
}

func orderOf(order []string, k string) int {
	if i := slices.Index(order, k); i >= 0 {
		return i
	}
	return len(order)
}

// date writes a date for people in the voice's form: "14 August 2031",
// "14 de agosto de 2031", "14 августа 2031 г.".
func (vc *voice) date(d time.Time) string {
	return strings.NewReplacer("{d}", strconv.Itoa(d.Day()), "{month}", vc.Months[d.Month()-1], "{y}", strconv.Itoa(d.Year())).Replace(vc.Date)
}

var (
	reISORange = regexp.MustCompile(`^(\d{4}-\d\d-\d\d) to (\d{4}-\d\d-\d\d)$`)
	reNumbers  = regexp.MustCompile(`\d+`)
)

// peopleRange writes the TRIP block's "2027-05-01 to 2027-05-31" as two
// dates for people; any other value is kept.
func (vc *voice) peopleRange(s string) string {
	m := reISORange.FindStringSubmatch(s)
	if i := slices.Index(englishMonths, s); m == nil && i >= 0 {
		return vc.monthName(i) // a month the trip keeps in English ("May"), in the reply's language
	}
	if m == nil {
		return s
	}
	from, _ := time.Parse(memory.DateLayout, m[1])
	to, _ := time.Parse(memory.DateLayout, m[2])
	return vc.date(from) + " – " + vc.date(to)
}

// monthName is the i-th month (from 0) said alone: the voice's
// month_names when its dates decline the month ("марта"), else its months.
func (vc *voice) monthName(i int) string {
	if len(vc.MonthNames) == 12 {
		return vc.MonthNames[i]
	}
	return vc.Months[i]
}

// isoRange reads a peopleRange back into the ISO form; any other value is
// kept.
func (vc *voice) isoRange(s string) string {
	from, to, ok := strings.Cut(s, " – ")
	for i := range englishMonths {
		if !ok && strings.EqualFold(vc.monthName(i), s) {
			return englishMonths[i] // the trip keeps a month alone in English
		}
	}
	if !ok {
		return s
	}
	var iso []string
	for _, part := range []string{from, to} {
		n, low := reNumbers.FindAllString(part, -1), strings.ToLower(part)
		month := slices.IndexFunc(vc.Months, func(m string) bool { return strings.Contains(low, strings.ToLower(m)) })
		if len(n) != 2 || month < 0 {
			return s
		}
		day, _ := strconv.Atoi(n[0])
		year, _ := strconv.Atoi(n[1])
		iso = append(iso, time.Date(year, time.Month(month+1), day, 0, 0, 0, 0, time.UTC).Format(memory.DateLayout))
	}
	return iso[0] + " to " + iso[1]
}
