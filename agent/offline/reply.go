package offline

import (
	"encoding/json"
	"regexp"
	"strings"

	"concierge/memory"
)

var (
	reRecall   = regexp.MustCompile(`\bwhat (?:do|did) you (?:know|remember|have)(?: on file)? (?:about|of|on) me\b|\bwhat do you remember\b|\bdo you (?:know|remember) (?:my|anything about me|me|what i|who i am)\b|\bwhat (?:are|is) my (?:preferences|profile|settings)\b|\bwhat have you (?:saved|stored|remembered|got)\b|\btell me what you (?:know|remember)\b|\bwhat is in my (?:profile|memory)\b|\bwhat do you have (?:on|about) me\b|\bwhat (?:preferences|notes) do you have\b|\bremind me (?:of )?(?:my|what you know)\b|\bshow (?:me )?my (?:preferences|profile|memories)\b`)
	reGreeting = regexp.MustCompile(`^(?:hi|hello|hey|hiya|howdy|good (?:morning|afternoon|evening)|greetings|yo)\b`)
	reThanks   = regexp.MustCompile(`\b(?:thanks|thank you|cheers|much appreciated|great, thanks)\b`)
	reFood     = regexp.MustCompile(`\b(?:food|foods|eat|eating|restaurants?|dinner|lunch|breakfast|brunch|meals?|cuisine|dish|dishes|snacks?|cafes?|café|bistro|street food|food tour|cooking class|tasting menu|dine|dining|bakery|bakeries|where to eat)\b`)
)

// reply answers the latest user message with text.
func (c *conversation) reply() string {
	if text := c.answerIntent(); text != "" {
		return text
	}
	norm := normalise(c.latestUser)
	f := c.finding
	switch {
	case c.latestUser == "":
		return "Hello! I'm your travel concierge. I can plan and book flights, hotels, rental cars and travel insurance. Where would you like to go?"
	case f.Sensitive:
		return "For your security I don't keep card numbers, passport numbers, codes or similar details — please don't share them here; you'll enter them securely when we book. How can I help with your trip?"
	case f.OtherPerson && len(f.Notes) == 0:
		return "Thanks, I'll keep that in mind while we plan in this conversation. I only save your own preferences to memory, so mention it again on future trips if it matters. Is there a trip I can help you plan?"
	case len(f.Notes) > 0:
		known := map[string]bool{}
		for _, n := range c.state.all() {
			known[strings.ToLower(n.text)] = true
		}
		var phrases []string
		allKnown := true
		for _, n := range f.Notes {
			phrases = append(phrases, secondPerson(n.Text))
			if !known[strings.ToLower(n.Text)] {
				allKnown = false
			}
		}
		if allKnown {
			return "I already have that noted: " + joinAnd(phrases) + ". Is there a trip I can help you plan?"
		}
		return "Noted: " + joinAnd(phrases) + ". Is there a trip I can help you plan?"
	case reGreeting.MatchString(norm):
		return greet(c.firstName()) + "I'm your travel concierge. I can plan and book flights, hotels, rental cars and travel insurance. Where would you like to go?"
	case reThanks.MatchString(norm):
		return "You're welcome! Is there anything else I can help you plan?"
	}
	return "I can help with that as your travel concierge — flights, hotels, rental cars and travel insurance. What trip do you have in mind?"
}

// answerIntent answers the requests that are more than a statement: what do
// you know about me, instructions, bookings, food. It returns "" otherwise.
func (c *conversation) answerIntent() string {
	if c.latestUser == "" {
		return ""
	}
	norm := normalise(c.latestUser)
	switch {
	case reRecall.MatchString(norm):
		return c.recall()
	case c.finding.Instruction:
		return "I can't take on instructions that change how I work, and I don't store them in memory. I'm happy to help with your travel plans though. Where would you like to go?"
	}
	if b, ok := c.bookingThread(); ok {
		return c.booking(b)
	}
	if reFood.MatchString(norm) {
		return c.food()
	}
	return ""
}

// afterToolResults answers once the server has executed this turn's
// save_memory_note calls: it says what was kept and what was refused, then
// answers whatever else the user asked.
func (c *conversation) afterToolResults() string {
	msgs := c.req.Messages
	i := len(msgs)
	for i > 0 && msgs[i-1].Role == memory.RoleTool {
		i--
	}
	results := map[string]string{}
	for _, m := range msgs[i:] {
		results[m.ToolCallID] = m.Content
	}
	var saved, trip []string
	refusedCount := 0
	if i > 0 {
		for _, tc := range msgs[i-1].ToolCalls {
			res, ok := results[tc.ID]
			if !ok {
				continue
			}
			var args memory.SaveNoteArgs
			if json.Unmarshal([]byte(tc.Arguments), &args) != nil {
				continue
			}
			if refused(res) {
				refusedCount++
				continue
			}
			p := secondPerson(args.Text)
			if args.Scope == memory.ScopeThisTrip {
				trip = append(trip, strings.Replace(p, " on this trip", "", 1))
			} else {
				saved = append(saved, p)
			}
		}
	}
	var parts []string
	if len(saved) > 0 {
		parts = append(parts, "Got it — I'll remember that "+joinAnd(saved)+".")
	}
	if len(trip) > 0 {
		parts = append(parts, "Noted for this trip: "+joinAnd(trip)+". I won't make that your default.")
	}
	if refusedCount > 0 {
		parts = append(parts, "I didn't store part of that: I don't keep sensitive details such as card, passport or account numbers, or instructions, in memory.")
	}
	if len(parts) == 0 {
		parts = append(parts, "Okay.")
	}
	if next := c.answerIntent(); next != "" {
		parts = append(parts, next)
	} else {
		parts = append(parts, "Is there a trip I can help you plan?")
	}
	return strings.Join(parts, " ")
}

func (c *conversation) firstName() string {
	name := c.state.field("name")
	if f := strings.Fields(name); len(f) > 0 {
		return f[0]
	}
	return ""
}

func greet(name string) string {
	if name == "" {
		return "Hello! "
	}
	return "Hello " + name + "! "
}

// --- what do you know about me ---

// privateKey matches profile keys whose values must never be repeated, even
// if they reached the prompt.
var privateKey = regexp.MustCompile(`(?i)id$|_id|number|passport|birth|dob|address|phone|email|card|ssn|iban|password|secret|token|code`)

var profileLabels = map[string]string{
	"home_city": "you're based in %s", "home": "you're based in %s", "city": "you're based in %s",
	"currency": "you pay in %s", "seat_preference": "your seat preference is %s", "seat": "your seat preference is %s",
	"preferred_tone": "you like a %s tone", "tone": "you like a %s tone", "home_airport": "your home airport is %s",
	"meal_preference": "your meal preference is %s", "language": "you speak %s", "cabin": "you usually fly %s",
}

// recall answers "what do you know about me" from the profile block, the
// memories block and this session's saved notes — nothing else.
func (c *conversation) recall() string {
	var profile []string
	for _, f := range c.state.profile {
		if f.key == "name" || privateKey.MatchString(f.key) {
			continue
		}
		label := strings.ReplaceAll(f.key, "_", " ")
		switch {
		case f.scalar != "":
			if l, ok := profileLabels[f.key]; ok {
				profile = append(profile, strings.Replace(l, "%s", f.scalar, 1))
			} else {
				profile = append(profile, "your "+label+": "+f.scalar)
			}
		case len(f.items) > 0:
			profile = append(profile, label+": "+strings.Join(f.items, ", "))
		case len(f.maps) > 0:
			var items []string
			for i, m := range f.maps {
				if f.key == "recent_trips" && m["route"] != "" {
					items = append(items, strings.TrimSpace(m["route"]+" "+parenthesise(m["start_date"])))
					continue
				}
				var vals []string
				for _, k := range f.keys[i] {
					if !privateKey.MatchString(k) && m[k] != "" {
						vals = append(vals, m[k])
					}
				}
				if len(vals) > 0 {
					items = append(items, strings.Join(vals, " "))
				}
			}
			if len(items) > 0 {
				profile = append(profile, label+": "+strings.Join(items, ", "))
			}
		}
	}
	var usual, trip []string
	for _, n := range c.state.global {
		usual = append(usual, capitalise(secondPerson(n.text))+".")
	}
	for _, n := range c.state.session {
		if n.trip {
			trip = append(trip, capitalise(strings.Replace(secondPerson(n.text), " on this trip", "", 1))+".")
		} else {
			usual = append(usual, capitalise(secondPerson(n.text))+".")
		}
	}
	name := c.firstName()
	if len(profile) == 0 && len(usual) == 0 && len(trip) == 0 {
		lead := "I don't have anything saved about you yet"
		if name != "" {
			lead = "I only know your name so far, " + name
		}
		return lead + ". Tell me what you like — seats, diet, hotels, airlines, budgets — and I'll remember it for next time."
	}
	var b strings.Builder
	b.WriteString("Here's what I know about you")
	if name != "" {
		b.WriteString(", " + name)
	}
	b.WriteString(":\n")
	if len(profile) > 0 {
		b.WriteString("- From your profile: " + strings.Join(profile, "; ") + ".\n")
	}
	for _, u := range usual {
		b.WriteString("- " + u + "\n")
	}
	if len(trip) > 0 {
		b.WriteString("For this trip only:\n")
		for _, t := range trip {
			b.WriteString("- " + t + "\n")
		}
	}
	b.WriteString("Anything you'd like me to add or change?")
	return b.String()
}

func parenthesise(s string) string {
	if s == "" {
		return ""
	}
	return "(" + s + ")"
}

var thirdToSecond = map[string]string{
	"is": "you're", "has": "you have", "keeps": "you keep", "allergic": "you're allergic",
}

var adverbs = wordSet(`usually always never often rarely generally typically normally mostly`)

// secondPerson turns a stored note into words for the traveler:
// "Prefers aisle seats." → "you prefer aisle seats".
func secondPerson(text string) string {
	t := strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(text), "."))
	words := strings.Fields(t)
	if len(words) == 0 {
		return ""
	}
	first := strings.ToLower(words[0])
	rest := strings.Join(words[1:], " ")
	var out string
	switch {
	case first == "does" && len(words) > 1 && words[1] == "not":
		out = "you don't " + strings.Join(words[2:], " ")
	case thirdToSecond[first] != "":
		out = thirdToSecond[first] + " " + rest
	case adverbs[first]:
		out = "you " + first + " " + baseVerb(rest)
	case strings.HasSuffix(first, "s") && len(first) > 3:
		out = "you " + baseVerb(t)
	default:
		out = strings.ToLower(t[:1]) + t[1:]
	}
	out = strings.ReplaceAll(out+" ", " their ", " your ")
	return strings.TrimSpace(out)
}

// baseVerb drops the third-person -s of the first word.
func baseVerb(s string) string {
	words := strings.Fields(s)
	if len(words) == 0 {
		return s
	}
	w := strings.ToLower(words[0])
	switch {
	case w == "is":
		w = "are"
	case w == "has":
		w = "have"
	case strings.HasSuffix(w, "ies"):
		w = strings.TrimSuffix(w, "ies") + "y"
	case strings.HasSuffix(w, "ches") || strings.HasSuffix(w, "shes") || strings.HasSuffix(w, "sses") || strings.HasSuffix(w, "xes"):
		w = strings.TrimSuffix(w, "es")
	case strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss"):
		w = strings.TrimSuffix(w, "s")
	}
	words[0] = w
	return strings.Join(words, " ")
}

func capitalise(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

func joinAnd(items []string) string {
	switch len(items) {
	case 0:
		return ""
	case 1:
		return items[0]
	}
	return strings.Join(items[:len(items)-1], ", ") + " and " + items[len(items)-1]
}

// --- food ---

var reDietNote = regexp.MustCompile(`(?i)\b(?:vegetarian|vegan|pesc[ae]tarian|halal|kosher|gluten|coeliac|celiac|lactose|dairy|allerg\w*|diabetic|does not eat|alcohol|low-carb|meat-free)\b`)

// dietNotes returns what is known about the traveler's diet and allergies,
// allergies first, from this message, this session and the global notes.
func (c *conversation) dietNotes() []string {
	var allergies, diets []string
	seen := map[string]bool{}
	add := func(text string) {
		if !reDietNote.MatchString(text) || seen[strings.ToLower(text)] {
			return
		}
		seen[strings.ToLower(text)] = true
		p := strings.Replace(secondPerson(text), " on this trip", " for this trip", 1)
		if strings.Contains(strings.ToLower(text), "allerg") {
			allergies = append(allergies, p)
		} else {
			diets = append(diets, p)
		}
	}
	for _, n := range c.finding.Notes {
		add(n.Text)
	}
	for _, n := range c.state.session {
		add(n.text)
	}
	for _, n := range c.state.global {
		add(n.text)
	}
	return append(allergies, diets...)
}

var reCity = regexp.MustCompile(`\b(?:in|at|around|near|to|for)\s+((?:[A-Z][\p{L}'\-]+)(?:\s+[A-Z][\p{L}'\-]+)*)`)

// food answers a question about eating out, warning about known dietary
// needs and allergies first.
func (c *conversation) food() string {
	var b strings.Builder
	if notes := c.dietNotes(); len(notes) > 0 {
		b.WriteString("Just a heads-up from what you've told me: " + joinAnd(notes) + ". ")
		b.WriteString("I'll only suggest places that can cater for that, and it's worth mentioning it to staff when you order. ")
	}
	if city := firstPlace(c.latestUser); city != "" {
		b.WriteString("I can put together a short list of places in " + city + " with what each does best, without guessing at prices or opening hours. Is this for a casual meal or a special occasion?")
	} else {
		b.WriteString("Which city or neighbourhood would you like restaurant ideas for?")
	}
	return b.String()
}

var notPlace = wordSet(`I Monday Tuesday Wednesday Thursday Friday Saturday Sunday January February March April May June July August September October November December Christmas Easter Business Economy First Premium The A My This Next`)

func firstPlace(s string) string {
	for _, m := range reCity.FindAllStringSubmatch(s, -1) {
		words := strings.Fields(m[1])
		for len(words) > 0 && notPlace[words[0]] {
			words = words[1:]
		}
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
