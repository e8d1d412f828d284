package offline

import (
	"regexp"
	"strings"

	"concierge/memory"
)

var (
	reBookVerb   = regexp.MustCompile(`\b(?:book|find|search|look for|looking for|get me|reserve|arrange|organi[sz]e|plan|sort out|help me (?:find|book|plan|get))\b`)
	reWantVerb   = regexp.MustCompile(`\b(?:need|want|would like|would love|going|fly|flying|heading|travel|travelling|traveling|get to)\b`)
	reBookObj    = regexp.MustCompile(`\b(?:flights?|fly|flying|plane|tickets?|airfare|hotels?|rooms?|stay|accommodation|place to stay|airbnb|car|rental car|car rental|trip|vacation|holiday|getaway|insurance|weekend away)\b`)
	reNegBook    = regexp.MustCompile(`\b(?:do not|never|not|without) (?:book|find|get|reserve|search)`)
	reFlightWord = regexp.MustCompile(`\b(?:flights?|fly|flying|plane|tickets?|airfare)\b`)
	reHotelWord  = regexp.MustCompile(`\b(?:hotels?|rooms?|stay|accommodation|place to stay|airbnb|nights?)\b`)
	reCarWord    = regexp.MustCompile(`\b(?:car|rental car|car rental|hire car)\b`)
	reInsurWord  = regexp.MustCompile(`\binsurance\b`)
	reDestCue    = regexp.MustCompile(`\b(?:to|in|for|at|visit|visiting)\s+[A-Z]`)
	reDates      = regexp.MustCompile(`(?i)\b(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?|monday|tuesday|wednesday|thursday|friday|saturday|sunday|tomorrow|today|tonight|next (?:week|weekend|month|year)|this (?:weekend|week|month)|christmas|easter|new year|thanksgiving|in \d+ (?:days|weeks|months)|\d+ nights? from)\b|\b\d{1,2}/\d{1,2}\b|\b\d{4}-\d{2}-\d{2}\b|\b\d{1,2}(?:st|nd|rd|th)\b`)
	reFrom       = regexp.MustCompile(`\bfrom\s+((?:[A-Z][\p{L}'\-]+)(?:\s+[A-Z][\p{L}'\-]+)*)`)
	reToPlace    = regexp.MustCompile(`\b(?:to|in|visit|visiting)\s+((?:[A-Z][\p{L}'\-]+)(?:\s+[A-Z][\p{L}'\-]+)*)`)
)

// The questions the booking flow asks; each is recognised again in the
// transcript so that the next user message is read as its answer.
const (
	qFlightDest = "Where would you like to fly to?"
	qHotelDest  = "Which city would you like to stay in?"
	qCarDest    = "Where would you like to pick up the car?"
	qTripDest   = "Where would you like to go?"
	qDates      = "What dates are you thinking of"
	qOrigin     = "Where will you be flying from?"
	qBudget     = "What's your nightly budget for the hotel?"
)

// bookingReq is a booking being discussed: the domain and the slots the
// traveler has filled so far.
type bookingReq struct {
	domain    string // flight, hotel, car, insurance, trip
	dest      string
	origin    string
	dates     bool
	budget    bool
	texts     []string // the user messages of the thread, oldest first
	confirmed bool     // the traveler answered the confirmation question
}

func isBookingRequest(raw string) bool {
	s := normalise(raw)
	if !reBookObj.MatchString(s) || reNegBook.MatchString(s) {
		return false
	}
	if reBookVerb.MatchString(s) {
		return true
	}
	return reWantVerb.MatchString(s) && (reDestCue.MatchString(raw) || strings.Contains(s, "a flight") || strings.Contains(s, "a hotel") || strings.Contains(s, "a car"))
}

func domainOf(s string) string {
	s = normalise(s)
	switch {
	case reFlightWord.MatchString(s):
		return "flight"
	case reCarWord.MatchString(s):
		return "car"
	case reInsurWord.MatchString(s):
		return "insurance"
	case reHotelWord.MatchString(s):
		return "hotel"
	}
	return "trip"
}

// bookingThread finds the booking the latest message starts or continues: a
// booking request within the last few user messages whose follow-up
// questions the traveler has been answering.
func (c *conversation) bookingThread() (bookingReq, bool) {
	msgs := c.req.Messages
	if len(c.userMsgs) == 0 {
		return bookingReq{}, false
	}
	startAt := -1
	for k := len(c.userMsgs) - 1; k >= 0 && k >= len(c.userMsgs)-5; k-- {
		idx := c.userMsgs[k]
		if isBookingRequest(msgs[idx].Content) {
			startAt = k
			break
		}
		if k == 0 || !askedBookingQuestion(lastAssistantText(msgs[c.userMsgs[k-1]:idx])) {
			break
		}
	}
	if startAt < 0 {
		return bookingReq{}, false
	}
	b := bookingReq{domain: domainOf(msgs[c.userMsgs[startAt]].Content)}
	for k := startAt; k < len(c.userMsgs); k++ {
		idx := c.userMsgs[k]
		text := msgs[idx].Content
		b.texts = append(b.texts, text)
		if k > startAt {
			asked := lastAssistantText(msgs[c.userMsgs[k-1]:idx])
			switch {
			case strings.Contains(asked, qFlightDest) || strings.Contains(asked, qHotelDest) || strings.Contains(asked, qCarDest) || strings.Contains(asked, qTripDest):
				if p := firstPlace(text); p != "" {
					b.dest = p
				} else if len(strings.Fields(text)) <= 4 {
					b.dest = strings.Trim(strings.TrimSpace(text), ".!")
				}
			case strings.Contains(asked, qDates):
				b.dates = true
			case strings.Contains(asked, qOrigin):
				if p := placeAfter(reFrom, text); p != "" {
					b.origin = p
				} else {
					b.origin = strings.Trim(strings.TrimSpace(text), ".!")
				}
			case strings.Contains(asked, qBudget):
				b.budget = true
			case strings.Contains(asked, "Shall I"):
				b.confirmed = true
			}
		}
		if p := placeAfter(reFrom, text); p != "" {
			b.origin = p
		}
		if p := placeAfter(reToPlace, text); p != "" {
			b.dest = p
		} else if b.dest == "" {
			b.dest = firstPlace(text)
		}
		if reDates.MatchString(text) {
			b.dates = true
		}
		if reAmount.MatchString(normalise(text)) || strings.Contains(normalise(text), "no budget") {
			b.budget = true
		}
	}
	return b, true
}

func placeAfter(re *regexp.Regexp, s string) string {
	for _, m := range re.FindAllStringSubmatch(s, -1) {
		words := strings.Fields(m[1])
		var kept []string
		for _, w := range words {
			if notPlace[w] {
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

func lastAssistantText(msgs []memory.Message) string {
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == memory.RoleAssistant && strings.TrimSpace(msgs[i].Content) != "" {
			return msgs[i].Content
		}
	}
	return ""
}

func askedBookingQuestion(s string) bool {
	for _, q := range []string{qFlightDest, qHotelDest, qCarDest, qTripDest, qDates, qOrigin, qBudget, "Shall I"} {
		if strings.Contains(s, q) {
			return true
		}
	}
	return false
}

// booking answers a booking request with what will be applied from memory
// and exactly one focused question.
func (c *conversation) booking(b bookingReq) string {
	var notes []string
	switch b.domain {
	case "flight":
		if s := c.seatSentence(b); s != "" {
			notes = append(notes, s)
		}
		if s := c.mealSentence(); s != "" {
			notes = append(notes, s)
		}
	case "hotel":
		if s := c.hotelSentence(); s != "" {
			notes = append(notes, s)
		}
	}
	lead := ""
	if len(notes) > 0 {
		lead = strings.Join(notes, " ") + " "
	}
	where := ""
	if b.dest != "" {
		where = " to " + b.dest
		if b.domain == "hotel" || b.domain == "car" {
			where = " in " + b.dest
		}
	}
	var q string
	switch {
	case b.dest == "":
		switch b.domain {
		case "flight":
			q = qFlightDest
		case "hotel":
			q = qHotelDest
		case "car":
			q = qCarDest
		default:
			q = qTripDest
		}
	case !b.dates:
		noun := map[string]string{"flight": "your flight", "hotel": "your stay", "car": "the rental", "insurance": "your trip", "trip": "your trip"}[b.domain]
		q = qDates + " for " + noun + where + "?"
	case b.domain == "flight" && b.origin == "" && c.state.field("home_city") == "":
		q = qOrigin
	case b.domain == "hotel" && !b.budget && !c.knowsBudget():
		q = qBudget
	case b.confirmed:
		return lead + "Great — I'll search live availability for " + describe(b, c.state.field("home_city")) + " and come back with a few options and their trade-offs. I won't quote prices until I have real results."
	default:
		q = "Shall I look for options for " + describe(b, c.state.field("home_city")) + "?"
	}
	return lead + q
}

func describe(b bookingReq, home string) string {
	switch b.domain {
	case "flight":
		origin := b.origin
		if origin == "" {
			origin = home
		}
		if origin != "" {
			return "a flight from " + origin + " to " + b.dest + " on the dates you gave"
		}
		return "a flight to " + b.dest + " on the dates you gave"
	case "hotel":
		return "a hotel in " + b.dest + " on those dates"
	case "car":
		return "a rental car in " + b.dest + " on those dates"
	case "insurance":
		return "travel insurance for your trip to " + b.dest
	}
	return "your trip to " + b.dest
}

// seatOf reads a seat preference out of a sentence: "aisle", "window" or "".
func seatOf(text string) string {
	for _, f := range seatFacts(normalise(text)) {
		switch f.kind {
		case "seat-aisle", "seat-nowindow":
			return "aisle"
		case "seat-window", "seat-noaisle":
			return "window"
		}
	}
	return ""
}

// seatSentence applies the precedence rules to seats: the latest message
// beats this trip's notes, which beat the global notes and the profile.
func (c *conversation) seatSentence(b bookingReq) string {
	usual := c.state.field("seat_preference")
	if u := strings.ToLower(usual); strings.Contains(u, "aisle") {
		usual = "aisle"
	} else if strings.Contains(u, "window") {
		usual = "window"
	} else {
		usual = ""
	}
	for _, n := range newestFirst(c.state.global) {
		if s := seatOf(n.text); s != "" {
			usual = s
			break
		}
	}
	for _, n := range newestFirst(c.state.session) {
		if s := seatOf(n.text); s != "" && !n.trip {
			usual = s
			break
		}
	}
	chosen, why, source := "", "", ""
	for _, n := range newestFirst(c.state.session) {
		if s := seatOf(n.text); s != "" && n.trip {
			chosen, source = s, "trip"
			if reSleep.MatchString(strings.ToLower(n.text)) {
				why = " so you can sleep"
			}
			break
		}
	}
	for i := len(b.texts) - 1; i >= 0; i-- {
		if s := seatOf(b.texts[i]); s != "" {
			chosen, source, why = s, "latest", ""
			break
		}
	}
	switch {
	case chosen == "" && usual == "":
		return ""
	case chosen == "":
		return "I'll aim for " + article(usual) + " " + usual + " seat as usual."
	case usual != "" && usual != chosen && source == "trip":
		return "I'll look for " + article(chosen) + " " + chosen + " seat this time" + why + ", rather than your usual " + usual + "."
	case usual != "" && usual != chosen:
		return "I'll look for " + article(chosen) + " " + chosen + " seat as you asked, rather than your usual " + usual + "."
	case source == "trip":
		return "I'll look for " + article(chosen) + " " + chosen + " seat this time" + why + "."
	}
	return "I'll look for " + article(chosen) + " " + chosen + " seat."
}

func article(word string) string {
	if strings.ContainsAny(word[:1], "aeiou") {
		return "an"
	}
	return "a"
}

// mealSentence mentions the dietary needs and allergies the airline should
// know about.
func (c *conversation) mealSentence() string {
	notes := c.dietNotes()
	if len(notes) == 0 {
		return ""
	}
	return "I'll make sure the airline knows: " + joinAnd(notes) + "."
}

var reHotelNote = regexp.MustCompile(`(?i)\b(?:hotel|floor|neighbou?rhood|central|walkable|boutique|chain|gym|pool|quiet|breakfast|beach|room|apartment|lodging|bed)\b`)

// hotelSentence lists the hotel preferences that will be applied, this
// trip's first.
func (c *conversation) hotelSentence() string {
	var prefs []string
	seen := map[string]bool{}
	add := func(text string) {
		if !reHotelNote.MatchString(text) || seen[strings.ToLower(text)] {
			return
		}
		seen[strings.ToLower(text)] = true
		prefs = append(prefs, secondPerson(text))
	}
	for _, n := range c.finding.Notes {
		add(n.Text)
	}
	for _, n := range newestFirst(c.state.session) {
		add(n.text)
	}
	for _, n := range newestFirst(c.state.global) {
		add(n.text)
	}
	if len(prefs) > 3 {
		prefs = prefs[:3]
	}
	if len(prefs) == 0 {
		return ""
	}
	return "I'll keep in mind that " + joinAnd(prefs) + "."
}

func (c *conversation) knowsBudget() bool {
	for _, n := range c.state.all() {
		if strings.Contains(strings.ToLower(n.text), "budget") || strings.Contains(n.text, "a night") {
			return true
		}
	}
	for _, n := range c.finding.Notes {
		if strings.Contains(n.Text, "a night") {
			return true
		}
	}
	return false
}
