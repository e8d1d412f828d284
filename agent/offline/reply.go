package offline

import (
	"cmp"
	"regexp"
	"slices"
	"strings"
)

// trip is what the conversation has established, by the keys of rules.yaml
// "ask". It travels in the last line of each reply ("Trip so far — …"), so
// the next call reads it from one message instead of rescanning the
// history, and it survives the trimming of old turns.
type trip map[string]string

var tripKeys = []string{"to", "dates", "from", "travellers", "budget"}

const tripPrefix = "Trip so far — "

func parseTrip(reply string) trip {
	tr := trip{}
	if i := strings.LastIndex(reply, tripPrefix); i >= 0 {
		line, _, _ := strings.Cut(reply[i+len(tripPrefix):], "\n")
		for _, part := range strings.Split(strings.TrimSuffix(line, "."), "; ") {
			if k, val, ok := strings.Cut(part, ": "); ok {
				tr[k] = val
			}
		}
	}
	return tr
}

// render joins the known details with their labels, in asking order.
func (tr trip) render(label func(k string) string, sep string) string {
	var parts []string
	for _, k := range tripKeys {
		if tr[k] != "" {
			parts = append(parts, label(k))
		}
	}
	return strings.Join(parts, sep)
}

func (tr trip) next() string {
	for _, k := range tripKeys {
		if tr[k] == "" {
			return k
		}
	}
	return ""
}

// askedSlot finds which trip question the previous reply asked.
func (t *table) askedSlot(prev string) string {
	for slot := range t.file.Ask {
		if t.asks(prev, slot) {
			return slot
		}
	}
	return ""
}

// asks reports whether a reply asks the trip question for slot.
func (t *table) asks(reply, slot string) bool {
	return slices.ContainsFunc(t.file.Ask[slot], func(q string) bool {
		head, _, _ := strings.Cut(q, "{")
		return strings.Contains(reply, head)
	})
}

// updateTrip reads the latest message into the trip: a detail is taken when
// it is new, was just asked for, or the traveler changes it.
func (t *table) updateTrip(tr trip, msg, asked string) []string {
	var added []string
	msg = t.lex.until.ReplaceAllString(msg, "") // "until the end of March" ends a note, not the trip
	low := strings.ToLower(msg)
	found := map[string]string{"to": t.place(t.re["trip.destination"], msg), "from": t.place(t.re["trip.origin"], msg),
		"dates": strings.TrimSpace(t.re["trip.dates"].FindString(msg)), "budget": t.re["trip.budget"].FindString(msg)}
	if tr["to"] != "" && !t.re["intents.new_destination"].MatchString(low) {
		found["to"] = ""
	}
	if m := t.re["trip.party"].FindStringSubmatch(msg); m != nil {
		for i, name := range t.re["trip.party"].SubexpNames() {
			if m[i] != "" && name != "" {
				found["travellers"] = strings.TrimSpace(strings.Replace(t.file.Summary["party_"+name], "{x}", strings.ToLower(m[i]), 1))
			}
		}
	}
	if found["budget"] == "" {
		found["budget"] = strings.ToLower(t.re["trip.budget_words"].FindString(msg))
	}
	if d := found["dates"]; d != "" && !t.words["trip.months"][strings.Fields(d)[0]] {
		found["dates"] = strings.ToLower(d[:1]) + d[1:] // "Next month" inside a sentence
	}
	if words := strings.Fields(strings.Trim(msg, ".!")); len(words) > 0 && len(words) <= 3 && found["to"] == "" && found["from"] == "" && found["travellers"] == "" &&
		(asked == "to" || asked == "from") && words[0][0] >= 'A' && words[0][0] <= 'Z' && !t.words["trip.not_places"][words[0]] {
		found[asked] = strings.TrimPrefix(strings.Join(words, " "), "From ")
	}
	change := t.re["intents.change"].MatchString(low)
	for _, k := range tripKeys {
		if v := found[k]; v != "" && tr[k] != v && (tr[k] == "" || asked == k || change) {
			tr[k] = strings.NewReplacer(";", ",", "\n", " ").Replace(v)
			added = append(added, v)
		}
	}
	return added
}

// place returns the first capitalised place re finds, cut before a
// weekday, month or sentence word.
func (t *table) place(re *pattern, msg string) string {
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

var rePlaceholder = regexp.MustCompile(`\{(\w+)\}`)

// reply answers the latest message in words; ack says what this turn's
// tool calls did. Order: acknowledgements, safety, the answer, one question,
// the trip line.
func (t *table) reply(v *view, c capture, ack []string) string {
	r := t.file.Replies
	low := t.lex.expand.Replace(strings.ToLower(strings.ReplaceAll(v.latest, "’", "'")))
	is := func(intent string) bool { return t.re["intents."+intent].MatchString(low) }
	tr := parseTrip(v.prevReply)
	v.trips.seed(tr)
	added := t.updateTrip(tr, v.latest, t.askedSlot(v.prevReply))
	if home, _ := v.profile["home_city"].(string); len(tr) > 0 && tr["from"] == "" && home != "" {
		tr["from"] = home // never ask for what the profile says
	}
	fill := t.filler(v, tr)
	pick := func(variants []string, extra map[string]string) string { return t.pick(variants, v, fill, extra) }
	if c.instruction {
		return pick(r["instruction"], nil)
	}
	parts, question := ack, ""
	direct, answered := t.directAnswer(v, low)
	switch {
	case answered:
		parts = append(parts, direct)
	case is("recall"):
		parts = append(parts, t.recall(v, pick))
	case c.sensitive:
		parts = append(parts, pick(r["sensitive"], nil))
	case c.otherPerson && len(c.notes) == 0:
		parts = append(parts, pick(r["other_person"], nil))
	case len(ack) == 0 && len(c.notes) > 0:
		parts = append(parts, pick(r["acknowledge"], map[string]string{"facts": joinAnd(t.lex.secondAll(c.notes))}))
	case len(ack) == 0 && len(c.known) > 0:
		parts = append(parts, pick(r["already_known"], map[string]string{"facts": joinAnd(t.lex.secondAll(c.known))}))
	}
	if t.re["food"].MatchString(low) {
		if diet := t.dietOf(v, c); len(diet) > 0 {
			parts = append(parts, pick(r["safety"], map[string]string{"diet": joinAnd(diet)}))
		}
	}
	// A booking is restated once there is something to restate; before that
	// the trip helper asks for what is missing.
	before, tp := len(parts), t.topicOf(low, tr["to"] == "" || tr["dates"] == "")
	switch {
	case is("recall"), answered:
	case tp != nil:
		lead := pick(tp.Lead, nil)
		if opts := chooseOptions(t.fitPlace(tp.Options, tr["to"]), v); len(opts) > 0 {
			lead = t.options(lead, opts, low) + "\n\n" + pick(r["illustrative"], nil) // a blank line ends the list
		}
		parts = append(parts, lead)
		if prefs := t.prefsFor(v, tp); len(prefs) > 0 {
			parts = append(parts, pick(r["prefs"], map[string]string{"prefs": joinAnd(prefs)}))
		}
		question = pick(tp.Close, nil)
		if next := tr.next(); tp.Name != "booking" && (next == "to" || next == "dates" || next == "travellers") {
			question = cmp.Or(t.askOnce(v, next, pick), question)
		}
	case len(added) > 0 || (len(tr) > 0 && !is("thanks") && !is("greeting")):
		if len(added) > 0 {
			parts = append(parts, pick(r["trip_ack"], map[string]string{"added": joinAnd(added)}))
		}
		if question = t.askOnce(v, tr.next(), pick); tr.next() == "" {
			parts, question = append(parts, pick(r["trip_ready"], nil)), pick(r["trip_next"], nil)
		}
	case is("greeting"):
		parts, question = append(parts, pick(r["greeting"], nil)), t.askOnce(v, "to", pick)
	case is("thanks"):
		parts = append(parts, pick(r["thanks"], nil))
	case len(parts) == before && len(parts) == len(ack):
		parts, question = append(parts, pick(r["fallback"], nil)), t.askOnce(v, "to", pick)
	}
	if q := t.continueQuestion(v); q != "" {
		question = q
	}
	text := strings.TrimSpace(strings.Join(append(parts, question), " "))
	if len(tr) > 0 {
		text += "\n\n" + tripPrefix + tr.render(func(k string) string { return k + ": " + tr[k] }, "; ") + "."
	}
	return text
}

// filler returns the placeholder values of this conversation.
func (t *table) filler(v *view, tr trip) map[string]string {
	f := map[string]string{"to": "your trip", "summary": "nothing settled yet"}
	for k, val := range tr {
		f[k] = val
	}
	if len(tr) > 0 {
		f["summary"] = t.summary(tr)
	}
	for hole, tmpl := range t.file.Holes {
		if key := rePlaceholder.FindStringSubmatch(tmpl); key != nil && tr[key[1]] != "" {
			f[hole] = strings.Replace(tmpl, key[0], tr[key[1]], 1)
		}
	}
	if name := firstName(v.profile); name != "" {
		f["name"], f["comma_name"] = " "+name, ", "+name
	}
	if area := t.place(t.re["near"], v.latest); area != "" && area != tr["to"] {
		f["near"] = " near " + area
	} else if tr["to"] != "" {
		f["near"] = " in " + tr["to"]
	}
	f["booking"] = f["summary"]
	if m := t.re["book_object"].FindStringSubmatch(v.latest); m != nil && !t.re["vague_object"].MatchString(m[1]) {
		obj := strings.Replace(transform(strings.TrimRight(m[1], ".!? "), "their"), "their ", "your ", 1)
		for _, part := range strings.Split(t.summary(tr), ", ") {
			if part != "" && !strings.Contains(obj, strings.TrimPrefix(part, "from ")) {
				obj += ", " + part
			}
		}
		f["booking"] = obj
	}
	return f
}

// summary says the trip so far in words: "Rome, in May, for two".
func (t *table) summary(tr trip) string {
	return tr.render(func(k string) string { return strings.Replace(t.file.Summary[k], "{"+k+"}", tr[k], 1) }, ", ")
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

// chooseOptions takes up to three options, leaving out those the previous
// reply already offered.
// fitPlace drops the options that need what the gazetteer says the place
// lacks: no beach resort in Rome. A place it does not know keeps them all.
func (t *table) fitPlace(options []string, place string) []string {
	has, known := t.file.Gazetteer[strings.ToLower(strings.TrimSpace(place))]
	if !known {
		return options
	}
	return slices.DeleteFunc(slices.Clone(options), func(o string) bool {
		for feature, re := range t.needs {
			if re.MatchString(o) && !slices.Contains(has, feature) {
				return true
			}
		}
		return false
	})
}

// options renders the options as a list, or as a table when the traveler
// asked for one.
func (t *table) options(lead string, opts []string, low string) string {
	if !t.re["intents.table"].MatchString(low) {
		return lead + "\n\n- " + strings.Join(opts, "\n- ")
	}
	rows := []string{lead, "", "| Option | Trade-offs |", "|---|---|"}
	for _, o := range opts {
		name, rest, _ := strings.Cut(o, ": ")
		rows = append(rows, "| "+capitalise(name)+" | "+rest+" |")
	}
	return strings.Join(rows, "\n")
}

func chooseOptions(options []string, v *view) []string {
	var out []string
	for i := 0; i < len(options) && len(out) < 3; i++ {
		if o := options[(v.turn+len(v.latest)+i)%len(options)]; !strings.Contains(v.prevReply, o) {
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

func (t *table) topicOf(low string, notBooking bool) *topic {
	for i := range t.topics {
		if t.topics[i].re.MatchString(low) && !(notBooking && t.topics[i].Name == "booking") {
			return &t.topics[i]
		}
	}
	return nil
}

// dietOf lists the allergies and dietary needs known from this message and
// from what the model was sent, allergies first.
func (t *table) dietOf(v *view, c capture) []string {
	var allergies, diets []string
	texts := make([]string, 0, len(c.notes)+len(v.notes))
	for _, n := range c.notes {
		texts = append(texts, n.Text)
	}
	for _, n := range v.notes {
		texts = append(texts, n.text)
	}
	seen := map[string]bool{}
	for _, text := range texts {
		if !t.re["safety_notes"].MatchString(text) {
			continue
		}
		if p := t.lex.second(text); !seen[p] {
			seen[p] = true
			if strings.Contains(p, "allerg") {
				allergies = append(allergies, p)
			} else {
				diets = append(diets, p)
			}
		}
	}
	return append(allergies, diets...)
}

// prefsFor lists up to two remembered preferences that bear on a topic.
func (t *table) prefsFor(v *view, tp *topic) []string {
	var out []string
	for i := len(v.notes) - 1; i >= 0 && len(out) < 2 && tp.uses != nil; i-- {
		if tp.uses.MatchString(v.notes[i].text) && !t.re["safety_notes"].MatchString(v.notes[i].text) {
			out = append(out, t.lex.second(v.notes[i].text))
		}
	}
	return out
}

// recall answers "what do you know about me" from the blocks it was sent.
func (t *table) recall(v *view, pick func([]string, map[string]string) string) string {
	r := t.file.Replies
	lines := []string{pick(r["recall_lead"], nil)}
	said := map[string]bool{} // a profile clause a note says already is said once
	for _, n := range v.notes {
		said[strings.ToLower(t.lex.second(n.text))] = true
	}
	if profile := slices.DeleteFunc(t.profileSay(withoutFields(v.profile, v.overrides)), func(p string) bool { return said[strings.ToLower(p)] }); len(profile) > 0 {
		lines = append(lines, "- From your profile: "+strings.Join(profile, "; ")+".")
	}
	lines = append(lines, overrideLines(v.overrides)...)
	var thisTrip []string
	for _, n := range v.notes {
		if line := "- " + capitalise(t.lex.second(n.text)) + "."; n.trip {
			thisTrip = append(thisTrip, strings.Replace(line, " on this trip", "", 1))
		} else {
			lines = append(lines, line)
		}
	}
	if len(thisTrip) > 0 {
		lines = append(append(lines, "\nFor this trip only:\n"), thisTrip...) // a blank line around a list
	}
	switch {
	case len(lines) > 1:
		return strings.Join(lines, "\n") + "\n\n" + pick(r["recall_close"], nil)
	case firstName(v.profile) != "":
		return pick(r["recall_name_only"], nil)
	}
	return pick(r["recall_empty"], nil)
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
