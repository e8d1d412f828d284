package offline

import (
	"cmp"
	"hash/maphash"
	"maps"
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"concierge/memory"
)

// trip is what the conversation has established, by the keys of the reply
// files' "ask". It travels in the last line of a reply ("Trip so far — …")
// when it changed, and again every tripRestate messages, so the next call
// reads it from one message and it survives the trimming of old turns
// (longchat keeps the last eight of the traveler's messages).
type trip map[string]string

const tripRestate = 6

// hasTripLine reports whether a reply carries a trip line, in any language:
// its last line.
func (t *table) hasTripLine(reply string) bool {
	last := lastLine(reply)
	for _, vc := range t.voices {
		if strings.HasPrefix(last, vc.Replies["trip_line"][0]) {
			return true
		}
	}
	return false
}

func lastLine(s string) string { return s[strings.LastIndexByte(s, '\n')+1:] }

// only is the part of tr whose values are among vals: what a message just
// added, said as the summary says it ("Lisbon, in May, for you and your
// wife").
func (tr trip) only(vals []string) trip {
	out := trip{}
	for k, v := range tr {
		if slices.Contains(vals, v) {
			out[k] = v
		}
	}
	return out
}

var tripKeys = []string{"to", "dates", "from", "travellers", "budget"}

// at is the trip with another destination, for a question about another
// place than the trip's ("what to do in Rome?" on the Lisbon trip): its
// placeholders name that place.
func (tr trip) at(to string) trip {
	out := maps.Clone(tr)
	out["to"] = to
	return out
}

// keys is the part of tr under the keys given.
func (tr trip) keys(ks []string) trip {
	out := trip{}
	for _, k := range ks {
		if tr[k] != "" {
			out[k] = tr[k]
		}
	}
	return out
}

// parseTrip reads the trip line of a reply, in whichever language it was
// written; dates come back in the ISO form the TRIP block uses.
func (t *table) parseTrip(reply string) trip {
	tr, last := trip{}, lastLine(reply)
	for _, vc := range t.voices {
		line, ok := strings.CutPrefix(last, vc.Replies["trip_line"][0])
		if !ok {
			continue
		}
		for _, part := range strings.Split(strings.TrimSuffix(line, "."), "; ") {
			label, val, _ := strings.Cut(part, ": ")
			for _, k := range tripKeys {
				if vc.Labels[k] == label && val != "" {
					tr[k] = vc.isoRange(val)
				}
			}
		}
		break
	}
	return tr
}

// line is the trip line itself, dates for people.
func (vc *voice) line(tr trip) string {
	var parts []string
	for _, k := range tripKeys {
		if tr[k] != "" {
			parts = append(parts, vc.Labels[k]+": "+vc.peopleRange(tr[k]))
		}
	}
	return vc.Replies["trip_line"][0] + strings.Join(parts, "; ") + "."
}

func (tr trip) next(work bool) string {
	for _, k := range tripKeys {
		if tr[k] == "" && (k != "travellers" || !work) {
			return k
		}
	}
	return ""
}

// askedSlot finds which trip question the previous reply asked.
func (t *table) askedSlot(prev string) string {
	for _, vc := range t.voices {
		for slot, qs := range vc.Ask {
			if said(prev, qs) {
				return slot
			}
		}
	}
	return ""
}

// said reports whether text says one of the variants (up to a placeholder).
func said(text string, variants []string) bool {
	return slices.ContainsFunc(variants, func(q string) bool {
		head, _, _ := strings.Cut(q, "{")
		return head != "" && strings.Contains(text, head)
	})
}

// updateTrip reads the latest message into the trip: a detail is taken when
// it is new, was just asked for, or the traveler changes it.
func (t *table) updateTrip(tr trip, msg, asked string) []string {
	var added []string
	h := t.heardIn(msg)
	found := maps.Clone(h.found)
	if found["to"] == "" && (tr["to"] == "" || h.moves) {
		found["to"] = t.lowerPlace(strings.ToLower(h.msg)) // typed in lower case: read only when it could be the trip's
	}
	narrows := t.within(found["to"], tr["to"]) // a city of the country the trip names ("Japan", then "Tokyo")
	if tr["to"] != "" && !h.moves && !narrows {
		found["to"] = "" // another place named on the way is a mention, not the trip
	}
	if words := strings.Fields(strings.Trim(h.msg, ".!")); len(words) > 0 && len(words) <= 3 && found["to"] == "" && found["from"] == "" && found["travellers"] == "" &&
		(asked == "to" || asked == "from") && unicode.IsUpper([]rune(words[0])[0]) && !t.words["trip.not_places"][words[0]] && !t.asksForOptions(strings.ToLower(h.msg)) {
		found[asked] = strings.TrimPrefix(strings.Join(words, " "), "From ")
	}
	for _, k := range tripKeys {
		if v := found[k]; v != "" && tr[k] != v && (tr[k] == "" || asked == k || h.change || k == "to" && narrows || k == "travellers" && partySize(v) > partySize(tr[k])) { // a party that grows: "we have a 4 year old too, so 2 adults 1 kid"
			tr[k] = strings.NewReplacer(";", ",", "\n", " ").Replace(v)
			added = append(added, v)
		}
	}
	return added
}

// heard is what a message says of a trip whatever the trip so far. A reply,
// its update_trip call and the question whether this is an open trip each
// read it, so heardIn reads each message once.
type heard struct {
	msg           string            // without what "until" ends (a note's end, not the trip's)
	found         map[string]string // to (a capitalised place), from, dates, budget, travellers
	moves, change bool              // intents.new_destination, intents.change
	purpose       string            // purposeOf
}

// heardIn reads a message's trip (heard), once per message.
func (t *table) heardIn(msg string) heard {
	return t.heard.Get(msg, func() heard {
		msg = t.lex.until.ReplaceAllString(msg, "")                   // "until the end of March" ends a note, not the trip
		if strings.Contains(msg, ">") || strings.Contains(msg, "→") { // most messages hold no arrow: the regexp is not run
			msg = reArrowLeg.ReplaceAllString(msg, "from $1 to $2") // "Madrid → Barcelona": where it starts and where it goes
		}
		low := strings.ToLower(msg)
		h := heard{msg: msg, moves: t.re["intents.new_destination"].MatchString(low), change: t.re["intents.change"].MatchString(low), purpose: t.purposeOf(low),
			found: map[string]string{"to": t.place(t.re["trip.destination"], msg), "from": t.place(t.re["trip.origin"], msg),
				"dates": t.tripDates(msg), "budget": t.tripBudget(msg)}}
		t.detailsIn(msg, h.found)
		return h
	})
}

// detailsIn reads into found the party and the spending words of a
// message, and writes its dates as inside a sentence ("next month", "in May").
func (t *table) detailsIn(msg string, found map[string]string) {
	if m := t.re["trip.party"].FindStringSubmatch(msg); m != nil {
		for i, name := range t.re["trip.party"].SubexpNames() {
			if m[i] != "" && name != "" {
				ws := strings.Fields(strings.ToLower(m[i]))
				for j, w := range ws {
					ws[j] = cmp.Or(t.file.PartyPerson[w], w)
				}
				found["travellers"] = strings.TrimSpace(strings.Replace(t.file.PartySay[name], "{x}", strings.Join(ws, " "), 1))
			}
		}
	}
	if loc := t.re["trip.budget_words"].FindStringIndex(msg); found["budget"] == "" && loc != nil && !strings.Contains(msg[loc[0]:loc[1]], " ") && !t.habitBefore(msg[:loc[0]]) {
		found["budget"] = strings.ToLower(msg[loc[0]:loc[1]])
	}
	if d := found["dates"]; d != "" && !t.words["trip.months"][strings.Fields(d)[0]] {
		found["dates"] = strings.ToLower(d[:1]) + d[1:] // "Next month" inside a sentence
	}
	found["dates"] = reMonthTyped.ReplaceAllStringFunc(found["dates"], capitalise) // "in may" typed in lower case: "in May"
}

// asksForOptions reports whether a message names a reply topic in any
// language ("Покажите отели" answers no "where from?").
func (t *table) asksForOptions(low string) bool {
	for _, vc := range t.voices {
		if vc.topicOf(low, false) != nil {
			return true
		}
	}
	return false
}

// place returns the first capitalised place re finds, cut before a
// weekday, month or sentence word.
func (t *table) place(re *pattern, msg string) string {
	for _, at := range re.FindAllStringSubmatchIndex(msg, -1) {
		g := 2
		for g+2 < len(at) && at[g] < 0 { // the first group the match filled
			g += 2
		}
		if at[g] < 0 || t.re["trip.home"].MatchString(msg[:at[0]]) || t.toldBefore(msg[:at[g+1]]) {
			continue // "I live in Austin", "moved to Denver": home, not the trip; "we went to Rome last year", "I switched to Delta": the past, a change
		}
		var kept []string
		for _, w := range strings.Fields(msg[at[g]:at[g+1]]) {
			if t.words["trip.not_places"][w] {
				break
			}
			kept = append(kept, w)
		}
		if len(kept) > 0 {
			return strings.Join(kept, " ")
		}
	}
	return ""
}

// lowerPlace is a place typed in lower case where the message's words
// say it is the trip's (trip.destination_lower), each word capitalised
// ("kyoto" → "Kyoto"); "" when there is none.
func (t *table) lowerPlace(low string) string {
	for range 4 {
		m := t.re["trip.destination_lower"].FindStringSubmatchIndex(low)
		if m == nil {
			return ""
		}
		for g := 2; g+1 < len(m); g += 2 {
			if m[g] < 0 {
				continue
			}
			var kept []string
			for _, w := range strings.Fields(low[m[g]:m[g+1]]) {
				if t.words["trip.lower_not"][w] {
					break
				}
				kept = append(kept, capitalise(w))
			}
			if len(kept) > 0 {
				return strings.Join(kept, " ")
			}
			low = low[:m[g]] + strings.Repeat(" ", m[g+1]-m[g]) + low[m[g+1]:] // "family trip to orlando": not "family", look on
			break
		}
	}
	return ""
}

// reArrowLeg is a leg typed with an arrow between two capitalised places
// ("Madrid → Barcelona", "Lisbon -> Porto").
var reArrowLeg = regexp.MustCompile(`\b(\p{Lu}[\p{L}'-]+(?: \p{Lu}[\p{L}'-]+)?) ?(?:→|->|–>|—>) ?(\p{Lu}[\p{L}'-]+(?: \p{Lu}[\p{L}'-]+)?)`)

// reMonthTyped is a month name as typed in a message's dates.
var reMonthTyped = regexp.MustCompile(`\b(?:january|february|march|april|may|june|july|august|september|october|november|december|jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec)\b`)

var rePlaceholder = regexp.MustCompile(`\{(\w+)\}`)

// reply answers the latest message in words, in its language; ack says
// what this turn's tool calls did. Order: acknowledgements, the answer to
// what was asked, safety, options, one question, the trip line.
func (t *table) reply(v *view, c capture, ack []string) string {
	vc := v.vc
	r := vc.Replies
	if v.unsupported {
		return r["unsupported"][0]
	}
	low := t.lex.expand.Replace(strings.ToLower(strings.ReplaceAll(v.latest, "’", "'")))
	is := func(intent string) bool { return vc.is[intent].MatchString(low) }
	tr := t.tripSoFar(v)
	added, purpose := t.readTrip(tr, v)
	work := cmp.Or(purpose, v.trips.purpose) == "business" // a work trip's party is not asked for
	v.trips.seed(tr)
	if home, _ := v.profile["home_city"].(string); len(tr) > 0 && tr["from"] == "" && home != "" {
		tr["from"] = home // never ask for what the profile says
	}
	fill := t.filler(v, tr)
	pick := func(variants []string, extra map[string]string) string { return t.pick(variants, v, fill, extra) }
	if c.instruction {
		return pick(r["instruction"], nil)
	}
	parts, question := ack, ""
	direct, answered := t.directAnswer(v, low, tr, fill)
	switch {
	case answered:
		parts = append(parts, direct)
	case is("recall"):
		parts = append(parts, t.recall(v, pick))
	case c.sensitive:
		parts = append(parts, pick(r["sensitive"], nil))
	case c.private && len(c.notes) == 0:
		parts = append(parts, pick(r["private"], nil))
	case c.otherPerson && len(c.notes) == 0:
		parts = append(parts, pick(r["other_person"], nil))
	case len(ack) == 0 && len(c.notes) > 0:
		parts = append(parts, pick(r["acknowledge"], map[string]string{"facts": vc.joinAnd(t.sayNotes(vc, c.notes))}))
	case len(ack) == 0 && len(c.known) > 0:
		parts = append(parts, pick(r["already_known"], map[string]string{"facts": vc.joinAnd(t.sayNotes(vc, c.known))}))
	}
	if is("food") {
		if diet := t.dietOf(v, c); len(diet) > 0 {
			parts = append(parts, pick(r["safety"], map[string]string{"diet": vc.joinAnd(diet)}))
		}
	}
	// A booking is restated once there is something to restate; before that
	// the trip helper asks for what is missing.
	before, tp := len(parts), vc.topicOf(low, tr["to"] == "" || tr["dates"] == "")
	if (len(c.notes)+len(c.known) > 0 || c.sensitive) && !is("question") && !t.isRequest(low) && !t.re["choosing"].MatchString(low) {
		tp = nil // "I'm vegetarian and I never fly red-eyes" tells, it does not ask for flights; nor does "the pin for hotel safes is …"
	}
	remark := !is("question") && !t.isRequest(low) && !t.re["choosing"].MatchString(low) && len(c.notes)+len(c.known) == 0 && t.remarks(v)
	if remark {
		tp = nil // "Paris hotel rooms are tiny, by the way" asks for no hotels: it is answered as a remark
	}
	if tp == nil && is("table") {
		// "compare two of them in a table": the options are the ones the
		// traveler asked for last.
		tp = vc.topicOf(t.lex.expand.Replace(strings.ToLower(v.previousUser())), tr["to"] == "" || tr["dates"] == "")
	}
	switch {
	case is("recall"), answered:
	case tp != nil:
		at, lead := tr["to"], ""
		if named := t.placeIn(low); named != "" && at != "" && t.placeNamed(named) != t.placeNamed(at) {
			at = named // "what to do in Rome?" on the Lisbon trip: options for Rome, the trip stays
			lead = t.pick(tp.Lead, v, t.filler(v, tr.at(named)), nil)
		}
		lead = cmp.Or(lead, pick(tp.Lead, nil))
		out, favoured := vc.refusals(v, c, tr["travellers"])
		if opts, placed := t.fitPlace(tp, at, out); len(opts) > 0 {
			opts = chooseOptions(opts, placed, favoured, vc.howMany(low), v)
			aside := r["illustrative"]
			if len(tp.Aside) > 0 {
				aside = tp.Aside
			}
			lead = vc.options(lead, opts, is("table")) + "\n\n" + pick(aside, nil) // a blank line ends the list
		}
		parts = append(parts, lead)
		said := strings.Join(parts, " ") // a note this turn just acknowledged is not kept "in mind" again, at a sentence's start or not
		if prefs := slices.DeleteFunc(t.prefsFor(v, tp), func(p string) bool { return strings.Contains(said, p) || strings.Contains(said, capitalise(p)) }); len(prefs) > 0 {
			parts = append(parts, pick(r["prefs"], map[string]string{"prefs": vc.joinAnd(prefs)}))
		}
		if next := tr.next(work); tp.Name != "booking" && (next == "to" || next == "dates" || next == "travellers") {
			question = t.askOnce(v, tr, next, pick)
		}
		if question == "" {
			question = t.askFresh(v, func(vc *voice) []string { return vc.topicNamed(tp.Name).Close }, pick, false)
		}
	case len(added) > 0 || (len(tr) > 0 && !is("thanks") && !is("greeting")):
		if remark {
			parts = append(parts, pick(r["remark"], nil))
		}
		if is("greeting") {
			parts = append(parts, pick(r["hello"], nil))
		}
		if len(added) > 0 {
			said := cmp.Or(vc.summary(tr.only(added)), vc.joinAnd(added)) // a value the trip stores cleaned up is said as it came
			parts = append(parts, pick(r["trip_ack"], map[string]string{"added": said}))
		}
		if question = t.askOnce(v, tr, tr.next(work), pick); tr.next(work) == "" {
			parts, question = append(parts, pick(r["trip_ready"], nil)), t.askFresh(v, func(vc *voice) []string { return vc.Replies["trip_next"] }, pick, false)
		}
	case is("greeting"):
		parts, question = append(parts, pick(r["greeting"], nil)), t.askOnce(v, tr, "to", pick)
	case is("thanks"):
		parts = append(parts, pick(r["thanks"], nil))
	case len(parts) == before && len(parts) == len(ack):
		switch {
		case remark: // "hotels are so pricey these days": answered as said
			parts = append(parts, pick(r["remark"], nil))
		case len(ack) == 0: // an acknowledgement is answer enough
			parts = append(parts, pick(r["fallback"], nil))
		}
		question = t.askOnce(v, tr, "to", pick)
	}
	if q := t.continueQuestion(v); q != "" {
		question = q
	}
	text := strings.TrimSpace(strings.Join(append(parts, question), " "))
	if text == "" { // nothing above applied: a reply never says only the trip line
		text = strings.TrimSpace(pick(r["fallback"], nil) + " " + t.askOnce(v, tr, "to", pick))
	}
	if line := vc.line(tr); len(tr) > 0 && (!strings.Contains(v.tripReply, line) || v.tripAge >= tripRestate) {
		text += "\n\n" + line // said when it changed, or it would drop out of sight
	}
	return text
}

// askOnce returns the question for a missing trip detail unless it is
// known or an earlier reply of this conversation asked it, in any
// language: the traveler heard it once.
func (t *table) askOnce(v *view, tr trip, slot string, pick func([]string, map[string]string) string) string {
	if slot == "" || tr[slot] != "" {
		return ""
	}
	return t.askFresh(v, func(vc *voice) []string { return vc.Ask[slot] }, pick, true)
}

// askFresh returns one of the variants of a question that no earlier
// reply asked in any language (none of them, when whole: they are one
// question), or "" when there is none left: nothing is asked twice.
func (t *table) askFresh(v *view, variants func(vc *voice) []string, pick func([]string, map[string]string) string, whole bool) string {
	var fresh []string
	for i, q := range variants(v.vc) {
		asked := false
		for _, vc := range t.voices {
			if qs := variants(vc); whole && v.saidBefore(qs) || !whole && i < len(qs) && v.saidBefore(qs[i:i+1]) {
				asked = true
			}
		}
		if !asked {
			fresh = append(fresh, q)
		}
	}
	if len(fresh) == 0 {
		return ""
	}
	return pick(fresh, nil)
}

// saidBefore reports whether an earlier reply of this conversation said
// one of the variants.
func (v *view) saidBefore(variants []string) bool {
	return slices.ContainsFunc(v.front, func(m memory.Message) bool { return m.Role == memory.RoleAssistant && said(m.Content, variants) })
}

// filler returns the placeholder values of this conversation.
func (t *table) filler(v *view, tr trip) map[string]string {
	vc := v.vc
	f := map[string]string{}
	for k, val := range tr {
		f[k] = vc.peopleRange(val)
	}
	if len(tr) > 0 {
		f["summary"] = vc.summary(tr)
	}
	for hole, tmpl := range vc.Holes {
		if key := rePlaceholder.FindStringSubmatch(tmpl); key != nil && tr[key[1]] != "" {
			f[hole] = strings.Replace(tmpl, key[0], f[key[1]], 1)
		}
	}
	f["forcountry"] = t.forCountry(vc, tr["to"], f["fordest"])
	if name := firstName(v.profile); name != "" {
		f["name"], f["comma_name"] = " "+name, ", "+name
	}
	if area := t.place(t.re["near"], v.latest); area != "" && area != tr["to"] {
		f["near"] = strings.Replace(vc.Holes["near_area"], "{area}", area, 1)
	}
	f["booking"] = f["summary"]
	if m := t.re["book_object"].FindStringSubmatch(v.latest); m != nil && !t.re["vague_object"].MatchString(m[1]) {
		obj := strings.Replace(transform(strings.TrimRight(m[1], ".!? "), "their"), "their ", "your ", 1)
		for _, part := range strings.Split(vc.summary(tr), ", ") {
			if part != "" && !strings.Contains(obj, strings.TrimPrefix(part, "from ")) {
				obj += ", " + part
			}
		}
		f["booking"] = obj
	}
	return f
}

// summary says the trip so far in words: "Rome, in May, for two".
func (vc *voice) summary(tr trip) string {
	var parts []string
	for _, k := range tripKeys {
		if tr[k] != "" {
			parts = append(parts, strings.Replace(vc.Summary[k], "{"+k+"}", vc.peopleRange(tr[k]), 1))
		}
	}
	return strings.Join(parts, ", ")
}

// pick renders the first variant, from a position that moves with the
// conversation, that the previous reply did not already say.
func (t *table) pick(variants []string, v *view, fill, extra map[string]string) string {
	render := func(s string) string {
		return rePlaceholder.ReplaceAllStringFunc(s, func(m string) string {
			if val, ok := extra[m[1:len(m)-1]]; ok {
				return val
			}
			return fill[m[1:len(m)-1]]
		})
	}
	seed := v.turn + len(v.latest)
	for i := range variants {
		if s := render(variants[(seed+i)%len(variants)]); !strings.Contains(v.prevReply, s) || i == len(variants)-1 {
			return s
		}
	}
	return ""
}

// fitPlace returns the options of a topic for a place, leaving out those
// the traveler ruled out: first those for what the gazetteer says it has (a
// beach resort in Nice, an old-town hotel in Rome), as many as placed says,
// then those that fit anywhere.
func (t *table) fitPlace(tp *topic, to string, out func(option string) bool) (opts []string, placed int) {
	if p := t.placeNamed(to); p != nil {
		for _, feature := range p.Has {
			opts = append(opts, tp.ByPlace[feature]...)
		}
	}
	opts = slices.DeleteFunc(opts, out)
	placed = len(opts)
	return append(opts, slices.DeleteFunc(slices.Clone(tp.Options), out)...), placed
}

// refusals says which options the traveler has ruled out, in this message
// or in a note, and which come first: a clause that refuses something ("I
// don't drive", "no beaches for us", "Hates layovers.") leaves out the
// options whose name holds what it points to (a rental car, a beach day, a
// one-stop flight) and puts first those that hold what it favours (a direct
// flight); a clause that names one without refusing it ("any beaches
// nearby?", "Loves boat trips.") puts those options first.
func (vc *voice) refusals(v *view, c capture, party string) (out, favoured func(option string) bool) {
	drops, lifts := vc.refusalsIn(v.latest)
	texts := make([]string, 0, len(c.notes)+len(v.notes)+1)
	if party != "" {
		texts = append(texts, party) // "2 adults 2 kids": no business hotel
	}
	for _, n := range c.notes {
		texts = append(texts, n.Text)
	}
	for _, n := range v.notes {
		texts = append(texts, n.text)
	}
	for _, text := range texts { // the same notes come on every call: what each refuses is remembered by its hash
		r := vc.refused.Get(maphash.String(vc.seed, text), func() [2][]string { d, l := vc.refusalsIn(text); return [2][]string{d, l} })
		drops, lifts = append(drops, r[0]...), append(lifts, r[1]...)
	}
	holds := func(frags []string, name bool) func(string) bool {
		return func(option string) bool {
			if name {
				option, _, _ = strings.Cut(option, ":")
			}
			return slices.ContainsFunc(frags, func(f string) bool { return strings.Contains(strings.ToLower(option), f) })
		}
	}
	return holds(drops, true), holds(lifts, false)
}

// refusalsIn adds what one text refuses and favours: the options a word of
// it rules out (rules_out), and clause by clause, what it refuses; a
// clause ends at punctuation or before "but" or "so" ("I don't drive, so
// how do we get around?" refuses driving, not getting around).
func (vc *voice) refusalsIn(text string) (drops, lifts []string) {
	low := strings.ToLower(text)
	for stem, frags := range vc.Refusing.RulesOut { // "Uses a wheelchair.": no heritage homestay, no walking tour
		if strings.Contains(low, stem) {
			drops = append(drops, frags...)
		}
	}
	var clause []string
	flush := func() {
		refuses := slices.ContainsFunc(clause, func(w string) bool { return vc.refuse[w] }) && !slices.ContainsFunc(clause, func(w string) bool { return vc.notRefuse[w] })
		cl := " " + strings.Join(clause, " ")
		for stem, points := range vc.Refusing.Points {
			switch {
			case !strings.Contains(cl, " "+stem):
			case refuses:
				drops = append(drops, points...)
			default:
				lifts = append(lifts, points...) // "any beaches nearby?": what is asked for comes first
			}
		}
		for stem, favours := range vc.Refusing.Favours {
			if refuses && strings.Contains(cl, " "+stem) {
				lifts = append(lifts, favours...)
			}
		}
		clause = clause[:0]
	}
	for _, tok := range strings.Fields(strings.ToLower(strings.ReplaceAll(text, "’", "'"))) {
		w := strings.TrimFunc(tok, func(r rune) bool { return !unicode.IsLetter(r) && r != '\'' && r != '-' })
		if w == "but" || w == "so" {
			flush()
		}
		if w != "" {
			clause = append(clause, w)
		}
		if strings.ContainsAny(tok[len(tok)-1:], ",.;:!?") {
			flush()
		}
	}
	flush()
	return drops, lifts
}

// howMany is the number of options a message asks for ("compare two
// hotels"), else three.
func (vc *voice) howMany(low string) int {
	if m := vc.is["count"].FindStringSubmatch(low); m != nil && vc.Counts[m[1]] > 0 {
		return vc.Counts[m[1]]
	}
	return 3
}

// placeNamed is the gazetteer's entry for a destination, or nil.
func (t *table) placeNamed(to string) *place {
	to = strings.ToLower(strings.TrimSpace(to))
	if p, ok := t.placeIndex[to]; ok || isASCII(to) {
		return p // only a Russian case ending needs the search ("в Риме")
	}
	for i, p := range t.places {
		if slices.ContainsFunc(p.Names, func(n string) bool { return nameOf(n, to) }) {
			return &t.places[i]
		}
	}
	return nil
}

// within reports whether the gazetteer puts the place city in the country
// (in any of its languages).
func (t *table) within(city, country string) bool {
	p := t.placeNamed(city)
	return p != nil && country != "" && slices.ContainsFunc(slices.Collect(maps.Values(p.Country)), func(c string) bool {
		return strings.EqualFold(strings.TrimPrefix(c, "the "), country)
	})
}

// forCountry is the "for Japan" of a destination the gazetteer knows the
// country of, else fordest ("for Tokyo").
func (t *table) forCountry(vc *voice, to, fordest string) string {
	if p := t.placeNamed(to); p != nil && p.Country[vc.lang] != "" {
		return strings.Replace(vc.Holes["forcountry"], "{country}", p.Country[vc.lang], 1)
	}
	return fordest
}

// placeIn is the first place the gazetteer knows, or the country of one,
// that a lower-cased message names ("do I need a visa for rome?"), each
// word capitalised ("Rome", "New York"); "" when it names none.
func (t *table) placeIn(low string) string {
	name := ""
	ws := strings.FieldsFunc(low, func(r rune) bool { return !unicode.IsLetter(r) && r != '-' })
	for i := 0; i < len(ws) && name == ""; i++ {
		for n := min(3, len(ws)-i) * btoi(t.nameStarts[ws[i]]); n > 1; n-- { // "saint petersburg", "new york"
			if k := strings.Join(ws[i:i+n], " "); t.placeIndex[k] != nil || t.countryIndex[k] {
				name = k
				break
			}
		}
		if name == "" && (t.placeIndex[ws[i]] != nil || t.countryIndex[ws[i]]) { // "rome"
			name = ws[i]
		}
	}
	words := strings.Fields(name)
	for i, w := range words {
		words[i] = capitalise(w)
	}
	return strings.Join(words, " ")
}

// indexWord is the index of word in s as a whole word, or -1.
func indexWord(s, word string) int {
	for off := 0; ; {
		i := strings.Index(s[off:], word)
		if i < 0 || word == "" {
			return -1
		}
		i += off
		before, _ := utf8.DecodeLastRuneInString(s[:i])
		after, _ := utf8.DecodeRuneInString(s[i+len(word):])
		if !unicode.IsLetter(before) && !unicode.IsLetter(after) {
			return i
		}
		off = i + len(word)
	}
}

// nameOf reports whether to is the place name n, allowing a Russian case
// ending ("в Риме", "в Москве").
func nameOf(n, to string) bool {
	stem := strings.TrimRight(n, "аяеоиыуюь")
	return n == to || stem != "" && stem[0] >= 0x80 && strings.HasPrefix(to, stem) && len([]rune(to))-len([]rune(stem)) <= 2
}

// options renders the options as a list, or as a table when the traveler
// asked for one.
func (vc *voice) options(lead string, opts []string, table bool) string {
	if !table {
		return lead + "\n\n- " + strings.Join(opts, "\n- ")
	}
	rows := []string{lead, "", "| " + vc.Replies["table_head"][0] + " |", "|---|---|"}
	for _, o := range opts {
		name, rest, _ := strings.Cut(o, ": ")
		rows = append(rows, "| "+capitalise(name)+" | "+rest+" |")
	}
	return strings.Join(rows, "\n")
}

// chooseOptions takes up to n options, leaving out those the previous
// reply already offered: first those the traveler's refusals favour (a
// direct flight for someone who hates layovers), then one of the place's
// own when it has some (the first placed of options), the rest rotating
// with the conversation.
func chooseOptions(options []string, placed int, favoured func(string) bool, n int, v *view) []string {
	var out []string
	fresh := func(o string) bool { return !strings.Contains(v.prevReply, o) && !slices.Contains(out, o) }
	for _, o := range options {
		if favoured(o) && len(out) < n-1 { // room for something to compare it with
			out = append(out, o)
		}
	}
	seed := v.turn + len(v.latest)
	for i, took := 0, false; i < placed && !took && len(out) < n; i++ {
		if o := options[(seed+i)%placed]; fresh(o) {
			out, took = append(out, o), true
		}
	}
	for i := 0; i < len(options) && len(out) < n; i++ {
		if o := options[(seed+i)%len(options)]; fresh(o) {
			out = append(out, o)
		}
	}
	for i := 0; i < len(options) && len(out) < min(2, len(options)); i++ { // something to compare, even if said before
		if o := options[i]; !slices.Contains(out, o) {
			out = append(out, o)
		}
	}
	return out
}

func (vc *voice) topicNamed(name string) topic {
	i := slices.IndexFunc(vc.topics, func(tp topic) bool { return tp.Name == name })
	return vc.topics[i] // every voice has every topic (TestVoicesSayTheSameThings)
}

// topicOf is the topic the message names first ("how do we get from the
// airport to the hotel" is about getting there, "a hotel near the airport"
// about staying); a booking only once the trip has a place and dates.
func (vc *voice) topicOf(low string, notBooking bool) *topic {
	var first *topic
	for i := range vc.topics {
		if tp := &vc.topics[i]; !(notBooking && tp.Name == "booking") && tp.re.MatchString(low) {
			first, low = tp, low[:tp.re.FindStringIndex(low)[0]] // a later topic must be named before it
		}
	}
	return first
}

// dietOf lists the allergies and dietary needs known from this message and
// from what the model was sent, allergies first.
func (t *table) dietOf(v *view, c capture) []string {
	var diet, texts []string
	for _, n := range c.notes {
		texts = append(texts, n.Text)
	}
	for _, n := range v.notes {
		texts = append(texts, n.text)
	}
	for _, text := range texts {
		if p := t.sayNote(v.vc, text); t.re["safety_notes"].MatchString(text) && !slices.Contains(diet, p) {
			diet = append(diet, p)
		}
	}
	slices.SortStableFunc(diet, func(a, b string) int {
		return btoi(!strings.Contains(a, "allerg")) - btoi(!strings.Contains(b, "allerg"))
	})
	return diet
}

// prefsFor lists up to two remembered preferences that bear on a topic.
func (t *table) prefsFor(v *view, tp *topic) []string {
	var out []string
	for i := len(v.notes) - 1; i >= 0 && len(out) < 2 && tp.uses != nil; i-- {
		if tp.uses.MatchString(v.notes[i].text) && !t.re["safety_notes"].MatchString(v.notes[i].text) {
			out = append(out, t.sayNote(v.vc, v.notes[i].text))
		}
	}
	return out
}

// recall answers "what do you know about me" from the blocks it was sent:
// a sentence a fact, the profile's in words, the trip-only notes apart.
func (t *table) recall(v *view, pick func([]string, map[string]string) string) string {
	r := v.vc.Replies
	var lines, thisTrip []string
	said := map[string]bool{} // a profile clause a note says already is said once
	for _, n := range v.notes {
		said[strings.ToLower(t.sayNote(v.vc, n.text))] = true
	}
	for _, p := range t.profileSay(v, withoutFields(v.profile, v.overrides)) {
		if !said[strings.ToLower(p)] {
			lines = append(lines, "- "+sentence(p))
		}
	}
	for _, k := range slices.Sorted(maps.Keys(v.overrides)) {
		lines = append(lines, "- "+pick(r["override"], map[string]string{"field": capitalise(strings.ReplaceAll(k, "_", " ")), "now": v.overrides[k][0], "old": v.overrides[k][1]}))
	}
	for _, n := range v.notes {
		if n.trip {
			thisTrip = append(thisTrip, "- "+sentence(t.sayNote(v.vc, withoutTripSuffix(n.text))))
		} else {
			lines = append(lines, "- "+sentence(t.sayNote(v.vc, n.text)))
		}
	}
	if len(thisTrip) > 0 {
		lines = append(append(lines, "", pick(r["recall_trip"], nil), ""), thisTrip...) // a blank line around a list
	}
	switch {
	case len(lines) > 0:
		return pick(r["recall_lead"], nil) + "\n\n" + strings.Join(lines, "\n") + "\n\n" + pick(r["recall_close"], nil)
	case firstName(v.profile) != "":
		return pick(r["recall_name_only"], nil)
	}
	return pick(r["recall_empty"], nil)
}

// sayNote says a remembered note to the traveler: in the second person
// when it is in English and so is the reply ("You prefer aisle seats"),
// else quoted as written, since a note keeps the language it was said in.
//
// The same remembered notes come on every call of a conversation, and
// what is said of a note depends on nothing else, so it is remembered by
// the note's text.
func (t *table) sayNote(vc *voice, text string) string {
	if vc.lang != langEN {
		return "«" + strings.TrimSpace(text) + "»"
	}
	return t.said.Get(text, func() string {
		if messageLanguage(text, langEN) == langEN {
			return t.lex.second(text)
		}
		return "«" + strings.TrimSpace(text) + "»"
	})
}

func (t *table) sayNotes(vc *voice, notes []memory.SaveNoteArgs) []string {
	out := make([]string, len(notes))
	for i, n := range notes {
		out[i] = t.sayNote(vc, n.Text)
	}
	return out
}

// sentence capitalises s and ends it with a full stop, unless it is a quote.
func sentence(s string) string {
	if s = capitalise(s); !strings.HasSuffix(s, "»") && !strings.HasSuffix(s, ".") {
		s += "."
	}
	return s
}

func capitalise(s string) string {
	if s == "" {
		return s
	}
	r := []rune(s)
	return string(unicode.ToUpper(r[0])) + string(r[1:])
}

// joinAnd joins items as the language lists them: "a, b and c".
func (vc *voice) joinAnd(items []string) string {
	if len(items) <= 1 {
		return strings.Join(items, "")
	}
	return strings.Join(items[:len(items)-1], ", ") + vc.And + items[len(items)-1]
}
