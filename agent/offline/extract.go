package offline

import (
	"regexp"
	"strings"
	"unicode"

	"concierge/memory"
)

// maxNoteChars is the longest note text the server accepts (SPEC §2.3).
const maxNoteChars = 180

// Finding is what the extractor made of one user message: the notes worth
// saving and the reasons some parts of it were deliberately not saved.
type Finding struct {
	Notes       []memory.SaveNoteArgs
	Sensitive   bool // a part carried sensitive data and was skipped
	Instruction bool // the message tried to instruct the assistant; nothing was saved
	// OtherPerson is set when someone else's preference was stated ("my
	// wife is vegetarian"). By design it is not saved: notes describe the
	// traveler, and a companion's diet or health is a third party's data.
	// The reply acknowledges it for the conversation instead. Statements
	// that include the traveler ("my wife and I are vegetarian") are saved.
	OtherPerson bool
}

// Extract returns the notes a careful model would save from one user message:
// stated, current preferences and constraints of the user, in a normalised
// third-person form, each with a scope and 1–3 keywords. It never returns
// sensitive data or instructions to the assistant.
func Extract(message string) []memory.SaveNoteArgs {
	return Analyse(message).Notes
}

// Analyse is Extract with the reasons behind what was left out.
func Analyse(message string) Finding {
	return analyse(message, false)
}

// analyse reads one message; inBooking says it answers a question about a
// booking under way, so what it asks for holds for that trip unless the
// traveler says otherwise ("always", "usually", …).
func analyse(message string, inBooking bool) Finding {
	var f Finding
	norm := normalise(message)
	if isInstruction(norm) || isInstruction(strings.ToLower(message)) {
		f.Instruction = true
		return f
	}
	sleepReason := reSleep.MatchString(norm)
	pendingTrip := inBooking
	seen := map[string]bool{}
	var kinds []string // the kind of each note in f.Notes
	for _, sent := range splitSentences(message) {
		s0 := normalise(sent.text)
		s := stripRememberPrefix(s0)
		if s == "" {
			continue
		}
		// "Can you remember that I hate long layovers?" is a statement.
		asked := reRememberAsk.MatchString(s0)
		if !asked && (sent.question || reQuestionStart.MatchString(s)) {
			continue
		}
		subjectOther := false
		// What is asked for in a booking request holds for that booking:
		// "Find me a hotel in Rome with a pool" is not a lifelong default.
		sentenceTrip := reBookVerb.MatchString(s) && reBookObj.MatchString(s) && !reNegBook.MatchString(s)
		for _, cl := range splitClauses(s) {
			cl = strings.TrimSpace(stripRememberPrefix(cl))
			if cl == "" {
				continue
			}
			if isSensitive(cl) || isSensitiveRaw(sent.text, cl) {
				f.Sensitive = true
				continue
			}
			trip := reTripMarker.MatchString(cl)
			durable := reDurableMarker.MatchString(cl)
			if trip && reBareTripMarker.MatchString(cl) {
				// "This time," or "For this trip:" on its own sets the scope of
				// what follows.
				sentenceTrip = true
				if reWholeBareMarker.MatchString(strings.TrimSpace(sent.text)) {
					pendingTrip = true
				}
				continue
			}
			switch {
			case isOtherSubject(cl):
				subjectOther = true
			case reSelfSubject.MatchString(cl):
				subjectOther = false
			}
			if subjectOther {
				if len(ruleFacts(cl)) > 0 {
					f.OtherPerson = true
				}
				continue
			}
			if rePast.MatchString(cl) && !reDiagnosed.MatchString(cl) {
				continue
			}
			if reHypothetical.MatchString(cl) {
				continue
			}
			scope := memory.ScopeDurable
			if trip || ((sentenceTrip || pendingTrip) && !durable) {
				scope = memory.ScopeThisTrip
			}
			if trip {
				// A marker carries to the rest of its sentence: "I'm bringing
				// the kids this time, so we need two beds."
				sentenceTrip = true
			}
			for _, fc := range ruleFacts(cl) {
				if fc.kind == "seat-window" && sleepReason {
					fc.reason = "to sleep"
				}
				n := fc.note(scope)
				if seen[n.Text] || seen[fc.kind] {
					continue
				}
				seen[n.Text], seen[fc.kind] = true, true
				f.Notes = append(f.Notes, n)
				kinds = append(kinds, fc.kind)
			}
		}
	}
	// "No meat for me, I'm veggie" is one fact, not two.
	if seen["diet-vegetarian"] || seen["diet-vegan"] || seen["diet-pescatarian"] {
		var kept []memory.SaveNoteArgs
		for i, n := range f.Notes {
			if kinds[i] != "diet-meat" {
				kept = append(kept, n)
			}
		}
		f.Notes = kept
	}
	return f
}

// fact is one recognised preference before it is given a scope.
type fact struct {
	kind     string
	text     string // durable, third person, with a final period
	tripText string // optional explicit trip-scoped form
	reason   string // appended as "… to sleep."
	keywords []string
}

func (fc fact) note(scope memory.Scope) memory.SaveNoteArgs {
	text := fc.text
	if scope == memory.ScopeThisTrip {
		text = fc.tripText
		if text == "" {
			text = tripForm(fc.text)
		}
	}
	if fc.reason != "" {
		text = strings.TrimSuffix(text, ".") + " " + fc.reason + "."
	}
	if len(text) > maxNoteChars {
		text = strings.TrimSpace(text[:maxNoteChars-1]) + "."
	}
	return memory.SaveNoteArgs{Text: text, Keywords: cleanKeywords(fc.keywords), Scope: scope}
}

// tripForm turns a durable sentence into its this-trip form:
// "Prefers aisle seats." → "Wants aisle seats on this trip."
func tripForm(text string) string {
	t := strings.TrimSuffix(text, ".")
	for _, p := range [][2]string{
		{"Prefers to ", "Wants to "},
		{"Prefers ", "Wants "},
		{"Usually travels ", "Is travelling "},
		{"Usually checks ", "Is checking "},
		{"Avoids ", "Wants to avoid "},
		{"Likes ", "Wants "},
	} {
		if strings.HasPrefix(t, p[0]) {
			t = p[1] + strings.TrimPrefix(t, p[0])
			break
		}
	}
	return t + " on this trip."
}

func cleanKeywords(in []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, k := range in {
		k = strings.Map(func(r rune) rune {
			if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
				return r
			}
			if r >= 'A' && r <= 'Z' {
				return unicode.ToLower(r)
			}
			return -1
		}, k)
		if k == "" || seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, k)
		if len(out) == 3 {
			break
		}
	}
	return out
}

// sentence is one sentence of the raw message and whether it was a question.
type sentence struct {
	text     string
	question bool
}

func splitSentences(msg string) []sentence {
	var out []sentence
	rs := []rune(msg)
	start := 0
	flush := func(end int, q bool) {
		t := strings.TrimSpace(string(rs[start:end]))
		if t != "" {
			out = append(out, sentence{text: t, question: q})
		}
		start = end + 1
	}
	for i, r := range rs {
		switch r {
		case '?':
			flush(i, true)
		case '!', ';', '\n':
			flush(i, false)
		case '.':
			next := ' '
			if i+1 < len(rs) {
				next = rs[i+1]
			}
			prev := ' '
			if i > 0 {
				prev = rs[i-1]
			}
			// Keep "3.5 hours", "$200.50" and "a.m." together.
			if unicode.IsDigit(prev) && unicode.IsDigit(next) || unicode.IsLetter(next) {
				continue
			}
			if i >= 1 && (prev == 'm' || prev == 'M') && i >= 3 && rs[i-2] == '.' {
				continue
			}
			flush(i, false)
		}
	}
	flush(len(rs), false)
	return out
}

var contractions = strings.NewReplacer(
	"’", "'", "‘", "'", "“", `"`, "”", `"`,
	"i'm", "i am", "i've", "i have", "i'd", "i would", "i'll", "i will",
	"can't", "cannot", "won't", "will not", "we're", "we are", "we've", "we have",
	"it's", "it is", "that's", "that is", "they're", "they are", "she's", "she is",
	"he's", "he is", "what's", "what is", "let's", "let us", "we'd", "we would",
	"n't", " not", "a.m.", "am", "p.m.", "pm", "u.s.", "us", "e.g.", "eg",
)

var reSpaces = regexp.MustCompile(`\s+`)

// normalise lowercases, straightens quotes and expands contractions so that
// the rules can be written once.
func normalise(s string) string {
	s = strings.ToLower(s)
	s = strings.NewReplacer("’", "'", "‘", "'").Replace(s)
	s = contractions.Replace(s)
	s = strings.ReplaceAll(s, "|", " ")
	return strings.TrimSpace(reSpaces.ReplaceAllString(s, " "))
}

var (
	reRememberPrefix = regexp.MustCompile(`^(?:(?:please|pls|also|and|oh|ok|okay|so|btw|by the way|fyi|for the record|just so you know|heads up|quick note|one more thing|note|hey|hi|hello|actually)[,:!\- ]*\s*)*(?:(?:can|could|would|will) you (?:please )?|please |you should |you need to |i want you to |i would like you to )?(?:remember|note|keep in mind|make a note|take note|bear in mind|know|save|store|note down|jot down|add to my profile)(?: (?:that|this|for next time|for the future|for future trips))*\s*[:,\-]*\s*`)
	reQuestionStart  = regexp.MustCompile(`^(?:do|does|did|can|could|will|is|are|was|were|should|shall|what|which|where|how|why|who|any|have|has|am i|would (?:you|it|there|that))\b`)
	reRememberAsk    = regexp.MustCompile(`^(?:please )?(?:can|could|would|will) you (?:please )?(?:remember|note|keep in mind|make a note|bear in mind|save|store)\b`)
	reSleep          = regexp.MustCompile(`\b(?:sleep|nap|rest|doze)\b`)
)

func stripRememberPrefix(s string) string {
	return strings.TrimSpace(reRememberPrefix.ReplaceAllString(s, ""))
}

var (
	reClauseBut     = regexp.MustCompile(`(?:,\s*|\s+)(?:but|however|although|though|whereas|while|except)\s+`)
	reClauseSubject = regexp.MustCompile(`,\s*(?:and\s+|so\s+|also\s+)?(i|my|we|our|he|she|they|his|her|their|member|membership|number|card|passport|because|since|as i|the code|code|password|pin|email|phone|date of birth|dob|booking|confirmation|account)\b`)
	reClauseAnd     = regexp.MustCompile(`\s+and\s+(i|we|my|our)\s`)
	reClauseColon   = regexp.MustCompile(`:\s+`)
)

func splitClauses(s string) []string {
	s = reClauseBut.ReplaceAllString(s, "|")
	s = reClauseSubject.ReplaceAllString(s, "|$1")
	s = reClauseAnd.ReplaceAllString(s, "|$1 ")
	s = reClauseColon.ReplaceAllString(s, "|")
	return strings.Split(s, "|")
}

var (
	reTripMarker = regexp.MustCompile(`\b(?:this time|this trip|this one time|just this once|only this once|this once|for once|tonight|tomorrow|this weekend|this week|this booking|on the way back|on the way there|on the way out|on the return|for the return|return flight|outbound|this flight|for now|this stay|today|next week|next weekend|next month|this holiday|this vacation|honeymoon|this visit|on the flight (?:to|from|back|home)|for the flight (?:to|from|back|home)|(?:for|on) (?:my|our) (?:upcoming )?trip to|on this one|for this one|exceptionally|this round)\b`)
	// reBareTripMarker recognises a clause that is only a scope marker.
	reBareTripMarker  = regexp.MustCompile(`^(?:and |but |though |also |so |just |only |ok |okay |well )*(?:for |on )?(?:this time|this trip|just this once|this once|for once|this one time|this booking|this round|the return|the way back|this flight|tonight|tomorrow|this weekend)(?: around| round| only| though| at least)?[\s,:\-]*$`)
	reWholeBareMarker = regexp.MustCompile(`(?i)^(?:and |but |just |only |ok |okay )*(?:for |on )?(?:this time|this trip|just this once|this once|for once|this booking)(?: around| round| only)?[\s,:\-]*$`)
	reDurableMarker   = regexp.MustCompile(`\b(?:always|usually|generally|in general|normally|as a rule|every time|whenever i|all my trips|typically|by default|on every trip|from now on|going forward|in future|for future trips)\b`)

	reOtherSubject = regexp.MustCompile(`^(?:and |also |plus |so |oh |but )?(?:(?:my|our) (?:wife|husband|partner|spouse|son|daughter|sons|daughters|kids?|children|child|baby|boyfriend|girlfriend|fianc[eé]e?|friends?|colleagues?|coworkers?|co-workers?|boss|mother|mom|mum|father|dad|brother|sister|parents|family|team|clients?|assistant|manager|grandmother|grandfather|grandma|grandpa|in-laws|mother-in-law|father-in-law|travel companion|companion|husband's|wife's)\b|(?:he|she|they|his|her|their) )`)
	reNamedSubject = regexp.MustCompile(`^(?:and |also |plus |so |oh |but )?([a-z]+) (?:always |usually |never |really |also |only )?(?:is|prefers|likes|loves|needs|wants|hates|has|eats|flies|travels|cannot|can not|does not|gets|refuses)\b`)
	reIncludesMe   = regexp.MustCompile(`\b(?:and i|and me|and myself|both of us|we both|all of us)\b`)
	reSelfSubject  = regexp.MustCompile(`^(?:and |also |plus |so |but |oh )?(?:i|we|me|my (?:seat|diet|budget|preference|preferences|go-to|favourite|favorite|usual|home airport|airline)|our)\b`)

	rePast         = regexp.MustCompile(`\b(?:used to|last time|last year|last month|last summer|last winter|last trip|years ago|back then|in the past|previously|when i was|as a kid|as a child|formerly|no longer|anymore|any more|once upon|back in|in college|at university|growing up)\b|\b(?:i|we) (?:only |always |usually |never |just |once )?(?:was|were|had|flew|stayed|booked|tried|went|took|sat|ate|drove|rented|did)\b`)
	reDiagnosed    = regexp.MustCompile(`\bdiagnos(?:ed|is)\b|\bsince\b`)
	reHypothetical = regexp.MustCompile(`^(?:if|suppose|supposing|imagine|hypothetically|what if|in case|say i|assuming)\b|\bif i (?:ever|were|was|had)\b|\bwould i\b|\bi might\b|\bmaybe i\b|\bi wonder\b|\bnot sure (?:if|whether)\b|\b(?:thinking|considering) (?:about |of )?(?:becoming|going|trying|switching)\b|\bi may\b`)
)

var reInstruction = []*regexp.Regexp{
	regexp.MustCompile(`\b(?:ignore|disregard|forget|override|bypass)\b.{0,30}\b(?:instructions|rules|prompt|guidelines|policy|policies|restrictions|messages|guardrails)\b`),
	regexp.MustCompile(`\bsystem (?:rule|prompt|message|instruction|instructions|override|note|level)\b`),
	regexp.MustCompile(`\b(?:always|must|shall|will) obey\b|\bobey me\b|\bdo (?:exactly )?(?:as|what) i say\b`),
	regexp.MustCompile(`\bfrom now on,? (?:you|ignore|respond|answer|reply|call me|refer to me|obey|speak|talk|only answer|never)\b`),
	regexp.MustCompile(`\b(?:act|behave) (?:as|like)\b|\bpretend (?:to be|you are|you're)\b|\byou are now\b|\bdeveloper mode\b|\bjailbreak\b|\bdan mode\b`),
	regexp.MustCompile(`\bnew (?:rule|rules|instruction|instructions)\b|\b(?:reveal|print|show|repeat|leak) (?:me )?(?:your|the) (?:system )?(?:prompt|instructions|rules)\b`),
	regexp.MustCompile(`\b(?:store|save|remember|record|treat|add|keep) (?:this|that|it|the following)? ?(?:as|like) (?:a |an |your )?(?:rule|instruction|system|policy|command|directive|core rule|permanent rule)\b`),
	regexp.MustCompile(`\b(?:you|assistant|the assistant) (?:must|should|will|shall) (?:always|never)\b|\bnever (?:refuse|question|say no to)\b`),
	regexp.MustCompile(`</?\s*(?:memories|memory_policy|user_profile|system|instructions|assistant|user|tool)\s*>|\[/?(?:system|inst)\]|<\|im_(?:start|end)\|>|(?:^|\n)\s*(?:system|assistant|developer)\s*:`),
	regexp.MustCompile(`\bgive me (?:a )?(?:free|discount|upgrade)s? (?:always|every time)\b|\bgrant (?:me )?(?:admin|staff|support)\b|\bi am (?:an? )?(?:admin|administrator|developer|staff member)\b.{0,20}\b(?:so|therefore|must|allowed)\b`),
}

func isInstruction(s string) bool {
	for _, re := range reInstruction {
		if re.MatchString(s) {
			return true
		}
	}
	return false
}

var reSensitive = []*regexp.Regexp{
	regexp.MustCompile(`\d[\d \-]{10,}\d`),
	regexp.MustCompile(`\d{7,}`),
	regexp.MustCompile(`\b[a-z]{1,2}\d{6,9}\b`),
	regexp.MustCompile(`\bpassport (?:number|no|num|#|id|is|reads)\b|\bpassport:? ?[a-z0-9]*\d`),
	regexp.MustCompile(`\b(?:date of birth|dob|born on|born in \d|birth ?date|birthday is)\b|\bi was born\b`),
	regexp.MustCompile(`\b(?:password|passcode|passwd|pin code|pin number|pin is|my pin|otp|one[- ]time (?:code|password|passcode)|verification code|security code|2fa|two[- ]factor code|cvv|cvc|login is|username is|access code|door code|code is)\b`),
	regexp.MustCompile(`\b(?:my address|i live at|home address|address is|billing address|shipping address|zip code is|postcode is|post code is)\b|\b\d+[a-z]? [a-z]+(?: [a-z]+)? (?:street|st|avenue|ave|road|rd|boulevard|blvd|lane|ln|drive|dr|way|court|ct|place|pl)\b`),
	regexp.MustCompile(`\b(?:member(?:ship)?|account|frequent fl(?:y|i)er|loyalty|customer|rewards|skymiles|mileageplus|aadvantage|bonvoy|known traveler|known traveller|ktn|global entry|redress|tsa precheck|nexus) ?(?:number|no|num|#|id|code)\b|\b(?:ktn|redress number)\b`),
	regexp.MustCompile(`\b(?:ssn|social security|national insurance|tax id|tax number|iban|routing number|sort code|bank account|swift|bic code|national id|id number|id card number|driver'?s licen[cs]e number|licen[cs]e number)\b`),
	regexp.MustCompile(`\b(?:credit|debit) card\b|\bcard (?:number|ending|no|details|expires|expiry)\b|\b(?:visa|mastercard|amex|american express) (?:ending|number|card)\b|\bexpir(?:y|es|ation) (?:date )?(?:is )?\d`),
	regexp.MustCompile(`\b(?:booking|confirmation|reservation) ?(?:ref|reference|number|code|no|#|id)\b|\b(?:pnr|record locator|e-?ticket number|ticket number)\b`),
	regexp.MustCompile(`\b(?:phone number|mobile number|cell number|my number is|email is|e-?mail address)\b|[a-z0-9._%+\-]+@[a-z0-9.\-]+\.[a-z]{2,}`),
}

var reBookingRef = regexp.MustCompile(`\b[A-Z0-9]{6}\b`)
var reHasDigit = regexp.MustCompile(`\d`)
var reHasLetter = regexp.MustCompile(`[A-Z]`)

func isSensitive(cl string) bool {
	for _, re := range reSensitive {
		if re.MatchString(cl) {
			return true
		}
	}
	return false
}

// isSensitiveRaw catches booking-reference-like codes ("XK7P2Q"), which only
// stand out in the original casing.
func isSensitiveRaw(raw, cl string) bool {
	for _, m := range reBookingRef.FindAllString(raw, -1) {
		if reHasDigit.MatchString(m) && reHasLetter.MatchString(m) && strings.Contains(cl, strings.ToLower(m)) {
			return true
		}
	}
	return false
}

func isOtherSubject(cl string) bool {
	if reIncludesMe.MatchString(cl) {
		return false
	}
	if reOtherSubject.MatchString(cl) {
		return true
	}
	m := reNamedSubject.FindStringSubmatch(cl)
	return m != nil && !notName[m[1]]
}

// notName lists words that start a third-person-looking clause without
// being someone else ("aisle is fine", "economy works", "budget is …").
var notName = wordSet(`i we it this that there what everything anything nothing something
aisle window middle seat seats economy business first premium coach cabin budget price cost money
gluten dairy meat pork beef fish seafood alcohol pool gym spa breakfast wifi parking quiet location
hotel hotel's room rooms flight flights layover layovers connection connections red redeye direct nonstop
luggage baggage bag bags legroom comfort food view value speed time morning evening night
car suv boutique chain chains central downtown beach airbnb airline delta united lufthansa emirates
one mine each either neither both which who whoever someone`)

func wordSet(s string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(s) {
		m[w] = true
	}
	return m
}
