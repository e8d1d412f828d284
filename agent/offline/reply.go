package offline

import (
	"encoding/json"
	"regexp"
	"strconv"
	"strings"

	"concierge/memory"
)

// trip is what the conversation has established about the trip. It travels
// in the last line of each reply ("Trip so far — …"), so the next call reads
// it back from one message instead of rescanning the history, and it
// survives the trimming of old turns.
type trip struct{ dest, dates, origin, party, budget string }

const tripPrefix = "Trip so far — "

var tripKeys = []string{"to", "dates", "from", "travellers", "budget"}

func (tr *trip) slot(key string) *string {
	return map[string]*string{"to": &tr.dest, "dates": &tr.dates, "from": &tr.origin, "travellers": &tr.party, "budget": &tr.budget}[key]
}

func parseTrip(reply string) trip {
	var tr trip
	i := strings.LastIndex(reply, tripPrefix)
	if i < 0 {
		return tr
	}
	line, _, _ := strings.Cut(reply[i+len(tripPrefix):], "\n")
	for _, part := range strings.Split(strings.TrimSuffix(line, "."), "; ") {
		if k, val, ok := strings.Cut(part, ": "); ok && tr.slot(k) != nil {
			*tr.slot(k) = val
		}
	}
	return tr
}

func (tr trip) active() bool { return tr != trip{} }

func (tr trip) line() string {
	var parts []string
	for _, k := range tripKeys {
		if v := *tr.slot(k); v != "" {
			parts = append(parts, k+": "+v)
		}
	}
	return tripPrefix + strings.Join(parts, "; ") + "."
}

// summary restates the trip in words, for the traveler to check.
func (tr trip) summary() string {
	var parts []string
	for _, p := range []struct{ pre, v string }{{"", tr.dest}, {"", tr.dates}, {"from ", tr.origin}, {"for ", tr.party}, {"budget ", tr.budget}} {
		if p.v != "" {
			parts = append(parts, p.pre+p.v)
		}
	}
	return strings.Join(parts, ", ")
}

// next is the first thing the trip still misses.
func (tr trip) next() string {
	for _, k := range []string{"destination", "dates", "origin", "party", "budget"} {
		if *tr.slot(map[string]string{"destination": "to", "dates": "dates", "origin": "from", "party": "travellers", "budget": "budget"}[k]) == "" {
			return k
		}
	}
	return ""
}

var slotKey = map[string]string{"destination": "to", "dates": "dates", "origin": "from", "party": "travellers", "budget": "budget"}

// askedSlot finds which trip question the previous reply asked.
func (t *table) askedSlot(prev string) string {
	for slot, variants := range t.file.Ask {
		for _, q := range variants {
			if head, _, _ := strings.Cut(q, "{"); head != "" && strings.Contains(prev, head) {
				return slot
			}
		}
	}
	return ""
}

// updateTrip reads the latest message into the trip: a slot is filled when
// it is empty, was just asked for, or the traveler changes it.
func (t *table) updateTrip(tr trip, msg, asked string) (trip, []string) {
	var added []string
	change := t.re["intents.change"].MatchString(strings.ToLower(msg))
	set := func(slot, val string) {
		p := tr.slot(slotKey[slot])
		if val == "" || *p == val || (*p != "" && asked != slot && !change) {
			return
		}
		*p = strings.NewReplacer(";", ",", "\n", " ").Replace(val)
		added = append(added, val)
	}
	dest := t.place(t.re["trip.destination"], msg)
	if tr.dest != "" && !t.re["intents.new_destination"].MatchString(strings.ToLower(msg)) {
		dest = ""
	}
	origin := t.place(t.re["trip.origin"], msg)
	if words := strings.Fields(strings.Trim(msg, ".!")); len(words) <= 3 && dest == "" && origin == "" {
		answer := strings.TrimPrefix(strings.TrimPrefix(strings.Join(words, " "), "from "), "to ")
		if r := []rune(answer); len(r) > 0 && r[0] >= 'A' && r[0] <= 'Z' && !t.words["trip.not_places"][words[0]] {
			switch asked {
			case "destination":
				dest = answer
			case "origin":
				origin = answer
			}
		}
	}
	set("destination", dest)
	set("origin", origin)
	set("dates", strings.TrimSpace(t.re["trip.dates"].FindString(msg)))
	if m := t.re["trip.party"].FindStringSubmatch(msg); m != nil {
		set("party", partyOf(t.re["trip.party"], m))
	}
	budget := t.re["trip.budget"].FindString(msg)
	if budget == "" {
		budget = strings.ToLower(t.re["trip.budget_words"].FindString(msg))
	}
	set("budget", budget)
	return tr, added
}

func partyOf(re *regexp.Regexp, m []string) string {
	for i, name := range re.SubexpNames() {
		if m[i] == "" {
			continue
		}
		w := strings.ToLower(m[i])
		switch name {
		case "p1", "p2":
			return "you and your " + w
		case "p3":
			return w
		case "p4":
			return "just you"
		case "p5":
			return "a family of " + w
		}
	}
	return ""
}

// place returns the first capitalised place re finds that is not a
// weekday, month or sentence word.
func (t *table) place(re *regexp.Regexp, msg string) string {
	for _, m := range re.FindAllStringSubmatch(msg, -1) {
		var kept []string
		for _, w := range strings.Fields(m[1]) {
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

var (
	reBookObject = regexp.MustCompile(`(?i)\b(?:book|reserve)\s+(?:me\s+|us\s+)?(.+)$`)
	reVague      = regexp.MustCompile(`(?i)^(?:it|that|this|everything|them|the (?:hotel|flight|trip|plan))\b`)
)

var reNear = regexp.MustCompile(`\b(?:near|in|around|at|by|to)\s+((?:[A-Z][\p{L}'-]+)(?:\s+[A-Z][\p{L}'-]+)*)`)

// reply answers the latest message in words. ack carries what this turn's
// tool calls did.
func (t *table) reply(v *view, c capture, ack []string) string {
	r := t.file.Replies
	low := contractions.Replace(strings.ToLower(strings.NewReplacer("’", "'").Replace(v.latest)))
	tr := parseTrip(v.prevReply)
	tr, added := t.updateTrip(tr, v.latest, t.askedSlot(v.prevReply))
	fill := t.filler(v, tr)
	seed := v.turn + len(v.latest)
	pick := func(variants []string, extra map[string]string) string {
		return t.pick(variants, seed, v.prevReply, fill, extra)
	}
	if c.instruction {
		return pick(r["instruction"], nil)
	}
	parts := ack
	if t.re["intents.recall"].MatchString(low) {
		text := strings.Join(append(parts, t.recall(v, pick)), " ")
		if tr.active() {
			text += "\n" + tr.line()
		}
		return text
	}
	if c.sensitive {
		parts = append(parts, pick(r["sensitive"], nil))
	}
	if c.otherPerson && len(c.notes) == 0 {
		parts = append(parts, pick(r["other_person"], nil))
	}
	if len(ack) == 0 && len(c.notes) > 0 {
		parts = append(parts, pick(r["acknowledge"], map[string]string{"facts": joinAnd(secondAll(c.notes))}))
	} else if len(ack) == 0 && len(c.known) > 0 {
		parts = append(parts, pick(r["already_known"], map[string]string{"facts": joinAnd(secondAll(c.known))}))
	}
	if t.re["food"].MatchString(low) {
		if diet := t.dietOf(v, c); len(diet) > 0 {
			parts = append(parts, pick(r["safety"], map[string]string{"diet": joinAnd(diet)}))
		}
	}
	question, before := "", len(parts)
	switch tp := t.topicOf(low); {
	case tp != nil:
		lead := pick(tp.Lead, nil)
		if opts := chooseOptions(tp.Options, seed, v.prevReply); len(opts) > 0 {
			lead += "\n- " + strings.Join(opts, "\n- ") + "\n" + pick(r["illustrative"], nil)
		}
		parts = append(parts, lead)
		if prefs := t.prefsFor(v, tp); len(prefs) > 0 {
			parts = append(parts, pick(r["prefs"], map[string]string{"prefs": joinAnd(prefs)}))
		}
		question = pick(tp.Close, nil)
		if next := tr.next(); tp.Name != "booking" && next != "" && next != "origin" && next != "budget" {
			question = pick(t.file.Ask[next], nil)
		}
	case len(added) > 0 || (tr.active() && len(parts) == before && !t.re["intents.thanks"].MatchString(low) && !t.re["intents.greeting"].MatchString(low)):
		if len(added) > 0 {
			parts = append(parts, pick(r["trip_ack"], map[string]string{"added": joinAnd(added)}))
		}
		if next := tr.next(); next != "" {
			question = pick(t.file.Ask[next], nil)
		} else {
			parts = append(parts, pick(r["trip_ready"], nil))
			question = pick(r["trip_next"], nil)
		}
	case t.re["intents.greeting"].MatchString(low):
		parts = append(parts, pick(r["greeting"], nil))
		question = pick(t.file.Ask["destination"], nil)
	case t.re["intents.thanks"].MatchString(low):
		parts = append(parts, pick(r["thanks"], nil))
	case len(parts) == before:
		parts = append(parts, pick(r["fallback"], nil))
		question = pick(t.file.Ask["destination"], nil)
	}
	if question != "" {
		parts = append(parts, question)
	}
	text := strings.Join(parts, " ")
	if tr.active() {
		text += "\n" + tr.line()
	}
	return text
}

// filler returns the placeholder values of this conversation.
func (t *table) filler(v *view, tr trip) map[string]string {
	f := map[string]string{"dest": tr.dest, "summary": tr.summary()}
	if f["dest"] == "" {
		f["dest"] = "your trip"
	}
	if f["summary"] == "" {
		f["summary"] = "nothing settled yet"
	}
	if name := firstName(v.profile); name != "" {
		f["name"], f["comma_name"] = " "+name, ", "+name
	}
	area := t.place(reNear, v.latest)
	switch {
	case area != "" && area != tr.dest:
		f["near"] = " near " + area
	case tr.dest != "":
		f["near"] = " in " + tr.dest
	}
	if tr.party != "" {
		f["forparty"] = " for " + tr.party
	}
	if tr.budget != "" {
		f["within"] = " around " + tr.budget
	}
	if tr.origin != "" {
		f["fromorigin"] = " from " + tr.origin
	}
	f["booking"] = f["summary"]
	if m := reBookObject.FindStringSubmatch(v.latest); m != nil && !reVague.MatchString(m[1]) {
		obj := transform(strings.TrimRight(m[1], ".!? "), "their")
		f["booking"] = strings.Replace(obj, "their ", "your ", 1)
		if tr.active() {
			f["booking"] += " — " + tr.summary()
		}
	}
	if tr.dest != "" {
		f["todest"] = " to " + tr.dest
	}
	return f
}

var rePlaceholder = regexp.MustCompile(`\{(\w+)\}`)

// pick renders the first variant, from a position that moves with the
// conversation, that the previous reply did not already say.
func (t *table) pick(variants []string, seed int, prev string, fill, extra map[string]string) string {
	render := func(s string) string {
		return rePlaceholder.ReplaceAllStringFunc(s, func(m string) string {
			k := m[1 : len(m)-1]
			if v, ok := extra[k]; ok {
				return v
			}
			return fill[k]
		})
	}
	if len(variants) == 0 {
		return ""
	}
	first := render(variants[seed%len(variants)])
	for i := range variants {
		if s := render(variants[(seed+i)%len(variants)]); !strings.Contains(prev, s) {
			return s
		}
	}
	return first
}

// chooseOptions takes three options, from a position that moves with the
// conversation, leaving out those the previous reply already offered.
func chooseOptions(options []string, seed int, prev string) []string {
	var out []string
	for i := 0; i < len(options) && len(out) < 3; i++ {
		if o := options[(seed+i)%len(options)]; !strings.Contains(prev, o) {
			out = append(out, o)
		}
	}
	return out
}

func (t *table) topicOf(low string) *topic {
	for i := range t.topics {
		if t.topics[i].re.MatchString(low) {
			return &t.topics[i]
		}
	}
	return nil
}

// dietOf lists the allergies and dietary needs known from this message and
// the memory the model was sent, allergies first.
func (t *table) dietOf(v *view, c capture) []string {
	var allergies, diets []string
	seen := map[string]bool{}
	add := func(text string) {
		p := strings.Replace(secondPerson(text), " on this trip", " on this trip", 1)
		if !t.re["safety_notes"].MatchString(text) || seen[p] {
			return
		}
		seen[p] = true
		if strings.Contains(strings.ToLower(text), "allerg") {
			allergies = append(allergies, p)
		} else {
			diets = append(diets, p)
		}
	}
	for _, n := range c.notes {
		add(n.Text)
	}
	for _, n := range v.notes {
		add(n.text)
	}
	return append(allergies, diets...)
}

// prefsFor lists up to two remembered preferences that bear on a topic.
func (t *table) prefsFor(v *view, tp *topic) []string {
	var out []string
	for i := len(v.notes) - 1; i >= 0 && len(out) < 2; i-- {
		if tp.uses != nil && tp.uses.MatchString(v.notes[i].text) && !t.re["safety_notes"].MatchString(v.notes[i].text) {
			out = append(out, secondPerson(v.notes[i].text))
		}
	}
	return out
}

// recall answers "what do you know about me" from the blocks it was sent.
func (t *table) recall(v *view, pick func([]string, map[string]string) string) string {
	r := t.file.Replies
	profile := profileLines(v.profile)
	var usual, thisTrip []string
	for _, n := range v.notes {
		line := "- " + capitalise(secondPerson(n.text)) + "."
		if n.trip {
			thisTrip = append(thisTrip, strings.Replace(line, " on this trip", "", 1))
		} else {
			usual = append(usual, line)
		}
	}
	if len(profile) == 0 && len(usual) == 0 && len(thisTrip) == 0 {
		if firstName(v.profile) != "" {
			return pick(r["recall_name_only"], nil)
		}
		return pick(r["recall_empty"], nil)
	}
	lines := []string{pick(r["recall_lead"], nil)}
	if len(profile) > 0 {
		lines = append(lines, "- From your profile: "+strings.Join(profile, "; ")+".")
	}
	lines = append(lines, usual...)
	if len(thisTrip) > 0 {
		lines = append(append(lines, "For this trip only:"), thisTrip...)
	}
	return strings.Join(append(lines, pick(r["recall_close"], nil)), "\n")
}

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

var thirdToSecond = map[string]string{"is": "you're", "has": "you have", "keeps": "you keep", "needs": "you need"}

// secondPerson turns a stored note into words for the traveler:
// "Prefers aisle seats." → "you prefer aisle seats".
func secondPerson(text string) string {
	t := strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(text), "."))
	words := strings.Fields(t)
	if len(words) == 0 {
		return ""
	}
	first, rest := strings.ToLower(words[0]), strings.Join(words[1:], " ")
	var out string
	switch {
	case first == "does" && len(words) > 1 && words[1] == "not":
		out = "you don't " + strings.Join(words[2:], " ")
	case thirdToSecond[first] != "":
		out = thirdToSecond[first] + " " + rest
	case first == "usually" || first == "always" || first == "never":
		out = "you " + first + " " + strings.TrimPrefix(secondPerson(rest), "you ")
	case first == "allergic":
		out = "you're " + strings.ToLower(t[:1]) + t[1:]
	case strings.HasSuffix(first, "s") && len(first) > 3 && !strings.HasSuffix(first, "ss"):
		out = "you " + baseVerb(first) + " " + rest
	default:
		out = strings.ToLower(t[:1]) + t[1:]
	}
	return strings.TrimSpace(strings.ReplaceAll(out+" ", " their ", " your "))
}

func baseVerb(w string) string {
	switch {
	case strings.HasSuffix(w, "ies"):
		return strings.TrimSuffix(w, "ies") + "y"
	case strings.HasSuffix(w, "ches"), strings.HasSuffix(w, "shes"), strings.HasSuffix(w, "xes"):
		return strings.TrimSuffix(w, "es")
	}
	return strings.TrimSuffix(w, "s")
}

func secondAll(notes []memory.SaveNoteArgs) []string {
	out := make([]string, len(notes))
	for i, n := range notes {
		out[i] = secondPerson(n.Text)
	}
	return out
}

func capitalise(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

func joinAnd(items []string) string {
	if len(items) <= 1 {
		return strings.Join(items, "")
	}
	return strings.Join(items[:len(items)-1], ", ") + " and " + items[len(items)-1]
}
