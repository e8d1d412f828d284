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
	PlaceKeys          []string `yaml:"place_keys"` // keys whose entries count only when they name the trip's country or region, or a citizenship
	Say, Unknown       string
	UnknownTrip        string `yaml:"unknown_trip"` // Unknown when the trip's destination is known: nothing known is asked for
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
		to := tr["to"]
		if named := t.placeIn(low); len(a.PlaceKeys) > 0 && named != "" && !strings.EqualFold(named, to) {
			to, fill = named, t.filler(v, tr.at(named)) // "do I need a visa for Rome?" on a trip to Japan: Rome
		}
		if len(a.Keys) > 0 && (len(facts) == 0 || a.notes == nil) {
			facts = append(facts, t.profileSay(v, t.forPlace(v.profile, a.PlaceKeys, to), a.Keys...)...)
		}
		if len(facts) == 0 && to != "" && a.UnknownTrip != "" {
			return t.pick([]string{a.UnknownTrip}, v, fill, nil), true
		}
		if len(facts) == 0 {
			return a.Unknown, a.Unknown != ""
		}
		return t.pick([]string{a.Say}, v, fill, map[string]string{"facts": strings.Join(slices.Compact(facts), "; ")}), true
	}
	return "", false
}

// forPlace is the profile with the entries of keys that do not name the
// destination's country or a region of it, and are no citizenship, left
// out: asked about Japan, a Schengen visa is beside the point. A place the
// gazetteer does not know leaves the profile as it is.
func (t *table) forPlace(p map[string]any, keys []string, to string) map[string]any {
	if len(keys) == 0 || p == nil {
		return p
	}
	place := t.placeNamed(to)
	for i := 0; place == nil && i < len(t.places); i++ {
		if strings.EqualFold(strings.TrimPrefix(t.places[i].Country[langEN], "the "), to) {
			place = &t.places[i] // "Japan": the country of a place it knows
		}
	}
	if place == nil {
		return p
	}
	names := append([]string{strings.TrimPrefix(place.Country[langEN], "the ")}, place.Regions...)
	out := maps.Clone(p)
	for _, k := range keys {
		entries, ok := p[k].([]any)
		if !ok {
			continue
		}
		out[k] = slices.DeleteFunc(slices.Clone(entries), func(e any) bool {
			s := strings.ToLower(fmt.Sprint(e))
			return !strings.Contains(s, "(citizen)") && !slices.ContainsFunc(names, func(n string) bool { return strings.Contains(s, strings.ToLower(n)) })
		})
	}
	return out
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
		say := v.vc.ProfileSay[k]
		if list, _ := p[k].([]any); len(list) == 1 && v.vc.ProfileSay[k+"_one"] != "" {
			say = v.vc.ProfileSay[k+"_one"] // "your last trip was …", not "your recent trips: …"
		}
		if s := t.forPeople(v.vc, p[k]); s != "" && !t.words["unsaid_keys"][k] {
			out = append(out, strings.ReplaceAll(cmp.Or(say, strings.ReplaceAll(k, "_", " ")+": {x}"), "{x}", s))
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
		var from, to time.Time
		spans := false // a trip's days said once: "12–16 September 2025"
		if start, end := x["start_date"], x["end_date"]; start != nil && end != nil && vc.Phrases["dates"] != "" {
			var e1, e2 error
			from, e1 = time.Parse(memory.DateLayout, fmt.Sprint(start))
			to, e2 = time.Parse(memory.DateLayout, fmt.Sprint(end))
			spans = e1 == nil && e2 == nil
		}
		for _, k := range keys {
			s := t.forPeople(vc, x[k])
			switch {
			case spans && k == "start_date":
				parts = append(parts, strings.ReplaceAll(vc.Phrases["dates"], "{x}", vc.span(from, to)))
			case spans && k == "end_date":
			case s != "" && !t.words["unsaid_keys"][k]:
				parts = append(parts, strings.ReplaceAll(cmp.Or(vc.Phrases[k], "{x}"), "{x}", s))
			}
		}
		return strings.TrimSuffix(strings.ReplaceAll(strings.Join(parts, " "), " ,", ","), ",")
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
	return vc.span(from, to)
}

// span says the days from … to as people write them: a whole month as
// "March 2027", days of one month as "12–16 September 2025", one day as
// its date, else both dates. isoRange reads each back.
func (vc *voice) span(from, to time.Time) string {
	switch {
	case from.Equal(to):
		return vc.date(from)
	case from.Day() == 1 && to.Equal(from.AddDate(0, 1, -1)):
		return strings.NewReplacer("{month}", vc.monthName(int(from.Month())-1), "{y}", strconv.Itoa(from.Year())).Replace(vc.MonthYear)
	case from.Year() == to.Year() && from.Month() == to.Month() && from.Before(to):
		return strconv.Itoa(from.Day()) + "–" + vc.date(to)
	}
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
		return vc.isoSpan(s)
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

// isoSpan reads a span of one month back ("March 2027", "12–16 September
// 2025", "12 September 2025"); any other value is kept.
func (vc *voice) isoSpan(s string) string {
	if !strings.ContainsAny(s, "0123456789") {
		return s
	}
	n := reNumbers.FindAllString(s, -1)
	if len(n) == 0 || len(n) > 3 || len(n[len(n)-1]) != 4 {
		return s // no year: the traveler's words
	}
	low := strings.ToLower(s)
	month := slices.IndexFunc(vc.Months, func(m string) bool { return strings.Contains(low, strings.ToLower(m)) })
	if month < 0 && len(vc.MonthNames) == 12 {
		month = slices.IndexFunc(vc.MonthNames, func(m string) bool { return strings.Contains(low, strings.ToLower(m)) })
	}
	if month < 0 || len(n) == 3 && !strings.Contains(s, "–") {
		return s // not a span of span's: "from 12 to 15 May" is the traveler's words
	}
	year, _ := strconv.Atoi(n[len(n)-1])
	first := time.Date(year, time.Month(month+1), 1, 0, 0, 0, 0, time.UTC)
	from, to := first, first.AddDate(0, 1, -1)
	if len(n) > 1 {
		d1, _ := strconv.Atoi(n[0])
		d2, _ := strconv.Atoi(n[len(n)-2])
		from, to = first.AddDate(0, 0, d1-1), first.AddDate(0, 0, d2-1)
	}
	return from.Format(memory.DateLayout) + " to " + to.Format(memory.DateLayout)
}
