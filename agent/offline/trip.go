package offline

import (
	"cmp"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"concierge/memory"
)

// tripInfo is what the instructions say of trips: the conversation's trip
// (the TRIP block) or, without one, the open trips by handle.
type tripInfo struct {
	attached    bool
	dest, dates string
	travellers  int    // the TRIP block's count, 0 when it says none
	purpose     string // the TRIP block's purpose ("business"), "" when it says none
	open        []openTrip
	today       time.Time
}

type openTrip struct{ handle, dest, status string }

var (
	reTripHead  = regexp.MustCompile(`(?m)^TRIP(?: \[t\d+\])? \(this conversation's trip\): ([^,(\n]+)(?:, (\d{4}-\d\d-\d\d to \d{4}-\d\d-\d\d))?`)
	reOpenTrip  = regexp.MustCompile(`\[(t\d+)\] ([^,(;]+?)(?:,[^;(]*)? \((\w+)\)`)
	reTripParty = regexp.MustCompile(`(?m)^TRIP.*\(this conversation's trip\):.*?, (\d+) travellers\b`)
	reTripUse   = regexp.MustCompile(`(?m)^TRIP.*\(this conversation's trip\):.*?, (` + strings.Join(memory.TripPurposes, "|") + `)(?:,| \()`)
	reToday     = regexp.MustCompile(`Today is (\d{4}-\d\d-\d\d)\.`)
	reNo        = regexp.MustCompile(`(?i)^[^\p{L}]*(?:no|nope|nah|not really|not that one|a new one|another|a different|нет|другая|другой|новая)(?:$|[^\p{L}])`)
	reYes       = regexp.MustCompile(`(?i)^[^\p{L}]*(?:yes|yeah|yep|sure|correct|right|exactly|it is|that's it|sí|si|claro|exacto|да|верно|именно)(?:$|[^\p{L}])`)
	reMonthDay  = regexp.MustCompile(`(?i)\b(?:(\d{1,2})(?:st|nd|rd|th)?(?:\s*(?:-|–|to)\s*(\d{1,2})(?:st|nd|rd|th)?)? (?:of )?)?(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*(?: (\d{1,2})(?:st|nd|rd|th)?(?:\s*(?:-|–|to)\s*(\d{1,2}))?)?\b`)
	months      = "janfebmaraprmayjunjulaugsepoctnovdec"
	// rePartOfMonth is a stay shorter than the month it names (rules.yaml's
	// trip.stay_before finds one in a message).
	rePartOfMonth = regexp.MustCompile(`(?i)\b(?:weekend|week|days)\b`)
)

// readTrips reads the trip lines of the <memories> block.
func readTrips(instructions string) tripInfo {
	var ti tripInfo
	if m := reToday.FindStringSubmatch(instructions); m != nil {
		ti.today, _ = time.Parse(memory.DateLayout, m[1])
	}
	mem := block(instructions, "memories")
	if m := reTripHead.FindStringSubmatch(mem); m != nil {
		ti.attached, ti.dest, ti.dates = true, strings.TrimSpace(m[1]), m[2]
		if ti.dest == memory.Untitled {
			ti.dest = "" // a trip with no destination yet: asked for, not named "a trip"
		}
		if p := reTripParty.FindStringSubmatch(mem); p != nil {
			ti.travellers, _ = strconv.Atoi(p[1])
		}
		if p := reTripUse.FindStringSubmatch(mem); p != nil {
			ti.purpose = p[1]
		}
		return ti
	}
	if _, line, ok := strings.Cut(mem, "OPEN TRIPS"); ok {
		line, _, _ = strings.Cut(line, "\n")
		for _, m := range reOpenTrip.FindAllStringSubmatch(line, -1) {
			ti.open = append(ti.open, openTrip{handle: m[1], dest: strings.TrimSpace(m[2]), status: m[3]})
		}
	}
	return ti
}

// seed gives a conversation of a trip what the trip already knows, so the
// helper asks nothing the trip has.
func (ti tripInfo) seed(tr trip) {
	if ti.attached && tr["to"] == "" {
		tr["to"] = ti.dest
	}
	if ti.attached && tr["dates"] == "" && ti.dates != "" {
		tr["dates"] = ti.dates
	}
}

// tripSoFar is the trip the latest trip line carries, corrected
// by the TRIP block: what the server says the conversation's trip is now
// wins over the line (the traveler may have moved the conversation to
// another trip, or edited the trip), and when the block names another
// destination the line's dates, party and budget were that other trip's.
func (t *table) tripSoFar(v *view) trip {
	tr, ti := t.parseTrip(v.tripReply), v.trips
	if !ti.attached {
		return tr
	}
	if to := strings.ToLower(tr["to"]); to != "" && !strings.Contains(strings.ToLower(ti.dest), to) && !strings.Contains(to, strings.ToLower(ti.dest)) {
		for _, k := range []string{"to", "dates", "travellers", "budget"} {
			delete(tr, k)
		}
	}
	if s, e := isoDates(tr["dates"], ti.today); ti.dates != "" && tr["dates"] != "" && s+" to "+e != ti.dates {
		tr["dates"] = ti.dates
	}
	if ti.travellers > 0 && tr["travellers"] != "" && partySize(tr["travellers"]) != ti.travellers {
		tr["travellers"] = strconv.Itoa(ti.travellers)
	}
	return tr
}

// named returns the open trip the message names ("my Lisbon trip").
func (ti tripInfo) named(msg string) *openTrip {
	low := strings.ToLower(msg)
	for i, o := range ti.open {
		if o.dest != "" && indexWord(low, strings.ToLower(o.dest)) >= 0 {
			return &ti.open[i]
		}
	}
	return nil
}

// single is the only open trip when there is exactly one and it is being planned.
func (ti tripInfo) single() *openTrip {
	if len(ti.open) == 1 && ti.open[0].status == string(memory.TripPlanning) {
		return &ti.open[0]
	}
	return nil
}

// purposeOf is what a lower-cased English message says its trip is for
// (trip.purposes: "for work" is business, "honeymoon" leisure), the
// earliest said; "" when it says none.
func (t *table) purposeOf(low string) string {
	at, purpose := len(low)+1, ""
	for _, p := range []string{"business", "family", "leisure"} {
		for w := range t.words["trip.purposes."+p] {
			if i := indexWord(low, w); i >= 0 && i < at {
				at, purpose = i, p
			}
		}
	}
	return purpose
}

// readTrip reads the latest message into the trip in its language (the
// rules for English, trip.go's inflected reading for Spanish and Russian):
// what it added, and the purpose it names. A remark on the world adds
// nothing.
func (t *table) readTrip(tr trip, v *view) (added []string, purpose string) {
	if t.remarks(v) {
		return nil, "" // "trains in Italy are always late" plans no trip to Italy
	}
	added, purpose = t.updateTrip(tr, v.latest, t.askedSlot(v.prevReply)), t.heardIn(v.latest).purpose
	if lang := v.vc.lang; (lang == langES || lang == langRU) && !v.unsupported {
		probe := trip{} // "Mejor vamos a Lisboa": a destination named while going or changing plans is the new one
		if inflectedTrip(probe, lang, v.latest); probe["to"] != "" && tr["to"] != "" && t.placeNamed(probe["to"]) != t.placeNamed(tr["to"]) &&
			slices.ContainsFunc(strings.Fields(strings.ToLower(v.latest)), func(w string) bool {
				return slices.Contains(inflectedLexicons()[lang].Goings, strings.Trim(w, ",.!?¿¡"))
			}) {
			delete(tr, "to")
		}
		more, p := inflectedTrip(tr, lang, v.latest)
		added, purpose = append(added, more...), cmp.Or(p, purpose)
	}
	return added, purpose
}

// tripArgs is the update_trip call the latest message warrants, or nil:
// continue the trip it names or that the traveler just confirmed, else
// record what it adds to this conversation's trip. With one planning trip
// and nothing named, it records nothing until the question was asked.
func (t *table) tripArgs(v *view) map[string]any {
	if !v.tools[memory.UpdateTripToolName] {
		return nil
	}
	tr := t.tripSoFar(v)
	v.trips.seed(tr)
	added, purpose := t.readTrip(tr, v)
	args := map[string]any{}
	if purpose != "" && (len(added) > 0 || v.trips.attached) { // "this one's a work trip": the trip's purpose, told on its own
		args["purpose"] = purpose
	}
	if !v.trips.attached {
		if o := v.trips.named(v.latest); o != nil {
			delete(tr, "to")
			args["trip"] = o.handle
		} else if o := t.continuing(v); o != nil && t.askedContinue(v.prevReply, o.dest) {
			if reYes.MatchString(v.latest) { // the details said before the question are that trip's; a city of its country narrows it
				if !t.within(tr["to"], o.dest) {
					delete(tr, "to")
				}
				return t.fill(map[string]any{"trip": o.handle}, tr, v)
			}
			if planned := slices.ContainsFunc(tripKeys, func(k string) bool { return k != "from" && tr[k] != "" }); len(added) == 0 && (!planned || !reNo.MatchString(v.latest)) {
				return nil // not an answer, or nothing to record: no trip without a detail
			}
			added = append(added, "all") // a "no": the trip said so far is a new one
		} else if o != nil && (len(added) > 0 || v.vc.topicOf(strings.ToLower(v.latest), true) != nil) {
			return nil // ask first (continueQuestion)
		}
	}
	if args["trip"] == nil && len(added) == 0 && args["purpose"] == nil {
		return nil
	}
	return t.fill(args, tr, v)
}

// continuing is the open trip a conversation without one may continue:
// the single planning trip or, among several, the one the previous reply
// asked about, else the only one whose country holds the place the message
// names ("Tokyo" with trips to Japan and Italy open).
func (t *table) continuing(v *view) *openTrip {
	if o := v.trips.single(); o != nil {
		return o
	}
	var hit *openTrip
	to := t.heardIn(v.latest).found["to"]
	for i, o := range v.trips.open {
		switch {
		case o.status != string(memory.TripPlanning):
		case t.askedContinue(v.prevReply, o.dest):
			return &v.trips.open[i]
		case to != "" && t.within(to, o.dest):
			if hit != nil {
				return nil // two trips could be it: none is guessed
			}
			hit = &v.trips.open[i]
		}
	}
	return hit
}

// continueQuestion is the question to ask once instead of the reply's own
// (ask.continue in the reply files), when a conversation without a trip
// starts on one the traveler may already have open (continuing).
func (t *table) continueQuestion(v *view) string {
	o := t.continuing(v)
	if o == nil || v.trips.attached || !v.tools[memory.UpdateTripToolName] || v.trips.named(v.latest) != nil {
		return ""
	}
	for _, m := range v.front {
		if m.Role == memory.RoleAssistant && t.askedContinue(m.Content, o.dest) {
			return ""
		}
	}
	q := strings.Replace(v.vc.Ask["continue"][0], "{to}", o.dest, 1)
	tr := trip{}
	if len(t.updateTrip(tr, v.latest, "")) == 0 && v.vc.topicOf(strings.ToLower(v.latest), true) == nil {
		return ""
	}
	return q
}

// fill completes update_trip's arguments from the trip so far: every key
// present, null for what is unknown.
func (t *table) fill(args map[string]any, tr trip, v *view) map[string]any {
	for _, k := range []string{"trip", "destination", "start_date", "end_date", "travellers", "purpose", "budget", "status"} {
		if _, ok := args[k]; !ok {
			args[k] = nil
		}
	}
	if tr["to"] != "" {
		args["destination"] = tr["to"]
	}
	if s, e := isoDates(tr["dates"], v.trips.today); s != "" {
		args["start_date"], args["end_date"] = s, e
	}
	if n := partySize(tr["travellers"]); n > 0 {
		args["travellers"] = n
	}
	if tr["budget"] != "" {
		args["budget"] = tr["budget"]
	}
	return args
}

// tripDates is the first dates a message gives (trip.dates) that are not
// when something told in the past happened, with the stay it puts in a
// month: "a long weekend in May", "a week in June".
func (t *table) tripDates(msg string) string {
	loc := t.re["trip.dates"].FindStringIndex(msg)
	if loc != nil && t.toldBefore(msg[:loc[0]]) { // the first is a past date: look further
		locs := t.re["trip.dates"].FindAllStringIndex(msg, -1)
		if i := slices.IndexFunc(locs, func(l []int) bool { return !t.toldBefore(msg[:l[0]]) }); i >= 0 {
			loc = locs[i]
		} else {
			loc = nil
		}
	}
	if loc == nil {
		return ""
	}
	d := msg[loc[0]:loc[1]] + t.re["trip.month_after"].FindString(msg[loc[1]:])
	if p := t.re["trip.stay_before"].FindString(msg[:loc[0]]); p != "" && strings.HasPrefix(strings.ToLower(d), "in ") {
		d = p + d
	}
	return strings.TrimSpace(d)
}

// tripBudget is the first amount a message gives (trip.budget) that is not
// a habit: "my usual hotel budget is 120 euros a night" is a lasting note,
// not this trip's budget, and "I usually spend 100 a night, but this time
// 200 a night" gives 200 a night.
func (t *table) tripBudget(msg string) string {
	for _, loc := range t.re["trip.budget"].FindAllStringIndex(msg, -1) {
		if !t.habitBefore(msg[:loc[0]]) {
			return msg[loc[0]:loc[1]]
		}
	}
	return ""
}

// habitBefore reports whether the clause that runs up to an amount says
// it is the usual one (trip.budget_habit).
func (t *table) habitBefore(before string) bool {
	before = clauseUpTo(before)
	if i := strings.LastIndex(strings.ToLower(before), " but "); i >= 0 {
		before = before[i:] // "I usually spend 100 a night, but this time…"
	}
	return t.re["trip.budget_habit"].MatchString(before)
}

// clauseUpTo is the clause that runs up to the end of before: the words
// after its last stop or comma.
func clauseUpTo(before string) string {
	return before[strings.LastIndexAny(before, ".!?;,")+1:]
}

// toldBefore reports whether the clause that runs up to a date or a place
// tells the past or a change ("I moved to Berlin in June", "we went to
// Rome last year"): the date is when it happened, the place no trip's. A
// plan told in the past tense ("we were thinking of Lisbon") is ahead.
func (t *table) toldBefore(before string) bool {
	low := strings.ToLower(clauseUpTo(before))
	ws := strings.Fields(low)
	subj := slices.IndexFunc(ws, func(w string) bool { return slices.Contains(t.lex.First, w) })
	return t.re["past"].MatchString(low) && !t.re["trip.planning"].MatchString(low) || subj >= 0 && slices.ContainsFunc([]int{subj + 1, subj + 2}, func(i int) bool { return matchAt(ws, i, t.lex.changeKeys) != "" })
}

// isoDates reads "May", "3-9 May" or "May 3 to 9" as the first and last
// day, in the next such month from today; anything vaguer is no date ("a
// long weekend in May" is not the whole of May).
func isoDates(s string, today time.Time) (string, string) {
	if s2, e2, ok := strings.Cut(s, " to "); ok && len(s2) == 10 && len(e2) == 10 {
		return s2, e2 // already ISO (the TRIP block's form)
	}
	m := reMonthDay.FindStringSubmatch(s)
	if m == nil || today.IsZero() || m[1] == "" && m[4] == "" && rePartOfMonth.MatchString(s) {
		return "", ""
	}
	month := time.Month(strings.Index(months, strings.ToLower(m[3])[:3])/3 + 1)
	year := today.Year()
	if month < today.Month() {
		year++
	}
	first := time.Date(year, month, 1, 0, 0, 0, 0, time.UTC)
	start, end := first, first.AddDate(0, 1, -1)
	from, to := m[1], m[2]
	if from == "" {
		from, to = m[4], m[5]
	}
	if d, err := strconv.Atoi(from); err == nil && d >= 1 && d <= end.Day() {
		start = first.AddDate(0, 0, d-1)
		end = start
		if d2, err := strconv.Atoi(to); err == nil && d2 >= d && d2 <= first.AddDate(0, 1, -1).Day() {
			end = first.AddDate(0, 0, d2-1)
		}
	}
	return start.Format(memory.DateLayout), end.Format(memory.DateLayout)
}

// partySize counts the travellers of a party summary ("you and your wife",
// "two adults and a child", "just you", "a family of four"); 0 is unknown.
func partySize(s string) int {
	words := map[string]int{"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6}
	f := strings.Fields(strings.ToLower(s))
	switch {
	case len(f) == 0:
		return 0
	case strings.HasPrefix(s, "just you"):
		return 1
	case strings.HasPrefix(s, "you and your") && len(f) == 4 && !strings.Contains("family kids children parents friends colleagues", f[3]):
		return 2
	}
	n := 0
	for i, w := range f {
		if k, err := strconv.Atoi(w); err == nil {
			n += k
		} else if k, ok := words[w]; ok {
			n += k
		} else if (w == "a" || w == "an") && i+1 < len(f) && slices.Contains([]string{"child", "kid", "toddler", "baby", "infant"}, f[i+1]) {
			n++
		}
	}
	if n > 0 && strings.HasPrefix(s, "you and your") {
		n++ // "you and your two kids": the traveler and the two
	}
	return n
}

// englishMonths are the month names isoDates reads.
var englishMonths = []string{"January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"}

// inflectedTrip reads the trip a Spanish or Russian message names into tr,
// in the form the English reader gives ("10-14 June"), and returns what it
// added and the trip's purpose ("" when it says none). "Quiero un hotel en
// Madrid para marzo" is Madrid in March.
func inflectedTrip(tr trip, lang, msg string) (added []string, purpose string) {
	lx := inflectedLexicons()[lang]
	if lx == nil {
		return nil, ""
	}
	_, orig := words(msg)
	low := make([]string, len(orig))
	for i, w := range orig {
		low[i] = strings.ToLower(w)
	}
	set := func(k, v string) {
		if v != "" && tr[k] == "" {
			tr[k] = v
			added = append(added, v)
		}
	}
	for i, w := range low {
		if m := lx.month(w); m > 0 && tr["dates"] == "" {
			days := []string{}
			for j := max(0, i-5); j < i; j++ { // "del 10 al 14 de junio", "с 10 по 14 июня"
				if _, err := strconv.Atoi(low[j]); err == nil {
					days = append(days, low[j])
				}
			}
			d := englishMonths[m-1]
			if len(days) > 0 {
				d = strings.Join(days[max(0, len(days)-2):], "-") + " " + d
			}
			set("dates", d)
		}
		if n, ok := lx.Numbers[w]; ok && i > 0 && slices.Contains(lx.Party, low[i-1]) {
			set("travellers", strconv.Itoa(n))
		}
		for stem, p := range lx.Purposes {
			if strings.HasPrefix(w, stem) && purpose == "" {
				purpose = p
			}
		}
		if i+1 < len(orig) && startsUpper(orig[i+1]) && !slices.Contains(lx.NotPlaces, orig[i+1]) && lx.month(low[i+1]) == 0 {
			name := orig[i+1]
			for j := i + 2; j < len(orig) && startsUpper(orig[j]) && !slices.Contains(lx.NotPlaces, orig[j]); j++ {
				name += " " + orig[j]
			}
			switch {
			case slices.Contains(lx.ToWords, w) && (i == 0 || !slices.Contains(lx.FromWords, low[i-1])):
				set("to", lx.nominative(name))
			case slices.Contains(lx.FromWords, w):
				set("from", lx.nominative(name))
			}
		}
	}
	return added, purpose
}

// month is the month a word names (1-12), or 0; a lexicon's month may be
// a stem ("январ" for января, январе).
func (lx *inflected) month(w string) int {
	for i, m := range lx.Months {
		if w == m || lx.Places != nil && strings.HasPrefix(w, m) && utf8.RuneCountInString(w) <= utf8.RuneCountInString(m)+2 && (m != "ма" || w == "май" || w == "мае" || w == "мая") {
			return i + 1
		}
	}
	return 0
}

// nominative gives a place named after a preposition its dictionary form:
// a known place by its case forms, another by losing the case ending.
func (lx *inflected) nominative(name string) string {
	if len(lx.Places) == 0 || strings.Contains(name, " ") {
		return name
	}
	for _, p := range lx.Places {
		if p == name || lx.locative(p) == name || lx.suffixed(p, map[string]string{"а": "у", "я": "ю", "ия": "ию"}, "") == name {
			return p
		}
	}
	for _, e := range []string{"е", "у", "ю"} {
		if base, ok := strings.CutSuffix(name, e); ok && utf8.RuneCountInString(base) > 2 {
			return base
		}
	}
	return name
}

// askedContinue reports whether reply asked, in any language, whether the
// conversation continues the trip to dest.
func (t *table) askedContinue(reply, dest string) bool {
	for _, vc := range t.voices {
		for _, q := range vc.Ask["continue"] {
			if strings.Contains(reply, strings.Replace(q, "{to}", dest, 1)) {
				return true
			}
		}
	}
	return false
}
