package offline

import (
	"cmp"
	_ "embed"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"go.yaml.in/yaml/v3"

	"concierge/memory"
)

//go:embed lexicon_en.yaml
var lexiconEN []byte

// lexicon is one language's words for the clause reader; see lexicon_en.yaml.
type lexicon struct {
	First          []string          `yaml:"first"`
	Possessive     []string          `yaml:"possessive"`
	People         []string          `yaml:"people"`
	Attributes     []string          `yaml:"attributes"`
	TripAttributes []string          `yaml:"trip_attributes"`
	Adverbs        []string          `yaml:"adverbs"`
	Negators       []string          `yaml:"negators"`
	HabitAdverbs   []string          `yaml:"habit_adverbs"`
	Habits         []string          `yaml:"habits"`
	Doings         []string          `yaml:"doings"`
	Identities     []string          `yaml:"identities"`
	SelfIntro      []string          `yaml:"self_intro"`
	HabitOpeners   []string          `yaml:"habit_openers"`
	Subordinators  []string          `yaml:"subordinators"`
	Counts         []string          `yaml:"counts"`
	Bookings       []string          `yaml:"bookings"`
	BareIdentities []string          `yaml:"bare_identities"`
	Acronyms       []string          `yaml:"acronyms"`
	Units          map[string]string `yaml:"units"`
	ThirdVerbs     []string          `yaml:"third_verbs"`
	Joining        []string          `yaml:"joining"` // after "<Name> is": someone who comes along ("Sarah is coming with us")
	Limits         []string          `yaml:"limits"`
	TimeWords      []string          `yaml:"time_words"`
	BareWants      []string          `yaml:"bare_wants"`
	Preferring     []string          `yaml:"preferring"`
	States         []string          `yaml:"states"`
	NotIntro       []string          `yaml:"not_intro"` // first words of "… here" that introduce no one ("same here", "nobody here")
	ObjectStops    []string          `yaml:"object_stops"`
	Until          []string          `yaml:"until"`
	Stopwords      []string          `yaml:"stopwords"`
	NotHabits      []string          `yaml:"not_habits"`
	Lasting        []string          `yaml:"lasting"`
	Hedges         []string          `yaml:"hedges"`
	Deictic        []string          `yaml:"deictic"`
	WantMarkers    []string          `yaml:"want_markers"`
	ForGood        []string          `yaml:"for_good"`
	Cues           map[string]string `yaml:"cues"`
	Changes        map[string]string `yaml:"changes"`
	Copulas        []string          `yaml:"copulas"`
	Verdicts       []struct {
		Note  string   `yaml:"note"`
		Words []string `yaml:"words"`
	} `yaml:"verdicts"`
	Mine      []string `yaml:"mine"`
	Outright  []string `yaml:"outright"`
	NotThings []string `yaml:"not_things"`
	Purposes  []string `yaml:"purposes"`
	Wanted    struct {
		Note    string   `yaml:"note"`
		Not     string   `yaml:"not"`
		Markers []string `yaml:"markers"`
		Ends    []string `yaml:"ends"`
		Keeps   []string `yaml:"keeps"`
		Told    []string `yaml:"told"` // a verb that makes the words a report, not a want ("hotel this time was awful")
	} `yaml:"wanted"`
	Pronouns      map[string]string `yaml:"pronouns"`
	Verbs         map[string]string `yaml:"verbs"`
	TheyVerbs     map[string]string `yaml:"they_verbs"` // a verb after an "I" that became "they" ("while they are there")
	Second        map[string]string `yaml:"second"`
	Modals        []string          `yaml:"modals"`
	Yours         map[string]string `yaml:"yours"`
	Contractions  [][2]string       `yaml:"contractions"`
	Headings      [][2]string       `yaml:"headings"`
	Auxiliaries   []string          `yaml:"auxiliaries"`
	Details       string            `yaml:"details"`
	NoteNegations []string          `yaml:"note_negations"`
	Needs         []string          `yaml:"needs"`
	SharedVerbs   []string          `yaml:"shared_verbs"`
	Reasons       []string          `yaml:"lasting_reasons"`
	NotReasons    []string          `yaml:"not_lasting_reasons"`
	Access        []string          `yaml:"access"`
	Remarks       []string          `yaml:"remarks"`
	PlaceRemarks  []string          `yaml:"place_remarks"`
	Judgements    []string          `yaml:"judgements"`
	WordPlaces    []string          `yaml:"word_places"`
	Kin           []string          `yaml:"kin"`
	Aversions     []string          `yaml:"aversions"`
	Dropped       []string          `yaml:"dropped"`
	Tastes        []string          `yaml:"tastes"`
	Favourites    []string          `yaml:"favourites"`
	PlaceWords    []string          `yaml:"place_words"`
	PlaceOpeners  []string          `yaml:"place_openers"`
	TravelNouns   []string          `yaml:"travel_nouns"`
	NotVerbs      []string          `yaml:"not_verbs"`
	Objects       []string          `yaml:"objects"`        // what follows an imperative's verb ("skip the wine pairings", "book me …")
	FeelingVerbs  []string          `yaml:"feeling_verbs"`  // verbs no one orders with: "want a balcony" dropped its "I"
	HabitVerbs    []string          `yaml:"habit_verbs"`    // habits no one orders with: "use a cane" dropped its "I"
	AfterVerbs    []string          `yaml:"after_verbs"`    // what follows a verb, not a plural noun: "…, wakes at every passing bus"
	Weekdays      []string          `yaml:"weekdays"`       // a day that makes a want a booking: "a table for Saturday"
	ReasonOpeners []string          `yaml:"reason_openers"` // a reason's first word after the traveler's clause: "…, can't sleep in the heat"
	OwnFacts      []string          `yaml:"own_facts"`      // a note's keywords that make it no reason for the note before
	Additive      []string          `yaml:"additive"`       // words that add a fact, not a reason: "I also …", "… too"
	Compounds     []string          `yaml:"compounds"`      // things named with a cue's word: "travel insurance" is no "I travel"
	Companions    []string          `yaml:"companions"`     // verbs that make a party a habit: "(I) travel with my 2 kids"
	Chatter       map[string]bool   `yaml:"chatter"`        // what ends a chat message and says nothing ("pls", "haha")
	Asking        []string          `yaml:"asking"`         // the chatter that makes a later clause a request ("so trains please")
	Passing       []string          `yaml:"passing"`        // what the learned reader never keeps: indifference, the moment, plans, thanks
	Moment        []string          `yaml:"moment"`         // the moment, whoever a clause is about
	Today         []string          `yaml:"today"`          // a clause of the traveler's about today, or not about travel, tells nothing to keep
	Conditions    []string          `yaml:"conditions"`
	Requirements  []struct {
		Note  string   `yaml:"note"`
		Words []string `yaml:"words"`
	} `yaml:"requirements"`
	Stances []struct {
		Note     string   `yaml:"note"`
		Before   []string `yaml:"before"`
		After    []string `yaml:"after"`
		Verbless bool     `yaml:"verbless"`
	} `yaml:"stances"`

	stop       map[string]bool
	base       map[string]string // a third-person verb's form after "you": flies → fly
	expand     *strings.Replacer // contractions, in the file's order
	details    *regexp.Regexp
	until      *regexp.Regexp
	habit      *regexp.Regexp // a habit opener before the subject: "as a rule, i …"
	habitWords []string       // the longest word of each habit opener: a sentence without one has none
	others     *regexp.Regexp // "my wife", "our kids'": a possessive that names another person
	bare       *regexp.Regexp // "wife's allergic to shellfish": chat drops the "my"
	named      *regexp.Regexp // "«Sarah» does not eat pork": a named person is the subject

	// changeKeys and cueKeys are the keys of Changes and Cues, listed once
	// at load for matchAt (every clause is matched against them);
	// changeFirst holds the first word of each change.
	changeKeys, cueKeys []string
	changeFirst         map[string]bool
}

func loadLexicon(raw []byte) (*lexicon, error) {
	lx := &lexicon{}
	if err := yaml.Unmarshal(raw, lx); err != nil {
		return nil, fmt.Errorf("offline lexicon: %w", err)
	}
	if len(lx.First) == 0 || len(lx.Cues) == 0 || len(lx.Until) == 0 || len(lx.HabitAdverbs) == 0 || len(lx.ObjectStops) == 0 {
		return nil, fmt.Errorf("offline lexicon: first, cues, until, habit_adverbs and object_stops are required")
	}
	lx.stop = set(lx.Stopwords)
	var pairs []string
	for _, c := range slices.Concat(lx.Contractions, lx.Headings) {
		pairs = append(pairs, c[0], c[1])
	}
	lx.expand = strings.NewReplacer(pairs...)
	var err error
	if lx.details, err = regexp.Compile(lx.Details); err != nil {
		return nil, fmt.Errorf("offline lexicon: details: %w", err)
	}
	lx.changeKeys, lx.cueKeys = slices.Sorted(maps.Keys(lx.Changes)), slices.Sorted(maps.Keys(lx.Cues))
	lx.changeFirst = map[string]bool{}
	for _, k := range lx.changeKeys {
		lx.changeFirst[strings.Fields(k)[0]] = true
	}
	lx.base = maps.Clone(lx.Second)
	for b, third := range lx.Cues {
		if !strings.Contains(third, " ") && !strings.Contains(b, " ") && third != b {
			lx.base[third] = b
		}
	}
	if lx.until, err = regexp.Compile(`(?i)\b(?:` + strings.Join(lx.Until, "|") + `)\b[^,.;!?]*`); err != nil {
		return nil, fmt.Errorf("offline lexicon: until: %w", err)
	}
	for _, o := range lx.HabitOpeners {
		lx.habitWords = append(lx.habitWords, slices.MaxFunc(strings.Fields(o), func(a, b string) int { return len(a) - len(b) }))
	}
	if lx.habit, err = regexp.Compile(`(^|[,;:] )(?:` + strings.Join(lx.HabitOpeners, "|") + `),? (i|we) `); err != nil {
		return nil, fmt.Errorf("offline lexicon: habit_openers: %w", err)
	}
	if lx.others, err = regexp.Compile(`^(?:` + strings.Join(lx.Possessive, "|") + `) (?:\S+ )?(?:` + strings.Join(lx.People, "|") + `)(?:'s|')?(?:$|[^\p{L}'])`); err != nil {
		return nil, fmt.Errorf("offline lexicon: people: %w", err)
	}
	if lx.named, err = regexp.Compile(`^«[^»]+» (?:(?:` + strings.Join(lx.ThirdVerbs, "|") + `)\b|, who\b|is (?:` + strings.Join(lx.Joining, "|") + `)\b)`); err != nil {
		return nil, fmt.Errorf("offline lexicon: third_verbs: %w", err)
	}
	lx.bare, err = regexp.Compile(`^(?:(?:the )?(?:` + strings.Join(lx.People, "|") + `)'s|the (?:` + strings.Join(lx.People, "|") + `)|` + strings.Join(lx.Kin, "|") + `)(?:$|[^\p{L}'])`)
	return lx, err
}

// reading is what the clause reader made of one clause.
type reading struct {
	note     memory.SaveNoteArgs
	change   bool         // a lasting change of state ("moved to", "gave up")
	negative bool         // the clause says what the traveler does not do or want
	want     bool         // a bare want: a request unless a marker scopes it
	until    string       // "until the end of March": the note's end, for expires_on (not yet set)
	scope    memory.Scope // the default scope when no marker sets one
	pick     bool         // "I prefer a quiet room": one thing for this booking, kept only for a detail a rule drops
	bare     bool         // an unmarked taste ("I prefer aisle seats"): this trip's when said while choosing
	marked   bool         // the clause names its trip ("this time"): a named option is wanted, not picked
}

// words are matched at a position of a clause's words: the longest key wins.
func matchAt(ws []string, i int, keys []string) string {
	best := ""
	for _, k := range keys {
		if len(k) > len(best) && phraseAt(ws, i, k) {
			best = k
		}
	}
	return best
}

// phraseAt reports whether the words of a phrase are the words from i on.
// It splits nothing: matchAt runs it for every key of a list on every word.
func phraseAt(ws []string, i int, phrase string) bool {
	n := 0
	for w := range strings.FieldsSeq(phrase) {
		if i+n >= len(ws) || ws[i+n] != w {
			return false
		}
		n++
	}
	return n > 0
}

// keepsMore reports whether the reader's note keeps a condition or an
// amount that none of a rule's fixed notes has ("under four hours", "away
// from the lift").
func (lx *lexicon) keepsMore(g memory.SaveNoteArgs, ruled []memory.SaveNoteArgs) bool {
	kept := func(d string) bool {
		return slices.ContainsFunc(ruled, func(n memory.SaveNoteArgs) bool { return strings.Contains(strings.ToLower(n.Text), d) })
	}
	if slices.ContainsFunc(ruled, func(n memory.SaveNoteArgs) bool { // "«Lisbon» hotel budget: 400 euros…": the amount outweighs the name
		return slices.ContainsFunc(reNumber.FindAllString(n.Text, -1), func(d string) bool { return !strings.Contains(g.Text, d) })
	}) {
		return false
	}
	for _, d := range lx.details.FindAllString(strings.ToLower(g.Text), -1) {
		if !kept(d) {
			return true
		}
	}
	for _, w := range strings.Fields(g.Text)[1:] { // a name the rule's note drops ("through Frankfurt")
		if r := []rune(w); unicode.IsUpper(r[0]) && !kept(strings.ToLower(strings.Trim(w, ".,"))) {
			return true
		}
	}
	return false
}

// negationLost reports whether the reader read a negative clause that no
// rule's note words as one ("I don't like the ground floor" is not
// "Prefers low floors.").
func (lx *lexicon) negationLost(r reading, ruled []memory.SaveNoteArgs) bool {
	return r.negative && !slices.ContainsFunc(ruled, func(n memory.SaveNoteArgs) bool {
		low := " " + strings.ToLower(n.Text)
		return slices.ContainsFunc(lx.NoteNegations, func(w string) bool { return strings.Contains(low, " "+w) })
	})
}

// read finds a clause's subject, polarity, cue and object in one pass and
// words it as a third-person note. carried says the clause continues a
// first-person one ("…, so fast wifi is a must").
func (lx *lexicon) read(cl string, carried, fronted bool) (reading, bool) {
	var r reading
	if loc := lx.until.FindStringIndex(cl); loc != nil {
		r.until, cl = strings.TrimSpace(cl[loc[0]:loc[1]]), cl[:loc[0]]+cl[loc[1]:]
	}
	ws := strings.Fields(strings.Trim(cl, " ,.!?;:"))
	got, stanced, ok := lx.stance(r, ws)
	if ok {
		return got, true
	}
	r.marked = fronted || lx.has(cl, lx.Wanted.Markers, lx.HabitAdverbs)
	marked := false // "this time, a hotel with a sauna": a marker opens a wanted thing
	if k := matchAt(strings.Fields(strings.ReplaceAll(strings.Join(ws[:min(4, len(ws))], " "), ",", "")), 0, lx.Wanted.Markers); k != "" {
		rest := ws[len(strings.Fields(k)):]
		if len(rest) > 0 && strings.Trim(rest[0], ",") == "only" {
			rest = rest[1:]
		}
		if marked = len(rest) > 1 && (rest[0] == "a" || rest[0] == "an" || rest[0] == "no" || slices.ContainsFunc(rest, func(w string) bool { return strings.Trim(w, ",.!") == "please" })); marked || !slices.Contains(lx.HabitAdverbs, k) {
			ws = rest
		}
	}
	limit := -1         // "long layovers, anything over 3 hours is too much": the limit is said after a comma
	for i := range ws { // the object ends at a reason or a request, not at an amount that follows it ("a minivan, seven seats")
		if i > 1 && strings.HasSuffix(ws[i-1], ",") && limit < 0 && !lx.amount(ws[i:]) && lx.limit(ws[i:]) && slices.ContainsFunc(ws[:i], func(w string) bool { return slices.Contains(lx.First, w) }) {
			limit = i - 1
		}
		if i > 1 && (matchAt(ws, i, lx.ObjectStops) != "" || strings.HasSuffix(ws[i-1], ",") && !lx.amount(ws[i:]) && limit != i-1) {
			ws = ws[:i]
			for len(ws) > 2 && slices.Contains(danglers, ws[len(ws)-1]) {
				ws = ws[:len(ws)-1] // "happy to do fewer stops if [that is what it takes]": no "if" left hanging
			}
			break
		}
	}
	for i := range ws {
		if ws[i] = strings.Trim(ws[i], ",;:!?"); i == limit {
			ws[i] += ","
		}
	}
	for i := 1; i < len(ws); i++ { // a scope marker is not part of the object ("a lake view on this one")
		if k := matchAt(ws, i, lx.Wanted.Markers); k != "" && !slices.Contains(lx.HabitAdverbs, k) {
			ws = slices.Delete(ws, i, i+len(strings.Fields(k)))
		}
	}
	if matchAt(ws, 0, lx.States) != "" && (len(ws) == 1 || matchAt(ws, 1, lx.ObjectStops) != "") { // "coeliac, so …": chat drops the "I am"
		return lx.predicate(r, []string{"am", ws[0]}, false)
	}
	if len(ws) < 2 {
		return r, false
	}
	isFirst := func(w string) bool { return slices.Contains(lx.First, w) }
	front := 5 // how far the subject may be; a fronted topic may run longer ("for anything over 8 hours in the air I …")
	if slices.Contains(lx.Wanted.Keeps, ws[0]) {
		front = 10
	}
	subj := slices.IndexFunc(ws[:min(len(ws), front)], isFirst)
	switch {
	case matchAt(ws, 0, lx.Conditions) != "" && slices.ContainsFunc(ws, isFirst):
		got, ok = lx.conditional(r, ws)
	case subj >= 0 && matchAt(ws, 0, lx.Subordinators) != "": // "every time I book a hotel I ask for…", "since having the baby we need…"
		main := ws[subj+1:]
		if next := slices.IndexFunc(main, isFirst); next >= 0 && next < 6 {
			main = main[next+1:]
		}
		got, ok = lx.predicate(r, main, true)
	case subj >= 0 && (subj == 0 || !slices.ContainsFunc(ws[:subj], func(w string) bool { return slices.Contains(lx.People, w) })):
		if !slices.ContainsFunc(ws[:subj], func(w string) bool { return !slices.Contains(lx.HabitAdverbs, w) }) {
			got, ok = lx.predicate(r, slices.Concat(ws[:subj], ws[subj+1:]), stanced) // "mostly I go alone"
		} else if got, ok = lx.predicate(r, ws[subj+1:], stanced); got.note.Text != "" && subj > 1 && slices.Contains(lx.Wanted.Keeps, ws[0]) && !lx.wantMarked(strings.Join(ws[:subj], " ")) {
			// A fronted topic ends the note ("for car hire I won't go over
			// $50 a day"); one in the plural ("for city breaks") makes a want
			// a standing one.
			kw := got.note.Keywords
			got.note.Keywords, got.want = nil, got.want && !slices.ContainsFunc(ws[1:subj], func(w string) bool { return len(w) > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "'s") })
			got, ok = lx.finish(got, strings.TrimSuffix(got.note.Text, ".")+" "+lx.third(ws[:subj]), slices.Concat(ws[:subj], kw))
		}
	case slices.Contains(lx.Possessive, ws[0]):
		got, ok = lx.attribute(r, ws)
	case matchAt(ws, 0, lx.TripAttributes) != "" && !lx.travelThing(ws[1:2]): // "budget for the weekend is 300 quid": chat drops the "my"; not "budget airlines"
		got, ok = lx.attribute(r, slices.Concat([]string{"my"}, ws))
	case strings.Contains(matchAt(ws, 0, lx.States), " ") || lx.identity(ws, 0) || matchAt(ws, 0, lx.States) != "" && slices.Contains([]string{"to", "of", "about", "with"}, ws[1]):
		// "not a fan of hostels", "not a big drinker", "allergic to cats": chat drops the "I am"
		am := []string{"am"}
		if lx.identity(ws, 0) && ws[0] != "a" && ws[0] != "an" && ws[0] != "not" { // "big hiker": and the "a"
			article := "a"
			if strings.ContainsAny(ws[0][:1], "aeiou") {
				article = "an"
			}
			am = append(am, article)
		}
		got, ok = lx.predicate(r, slices.Concat(am, ws), false)
	case matchAt(ws, 0, lx.Dropped) != "" || lx.droppedChange(ws): // "love a good spa hotel", "moved to Berlin": chat drops the "I"
		got, ok = lx.predicate(r, ws, false)
	case len(ws) > 2 && matchAt(ws, 0, lx.HabitAdverbs) != "" && lx.Cues[ws[1]] != "" && ws[2] != "me" && ws[2] != "us":
		// "usually travel light": a cue's habit without its "I"; not "always book me …" or "always ignore …"
		got, ok = lx.predicate(r, ws, true)
	}
	if ok {
		return got, ok
	}
	if got, ok := lx.requirement(r, ws); ok && subj < 0 {
		return got, ok
	}
	if subj < 0 && (marked || r.marked && (ws[0] == "a" || ws[0] == "an" || lx.travelThing(ws[:1]) || lx.travelThing(ws[:2]) && ws[0] != "the" && !slices.Contains(lx.Deictic, ws[0]) && !slices.Contains(lx.Possessive, ws[0]))) {
		// "hotel near the venue this time", "premium economy this time"; not "the dog … this time"
		return lx.wanted(r, ws)
	}
	return lx.verdict(r, ws, carried)
}

// requirement reads a travel thing's standard said of the thing ("wifi
// has to be fast", "rooms must have a bath"): the thing is generic, or the
// traveler's ("my hotels need a gym").
func (lx *lexicon) requirement(r reading, ws []string) (reading, bool) {
	for j := 1; j < min(len(ws)-1, 5); j++ {
		for _, q := range lx.Requirements {
			if k := matchAt(ws, j, q.Words); k != "" && j+len(strings.Fields(k)) < len(ws) && lx.travelThing(ws[:j]) &&
				!slices.ContainsFunc(ws[:j], func(w string) bool {
					return slices.Contains(lx.NotThings, w) || slices.Contains(lx.Deictic, w) || w == "the" || lx.Yours[w] != "" || lx.Pronouns[w] == "" && slices.Contains(lx.People, w)
				}) {
				rest := ws[j+len(strings.Fields(k)):]
				return lx.finish(r, strings.NewReplacer("{x}", lx.third(ws[:j]), "{y}", lx.third(rest)).Replace(q.Note), slices.Concat(ws[:j], rest))
			}
		}
	}
	return r, false
}

// amount reports whether the words are a short verbless detail that opens
// with a number or a limit ("about 80 euros a night", "seven seats").
// limit reports whether the words after a comma set a limit on what came
// before ("long layovers, anything over 3 hours is too much"): a few words,
// about no one, with a number or one of the lexicon's limits.
func (lx *lexicon) limit(ws []string) bool {
	return len(ws) <= 8 && !slices.ContainsFunc(ws, func(w string) bool { return slices.Contains(lx.First, w) || strings.HasSuffix(w, ",") }) &&
		(slices.ContainsFunc(ws, func(w string) bool { return reNumber.MatchString(w) }) || slices.ContainsFunc(lx.Limits, func(l string) bool { return matchAt(ws, 0, []string{l}) != "" || slices.Contains(ws[1:], l) }))
}

func (lx *lexicon) amount(ws []string) bool {
	return len(ws) > 0 && len(ws) <= 6 && (lx.details.MatchString(ws[0]) || slices.Contains([]string{"about", "around", "roughly"}, ws[0])) && !slices.ContainsFunc(ws, func(w string) bool {
		return strings.HasSuffix(w, ",") || slices.Contains(lx.First, w) || slices.Contains(lx.Copulas, w) || lx.Cues[w] != "" || lx.Verbs[w] != ""
	})
}

// droppedChange reports whether a clause opens with a change of state
// whose object is a thing, not "the", "a" or "at" ("quit smoking", not
// "stopped at the desk").
func (lx *lexicon) droppedChange(ws []string) bool {
	k := matchAt(ws, 0, lx.changeKeys)
	return k != "" && !strings.Contains(lx.Changes[k], "{") || k != "" && len(strings.Fields(k)) < len(ws) && !lx.stop[ws[len(strings.Fields(k))]]
}

// conditional reads a habit under a condition, keeping the condition in
// the note: "when I travel for work I stay near the office" → "Stays near
// the office when they travel for work.", "if it is under 4 hours I take
// the train". A main clause with a modal, or "will" without "every time",
// is a hypothetical or a plan, and a want under a one-off condition ("when we land we need a
// taxi") is a request.
func (lx *lexicon) conditional(r reading, ws []string) (reading, bool) {
	isFirst := func(w string) bool { return slices.Contains(lx.First, w) }
	end := slices.IndexFunc(ws, isFirst)
	if end < 0 {
		return r, false
	}
	if next := slices.IndexFunc(ws[end+1:], isFirst); end <= 2 && next >= 0 && next < 6 { // the condition has its own subject
		end += 1 + next
	} else if end <= 2 {
		return r, false // "if i won the lottery id fly private": the only subject is the condition's
	}
	main, cond := ws[end+1:], ws[:end]
	if len(main) < 2 || slices.ContainsFunc(main, func(w string) bool {
		return slices.Contains(lx.NotVerbs, w) || w == "would" || w == "will" && !lx.wantMarked(strings.Join(ws, " "))
	}) ||
		matchAt(main, 0, lx.BareWants) != "" && !lx.wantMarked(strings.Join(cond, " ")) {
		return r, false
	}
	got, ok := lx.predicate(r, main, true)
	if !ok {
		return r, false
	}
	kw := got.note.Keywords
	got.note.Keywords = nil
	return lx.finish(got, strings.TrimSuffix(got.note.Text, ".")+" "+lx.third(cond), slices.Concat(cond, kw))
}

// conditionHolds reports whether a clause that opens with "if" or "when"
// states a habit under its condition, not a hypothetical.
func (lx *lexicon) conditionHolds(cl string) bool {
	ws := strings.Fields(strings.NewReplacer(",", "", ".", "").Replace(cl))
	_, ok := lx.conditional(reading{}, ws)
	return matchAt(ws, 0, lx.Conditions) != "" && ok
}

// stance reads a verbless fragment that takes a stand on a travel thing
// ("window seat, always", "sea view or nothing", "no more than a 45 minute
// transfer"); after says the clause ends in a stance, which makes a
// first-person clause a habit ("I book six months ahead, always").
func (lx *lexicon) stance(r reading, ws []string) (got reading, after, ok bool) {
	var cands []string // the clause up to each comma, and the whole of it
	for i, w := range ws {
		if strings.HasSuffix(w, ",") || i == len(ws)-1 {
			cands = append(cands, strings.TrimRight(strings.Join(ws[:i+1], " "), ","))
		}
	}
	for _, s := range lx.Stances {
		for _, c := range cands {
			var thing []string
			for _, a := range s.After {
				if t, found := strings.CutSuffix(c, " "+a); found {
					thing, after = strings.Fields(strings.TrimRight(t, ",")), after || !s.Verbless
				}
			}
			for _, b := range s.Before {
				if t, found := strings.CutPrefix(c, b+" "); found {
					thing = strings.Fields(t)
				}
			}
			for i := range thing {
				thing[i] = strings.Trim(thing[i], ",")
			}
			if n := len(thing); n > 2 && slices.Contains(lx.Mine, thing[n-1]) { // "no red-eyes for me, ever"
				thing = thing[:n-2]
			}
			if len(thing) == 0 || len(thing) > 10 || !lx.travelThing(thing) || slices.ContainsFunc(thing, func(w string) bool {
				return slices.Contains(lx.First, w) || slices.Contains(lx.Copulas, w) || lx.Cues[w] != "" || slices.Contains(lx.Auxiliaries, w)
			}) {
				continue
			}
			note := s.Note
			if thing[0] == "no" && len(thing) > 1 { // "no hostels, ever"
				note, thing = lx.Wanted.Not, thing[1:]
			}
			got, ok = lx.finish(r, strings.Replace(note, "{x}", lx.third(thing), 1), thing)
			return got, after, ok
		}
	}
	return r, after, false
}

// travelThing reports whether words name something a concierge books or
// arranges (the lexicon's travel nouns, singular or plural).
func (lx *lexicon) travelThing(ws []string) bool {
	return slices.ContainsFunc(ws, func(w string) bool {
		w = strings.Trim(w, ",.;:!?()")
		return slices.ContainsFunc(append(strings.Split(w, "-"), w), func(w string) bool { // "red-eyes", "pet-friendly"
			return slices.Contains(lx.TravelNouns, w) || slices.Contains(lx.TravelNouns, strings.TrimSuffix(w, "s"))
		})
	})
}

// wanted reads the thing a marker opens, up to what follows it ("a hotel
// near the cathedral please", "a rooftop bar would be perfect").
func (lx *lexicon) wanted(r reading, ws []string) (reading, bool) {
	if end := slices.IndexFunc(ws, func(w string) bool { return slices.Contains(lx.Wanted.Ends, w) }); end >= 0 {
		ws = ws[:end]
	}
	if len(ws) < 1 || slices.ContainsFunc(ws, func(w string) bool {
		return slices.Contains(lx.First, w) || slices.Contains(lx.Copulas, w) || slices.Contains(lx.Wanted.Told, w)
	}) {
		return r, false
	}
	note := lx.Wanted.Note
	r.want = true
	if ws[0] == "no" && len(ws) > 1 { // "for this one, no red-eyes"
		r.negative, note, ws = true, lx.Wanted.Not, ws[1:]
	}
	return lx.finish(r, strings.Replace(note, "{x}", lx.third(ws), 1), ws)
}

// verdict reads a clause whose subject is a thing the traveler judges:
// "<thing> is|are|matters … <verdict> (for me)" — "a bathtub is my
// non-negotiable", "street food is the highlight of any trip for me". The
// thing is generic (not "the", "that" or a person), the clause says whose
// verdict it is (for me, my, mine) unless it continues the traveler's
// sentence, and a negator before a liking verdict makes it an aversion.
func (lx *lexicon) verdict(r reading, ws []string, carried bool) (reading, bool) {
	if len(ws) > 3 && (ws[0] == "for" || ws[0] == "to") && (strings.TrimRight(ws[1], ",") == "me" || strings.TrimRight(ws[1], ",") == "us") {
		ws, carried = ws[2:], true // "for me mountains is the best": whose verdict it is, said first
	}
	j := slices.IndexFunc(ws, func(w string) bool { return slices.Contains(lx.Copulas, w) })
	// "keep the walking to a minimum": a standard word after an article is no standard
	if j < 1 || j > 6 || slices.Contains([]string{"a", "an", "the", "to"}, ws[j-1]) || slices.Contains(lx.Deictic, ws[0]) || slices.Contains(lx.NotThings, ws[0]) || slices.Contains([]string{"the", "your", "his", "her", "their"}, ws[0]) ||
		slices.ContainsFunc(ws[:j], func(w string) bool {
			return slices.Contains(lx.First, w) || slices.Contains(lx.People, w) || lx.Pronouns[w] == "" && lx.Yours[w] != ""
		}) {
		return r, false
	}
	pred := ws[j:]
	if slices.Contains(lx.Possessive, ws[0]) { // "my dealbreaker is a shared bathroom": the verdict is the subject, the thing follows
		for _, v := range lx.Verdicts {
			if k := matchAt(ws[1:j], 0, v.Words); k != "" && len(strings.Fields(k)) == j-1 && len(pred) > 1 {
				return lx.finish(r, strings.Replace(v.Note, "{x}", lx.third(pred[1:]), 1), pred[1:])
			}
		}
		return r, false
	}
	if !carried && !slices.ContainsFunc(pred, func(w string) bool { return slices.Contains(lx.Mine, w) }) {
		if said := strings.Join(pred, " "); !lx.has(said, lx.Outright, nil) && !lx.has(said, lx.Limits, nil) && !reNumber.MatchString(said) {
			return r, false // "Swiss trains are always on time" is a remark; "budget airlines are fine for anything under 2 hours" a stance
		}
	}
	if len(pred) > 2 && strings.ContainsAny(ws[0], "0123456789") && slices.Contains(lx.Possessive, pred[1]) && matchAt(pred, 2, lx.Attributes)+matchAt(pred, 3, lx.Attributes) != "" {
		return lx.finish(r, lx.third(pred[2:])+" "+ws[j]+" "+lx.third(ws[:j]), pred[2:]) // "120 CHF a night is my hotel limit"
	}
	for i := range pred {
		k, note := "", ""
		for _, v := range lx.Verdicts { // the longest verdict wins: "a hard no" is not "hard"
			if w := matchAt(pred, i, v.Words); len(w) > len(k) {
				k, note = w, v.Note
			}
		}
		if k != "" {
			last := lx.Verdicts[len(lx.Verdicts)-1].Note // the last verdict is the aversion
			if slices.ContainsFunc(pred[:i], func(w string) bool { return slices.Contains(lx.Negators, w) }) {
				note = last
			}
			r.negative = note == last
			text := strings.Replace(note, "{x}", lx.third(ws[:j]), 1)
			var tail []string // what follows the verdict, less "for me", "to me"
			for t, rest := 0, pred[i+len(strings.Fields(k)):]; t < len(rest); t++ {
				if t+1 < len(rest) && slices.Contains(lx.Mine, rest[t+1]) && !slices.Contains(lx.Mine, rest[t]) {
					t++
					continue
				}
				tail = append(tail, rest[t])
			}
			if len(tail) > 1 && slices.Contains(lx.Wanted.Keeps, tail[0]) {
				text = strings.TrimSuffix(text, ".") + " " + lx.third(tail) // "a must for long flights"
			}
			return lx.finish(r, text, ws[:j])
		}
	}
	return r, false
}

// identity reports whether ws from i describe the traveler by what they
// are: "(not) a keen hiker", "a big drinker".
func (lx *lexicon) identity(ws []string, i int) bool {
	if i < len(ws) && ws[i] == "not" {
		i++
	}
	n := len(ws)
	bare := n == i+2 && slices.Contains(lx.BareIdentities, ws[i]) // "big hiker": chat drops the "a"
	return n > i+1 && n <= i+4 && (ws[i] == "a" || ws[i] == "an" || bare) && slices.Contains(lx.Identities, ws[n-1])
}

// attribute reads "my budget for flights is usually under 800 euros".
func (lx *lexicon) attribute(r reading, ws []string) (reading, bool) {
	at := 1
	if len(ws) > 3 && matchAt(ws, 1, lx.Attributes) == "" && matchAt(ws, 2, lx.Attributes) != "" { // "my nearest airport", "my travel budget"
		at = 2
	}
	if len(ws) < 3 || matchAt(ws, at, lx.Attributes) == "" {
		return r, false
	}
	if !slices.ContainsFunc(ws, func(w string) bool { return w == "is" || w == "are" }) {
		return r, false
	}
	if slices.Contains(lx.TripAttributes, ws[at]) {
		if !strings.ContainsAny(strings.Join(ws, " "), "0123456789") {
			return r, false // "my budget is moderate" is the trip's budget slot, not a note
		}
		r.scope = memory.ScopeThisTrip // a budget is the trip's unless said to be usual
	}
	return lx.finish(r, lx.third(ws[1:]), ws[1:])
}

// placeOf is the place name an object opens with: up to the name marked
// «…», or, typed in lower case, its first one or two words that are no
// stopword or time word ("singapore in january" → "Singapore"; a name may
// open with one of PlaceOpeners: "new york" → "New York").
func (lx *lexicon) placeOf(obj []string) []string {
	if i := slices.IndexFunc(obj, func(w string) bool { return strings.HasSuffix(w, "»") }); i >= 0 {
		return obj[:i+1]
	}
	var name []string
	for i, w := range obj[:min(2, len(obj))] {
		w = strings.TrimRight(w, "!.,?")
		opens := i == 0 && len(obj) > 1 && slices.Contains(lx.PlaceOpeners, w) // "new york", "san diego"
		if len(w) < 2 || lx.stop[w] && !opens || slices.Contains(lx.TimeWords, w) || slices.Contains(lx.NotThings, w) || strings.ContainsFunc(w, func(r rune) bool { return !unicode.IsLetter(r) }) {
			break
		}
		name = append(name, capitalise(w))
	}
	return name
}

// predicate reads what follows the traveler as subject.
func (lx *lexicon) predicate(r reading, ws []string, lasting bool) (reading, bool) {
	negative, aux1 := false, ""
	if n := len(ws); n > 2 && matchAt(ws, n-1, lx.HabitAdverbs) != "" && !slices.Contains(lx.Negators, ws[n-1]) {
		lasting = true // "we fly out of Gatwick usually"
	}
	changes, cues := lx.changeKeys, lx.cueKeys
	for i := 0; i < len(ws); i++ {
		if k := matchAt(ws, i, changes); k != "" && !strings.Contains(lx.Changes[k], "{") { // "went vegan": the change says it all
			r.change = true
			return lx.finish(r, lx.Changes[k], ws[i:i+len(strings.Fields(k))])
		} else if k != "" && i+len(strings.Fields(k)) < len(ws) {
			obj := ws[i+len(strings.Fields(k)):]
			text := lx.Changes[k]
			if j := slices.Index(obj, "to"); strings.Contains(text, "{to}") || strings.Contains(text, "{then}") { // what follows "to": a place, or any thing
				if j < 0 {
					return r, false
				}
				obj, text = obj[j+1:], strings.NewReplacer("{to}", "{place}", "{then}", "{x}").Replace(text)
			}
			if strings.Contains(text, "{place}") { // the object is a name: "moved to «Lisbon» in the autumn", "moved to austin!!"
				obj, text = lx.placeOf(obj), strings.Replace(text, "{place}", "{x}", 1)
				if len(obj) == 0 {
					return r, false
				}
			}
			obj = lx.trimTime(obj)
			r.change = true
			return lx.finish(r, strings.Replace(text, "{x}", lx.third(obj), 1), obj)
		}
		if ws[i] == "am" || ws[i] == "are" {
			rest := ws[i+1:]
			if len(rest) > 0 && rest[0] == "now" {
				rest = rest[1:]
			}
			habitual := false // "I'm always cold on planes": a habit adverb makes the state lasting
			for len(rest) > 1 && matchAt(rest, 0, lx.HabitAdverbs) != "" && !slices.Contains(lx.Negators, rest[0]) {
				rest, habitual = rest[len(strings.Fields(matchAt(rest, 0, lx.HabitAdverbs))):], true
			}
			if k := matchAt(rest, 0, lx.SelfIntro); k != "" && len(rest) > len(strings.Fields(k)) { // "I'm someone who needs a desk"
				rest = slices.Clone(rest[len(strings.Fields(k)):])
				rest[0] = cmp.Or(lx.base[rest[0]], rest[0])
				return lx.predicate(r, rest, true)
			}
			self, plural := false, false // "I'm a keen hiker", "we are big foodies"
			if n := len(rest); n > 0 {
				plural = lx.pluralIdentity(rest)
				self = lx.identity(rest, 0) || plural
			}
			if ing := slices.DeleteFunc(slices.Clone(rest), func(w string) bool { return w == "not" }); r.marked && len(ing) > 0 && strings.HasSuffix(ing[0], "ing") && !slices.Contains(lx.NotVerbs, ing[0]) {
				return lx.finish(r, lx.third(ws), rest) // "on this trip I'm not drinking": marked, what is done now is the trip's
			}
			if len(rest) == 0 || !habitual && matchAt(rest, 0, lx.States) == "" && (rest[0] == "not" || !slices.Contains(lx.States, rest[len(rest)-1])) && !self ||
				slices.Contains(rest, "any") || slices.Contains(rest, "anything") || slices.Contains(lx.Deictic, rest[len(rest)-1]) {
				return r, false
			}
			text := lx.third(ws[:])
			if plural && strings.HasPrefix(text, "is ") {
				text = "are " + text[len("is "):] // "we are big foodies": "Are big foodies."
			}
			return lx.finish(r, text, ws[i+1:])
		}
		auxHere := slices.Contains(lx.Auxiliaries, ws[i]) && i+1 < len(ws) && (slices.Contains(lx.Negators, ws[i+1]) || slices.Contains(lx.Adverbs, ws[i+1]) || lx.Cues[ws[i+1]] != "")
		k, verb := matchAt(ws, i, cues), ""
		if k == "" && lx.verbLike(ws, i) { // a verb the cues do not list ("I kayak whenever I can")
			k, verb = ws[i], thirdPerson(ws[i])
		}
		if k != "" && !auxHere && negative && verb == "" && i+len(strings.Fields(k)) == len(ws) && slices.Contains(lx.Doings, k) && !slices.Contains(lx.NotHabits, k) {
			text := lx.third(ws) // "I don't drive": "does not drive"
			if aux1 == "" {
				text = lx.third(ws[:i]) + " " + lx.Cues[k] // "we never fly": "never flies"
			}
			return lx.finish(r, text, ws[i:]) // a lasting no, with nothing after the verb
		}
		if k != "" && !auxHere && i+len(strings.Fields(k)) < len(ws) {
			obj := ws[i+len(strings.Fields(k)):]
			// A bare want, "would rather", "will like to <verb>" or "like to
			// book" asks for something now; only a marker makes it lasting.
			// "I like to <verb>" is otherwise a habit ("I like to arrive early").
			// "don't want" turns down an offer; only "never" makes a want lasting.
			// A need for a lasting reason ("a fridge for my insulin") and a
			// comparison ("rather take the ferry than fly") are tastes.
			r.want = !lasting && (slices.Contains(lx.BareWants, k) || aux1 == "would" || aux1 == "will" && (k == "need" || obj[0] == "to") ||
				len(obj) > 1 && obj[0] == "to" && (k == "like" || k == "love") && slices.Contains(lx.Bookings, obj[1])) &&
				!slices.ContainsFunc(obj, func(w string) bool {
					return slices.Contains(lx.Needs, w) && obj[0] != "to" || w == "than" && k == "would rather"
				})
			preference := verb == "" && !slices.Contains(lx.Doings, k)
			negative = negative || obj[0] == "not" || slices.Contains(lx.Aversions, k) // "I prefer not to fly on Sundays", "I avoid Frankfurt"
			// Choosing a named option is a request, not a habit; a name after
			// "near" or "in" is where, and "best" makes the name a favourite.
			named := slices.IndexFunc(obj, func(w string) bool { return strings.HasPrefix(w, "«") })
			if !negative && !r.marked && (preference || !lasting && !slices.Contains(lx.Habits, k)) && named >= 0 && (named == 0 || !slices.Contains(lx.PlaceWords, obj[named-1])) &&
				!slices.ContainsFunc(obj, func(w string) bool { return slices.Contains(lx.Favourites, w) }) {
				return r, false
			}
			n := len(obj)
			// "anything with sesame in it" is the thing itself, no pointing;
			// "no matter what" is no hedge.
			within := n > 3 && obj[n-2] == "in" && slices.Contains(obj, "with")
			hedged := slices.ContainsFunc(obj, func(w string) bool { return slices.Contains(lx.Hedges, w) }) && !strings.Contains(strings.Join(obj, " "), "no matter what")
			if slices.Contains(lx.Deictic, obj[n-1]) && !within || hedged {
				return r, false
			}
			// "everywhere" makes a habit; "I have three children" a lasting fact.
			everywhere := slices.Contains(obj, "everywhere") || slices.Contains(lx.Habits, k) && aux1 == "" || matchAt(obj, 0, lx.States) != "" ||
				slices.ContainsFunc(obj, func(w string) bool { return slices.Contains(lx.Lasting, w) })
			habit := negative && verb == "" && !slices.Contains(lx.NotHabits, k) // "I don't drive", not "I don't have any other request"
			// A plain present verb about a kind of travel thing is a habit
			// ("I book refundable rates", "I drive an electric car").
			kind := !preference && aux1 == "" && !negative && !slices.Contains(lx.NotHabits, k) && lx.travelThing(obj) && !slices.ContainsFunc(obj, func(w string) bool {
				return slices.Contains(lx.NotThings, w) || slices.Contains([]string{"the", "this", "that", "your", "tomorrow", "tonight"}, w) || strings.ContainsAny(w, "0123456789«")
			})
			if !preference && !lasting && !habit && !everywhere && !kind && !slices.Contains(ws[:i], "only") {
				return r, false
			}
			// An unmarked "I prefer a small car" picks one thing for this
			// booking; "I prefer morning flights" states a taste.
			r.bare = !lasting && !negative && !r.want && !everywhere && !kind && aux1 != "can" // "i can only drive automatic" is no pick
			if r.bare && (slices.Contains([]string{"the", "this", "that", "some"}, obj[0]) || unicode.IsDigit(rune(obj[0][0])) || len(obj) > 10) {
				return r, false
			}
			r.pick = r.bare && (obj[0] == "a" || obj[0] == "an") && !slices.Contains(lx.Tastes, k) // "I like a firm mattress" is a taste
			words := slices.Clone(ws)
			if i > 1 && ws[i-1] == "to" && (ws[i-2] == "try" || ws[i-2] == "tend") { // "i try to make time for a hike": "tries to make"
				words = slices.Concat(ws[:i-2], []string{thirdPerson(ws[i-2]), "to"}, ws[i:])
			} else if aux1 == "" && (i == 0 || ws[i-1] != "not") { // the cue is the first verb: conjugate it
				words = slices.Concat(ws[:i], strings.Fields(cmp.Or(verb, lx.Cues[k])), obj)
			} else if aux1 == "do" && !negative { // "i do love a good spa": the "do" only stresses it
				words = slices.Concat(slices.DeleteFunc(slices.Clone(ws[:i]), func(w string) bool { return w == "do" }), strings.Fields(cmp.Or(verb, lx.Cues[k])), obj)
			}
			r.negative = negative
			if negative && !slices.ContainsFunc(obj, func(w string) bool { return len(w) > 2 && !lx.stop[w] }) {
				obj = ws[i:] // "I don't drive at all": the verb is what is kept
			}
			return lx.finish(r, lx.third(words), obj)
		}
		h, n, a := matchAt(ws, i, lx.HabitAdverbs), matchAt(ws, i, lx.Negators), matchAt(ws, i, lx.Adverbs)
		switch {
		case h != "":
			lasting, negative = true, negative || slices.Contains(lx.Negators, h)
		case n != "":
			negative = true
			lasting = lasting || aux1 == "will" // "I won't fly Ryanair" refuses for good
			if n == "cannot" {
				aux1 = cmp.Or(aux1, "can") // "I can't swim": the verb stays as it is
			}
		case slices.Contains(lx.Auxiliaries, ws[i]):
			aux1 = cmp.Or(aux1, ws[i])
		case a == "":
			return r, false
		}
		if phrase := cmp.Or(h, n, a); phrase != "" {
			i += len(strings.Fields(phrase)) - 1 // a phrase is one step
		}
	}
	return r, false
}

// verbLike reports whether the word at i of what follows the subject can
// be a present-tense verb the cues do not list: a plain word that is no
// adverb, auxiliary, past or -ing form.
func (lx *lexicon) verbLike(ws []string, i int) bool {
	w := ws[i]
	return len(w) > 2 && i+1 < len(ws) && strings.Trim(w, "abcdefghijklmnopqrstuvwxyz-") == "" && !lx.stop[w] && lx.Verbs[w] == "" &&
		!slices.Contains(lx.NotVerbs, w) && !slices.Contains(lx.Auxiliaries, w) && !slices.Contains(lx.Copulas, w) &&
		matchAt(ws, i, lx.Adverbs)+matchAt(ws, i, lx.HabitAdverbs)+matchAt(ws, i, lx.Negators) == "" &&
		!strings.HasSuffix(w, "ed") && !strings.HasSuffix(w, "ing") && !strings.HasSuffix(w, "ly")
}

// thirdPerson gives an English verb its third-person singular form.
func thirdPerson(v string) string {
	switch {
	case strings.HasSuffix(v, "y") && !strings.ContainsAny(v[len(v)-2:len(v)-1], "aeiou"):
		return v[:len(v)-1] + "ies"
	case strings.HasSuffix(v, "s") || strings.HasSuffix(v, "sh") || strings.HasSuffix(v, "ch") || strings.HasSuffix(v, "x") || strings.HasSuffix(v, "o"):
		return v + "es"
	}
	return v + "s"
}

// trimTime drops a trailing "last month", "in the spring", "a few months ago".
func (lx *lexicon) trimTime(ws []string) []string {
	for i, w := range ws {
		if matchAt(ws, i, lx.TimeWords) != "" || w == "in" && i > 0 && !strings.HasPrefix(ws[i-1], "«") {
			return ws[:i]
		}
	}
	return ws
}

// third words a clause's words in the third person: the first verb takes
// its third-person form and my, me, our become their, them.
func (lx *lexicon) third(ws []string) string {
	out := make([]string, 0, len(ws))
	verbDone, second := false, false // second: a verb after "and" takes the third person too ("… and never eats honey")
	infinitive := false              // the first verb is followed by "to": what follows "and" is a second infinitive
	for i, w := range ws {
		if second && !strings.Contains(lx.Cues[w], " ") && lx.Cues[w] != "" {
			w, second = lx.Cues[w], false
		} else if second && slices.Contains(lx.SharedVerbs, w) { // "… and carry an inhaler"
			w, second = cmp.Or(lx.Verbs[w], thirdPerson(w)), false
		} else {
			second = w == "and" && slices.ContainsFunc(out, func(o string) bool { return lx.base[o] != "" || lx.Verbs[o] != "" }) && !infinitive || // not "likes to lean on the wall and sleep"
				second && (slices.Contains(lx.Adverbs, w) || slices.Contains(lx.Negators, w))
		}
		afterThey := i > 0 && lx.Pronouns[ws[i-1]] == "they" // "or i do not sleep": "or they do not sleep", not "they does"
		if v, ok := lx.TheyVerbs[w]; ok && afterThey {
			w = v
		} else if v, ok := lx.Verbs[w]; ok && !verbDone && !afterThey {
			w, verbDone = v, true
			if w == "does" && (i+1 >= len(ws) || ws[i+1] != "not") {
				w = "do"
			}
		} else if p, ok := lx.Pronouns[w]; ok {
			w = p
		}
		if lx.Cues[w] != "" || slices.Contains(lx.Adverbs, w) {
			verbDone = verbDone || lx.Cues[w] != ""
		}
		infinitive = infinitive || w == "to" && len(out) > 0 && (lx.base[out[len(out)-1]] != "" || lx.Cues[out[len(out)-1]] != "")
		out = append(out, w)
	}
	return strings.NewReplacer("«", "", "»", "").Replace(strings.Join(out, " "))
}

// finish makes the note: a capitalised sentence of at most 180 characters
// with one to three keywords from its object.
func (lx *lexicon) finish(r reading, text string, obj []string) (reading, bool) {
	// "in «August» ," read back: "in August,"; "with their dog 🐶 pet
	// friendly places" without the picture
	text = strings.Join(strings.Fields(strings.Map(noEmoji, text)), " ")
	text = reAside.ReplaceAllString(text, "")
	text = strings.TrimRight(strings.TrimSpace(reSpacedPunct.ReplaceAllString(rePlease.ReplaceAllString(text, "$1"), "$1")), " ,.;:")
	text = reDegrees.ReplaceAllStringFunc(text, strings.ToUpper) // "25°c": read in lower case, written as a temperature
	text = lx.capitals(text)
	for _, and := range []string{" and", " but", " or", " so"} { // "i'm a light sleeper and that's true…" cut at the clause
		text = strings.TrimRight(strings.TrimSuffix(text, and), " ,")
	}
	if words := strings.Fields(text); len(words) > 24 {
		text = strings.Join(words[:24], " ")
	}
	r.note.Text = capitalise(text) + "."
	for i, w := range obj {
		if i > 0 && (w == "wherever" || w == "whenever" || w == "no" && i+1 < len(obj) && obj[i+1] == "matter") {
			obj = obj[:i] // "a bathtub wherever i stay", "… no matter what": the thing, not when
			break
		}
	}
	for i := len(obj) - 1; i >= 0 && len(r.note.Keywords) < 2; i-- {
		if k := keyword(obj[i]); (len(k) > 2 || slices.Contains(lx.Acronyms, k)) && !lx.stop[k] && !slices.Contains(lx.NotThings, k) && !slices.Contains(r.note.Keywords, k) && !strings.ContainsAny(obj[i], "0123456789") {
			r.note.Keywords = append(r.note.Keywords, k)
		}
	}
	for i := 1; i < len(obj) && len(r.note.Keywords) == 0; i++ { // "2 rooms": a counted travel thing, generic as it is, says something
		if k := keyword(obj[i]); len(k) > 2 && k == obj[i] && (reNumber.MatchString(obj[i-1]) || slices.Contains(lx.Counts, obj[i-1])) && lx.travelThing(obj[i:i+1]) {
			r.note.Keywords = append(r.note.Keywords, k)
		}
	}
	return r, len(r.note.Keywords) > 0 // an object of only "the cheaper one" or "either" says nothing
}

// capitals writes the acronyms a note was read with in lower case in
// capitals and units in their own way: "needs ac" → "needs AC", "under 5k
// usd" → "under 5k USD", "50 mbps" → "50 Mbps".
func (lx *lexicon) capitals(text string) string {
	words := strings.Fields(text)
	for i, w := range words {
		if a := strings.TrimRight(w, ",.;:!?"); slices.Contains(lx.Acronyms, a) {
			words[i] = strings.ToUpper(a) + w[len(a):]
		} else if u := lx.Units[a]; u != "" {
			words[i] = u + w[len(a):]
		}
	}
	return strings.Join(words, " ")
}

// noEmoji drops a picture (a symbol from the dingbats up, and the joiner
// and variation selector that build one); a degree sign or a currency stays.
func noEmoji(r rune) rune {
	if r == '\u200d' || r == '\ufe0f' || r >= 0x2600 && unicode.Is(unicode.So, r) {
		return -1
	}
	return r
}

// reDegrees is a temperature's unit.
var reDegrees = regexp.MustCompile(`°[cf]\b`)

// reAside is a word of chat the note does not need ("actually likes long
// layovers", "not a big museum person tbh").
var reAside = regexp.MustCompile(`(?i)\s*\b(?:actually|honestly|basically|genuinely|tbh|imo|imho|lol|haha|lmao)\b`)

// rePlease is a "please" that ends a clause ("keep it cheap pls, max 80 a
// night"): the request's manners, not the note's words.
var rePlease = regexp.MustCompile(`\s+(?:please|pls|plz)\b([,.;]|$)`)

// reSpacedPunct is a space before a comma or a full stop.
var reSpacedPunct = regexp.MustCompile(` +([,.;:])`)

// lastingNeed reports whether a want's sentence tells why it lasts: a
// body or health need of the traveler's ("… for my insulin", "bad hip") or a lasting
// reason beside it ("…, can't sleep in the heat").
func (lx *lexicon) lastingNeed(norm string) bool {
	return slices.ContainsFunc(lx.Needs, func(w string) bool { return strings.Contains(norm, "my "+w) || strings.Contains(norm, "bad "+w) }) || // "need ground floor, bad hip"
		lx.has(norm, lx.Reasons, nil) && !lx.has(norm, lx.NotReasons, nil)
}

// standsAlone reports whether a note's keyword makes it a fact of its own,
// never the reason for the note before it ("…, I'm vegetarian").
func (lx *lexicon) standsAlone(keyword string) bool { return slices.Contains(lx.OwnFacts, keyword) }

// peopleOnly reports whether a clause names nothing but people of the
// traveler's, with their number ("our two boys", "me, my wife and the
// kids").
func (lx *lexicon) peopleOnly(ws []string) bool {
	named := false
	for _, w := range ws {
		w = strings.Trim(w, ".,!:;")
		switch _, err := strconv.Atoi(w); {
		case slices.Contains(lx.People, w) || slices.Contains(partyYoung, w):
			named = true
		case err == nil || w == "" || slices.Contains(lx.Possessive, w) || slices.Contains(lx.First, w) || slices.Contains(partyGlue, w):
		default:
			return false
		}
	}
	return named
}

// danglers are the words an object cut at a stop must not end on.
var danglers = []string{"if", "when", "unless", "and", "or", "but", "as", "because"}

// partyYoung are the children a party names ("our 3 girls").
var partyYoung = []string{"boys", "girls", "sons", "daughters", "twins", "toddler", "toddlers", "baby", "kid", "teens", "teenagers", "grandkids"}

// partyGlue are the words between the people of a party ("me, my wife and
// our two boys").
var partyGlue = []string{"and", "&", "+", "the", "just", "plus", "two", "three", "four", "five", "six"}

// othersTaste reports whether a clause about someone else tells a taste,
// a habit or a state, as the traveler's would ("Sarah doesn't eat pork"):
// the reply says it is not the traveler's note.
func (lx *lexicon) othersTaste(cl string) bool {
	return slices.ContainsFunc(strings.Fields(cl), func(w string) bool {
		return lx.Cues[w] != "" || lx.base[w] != "" && lx.Second[w] == "" || slices.Contains(lx.States, w) || slices.Contains(lx.Aversions, w)
	})
}

// wantMarked reports whether a clause names what makes a want lasting or
// this trip's ("for this trip I want…", "these days I'd rather…").
func (lx *lexicon) wantMarked(cl string) bool { return lx.has(cl, lx.WantMarkers, nil) }

// mainAfter reports whether a clause that opens on a condition goes on to
// its main clause ("when a flight is longer than 8 hours i need the
// aisle"): a first-person subject after the condition's own, with a verb of
// taste or habit. Such a clause is whole; the clause after it is not its
// main clause.
func (lx *lexicon) mainAfter(ws []string) bool {
	for j := 2; j+1 < len(ws); j++ {
		if slices.Contains(lx.First, ws[j]) && (lx.Cues[ws[j+1]] != "" || slices.Contains(lx.HabitAdverbs, ws[j+1])) {
			return true
		}
	}
	return false
}

// factBefore reports whether a want follows, in its clause, a fact of the
// traveler's that it goes with ("i am learning japanese and would love any
// chance to practise it", "on long flights i wear compression socks and
// need to get up"): the fact makes the want lasting.
func (lx *lexicon) factBefore(ws []string) bool {
	k := slices.IndexFunc(ws, func(w string) bool { return slices.Contains(lx.FeelingVerbs, w) || w == "would" })
	if k < 3 || !slices.ContainsFunc(ws[:k], func(w string) bool { return w == "and" || w == "so" }) {
		return false
	}
	i := slices.IndexFunc(ws[:k], func(w string) bool { return slices.Contains(lx.First, w) })
	if i < 0 || i+2 >= k || slices.Contains(lx.FeelingVerbs, ws[i+1]) || ws[i+1] == "would" || ws[i+1] == "will" {
		return false
	}
	// "i am in paris and i need a taxi", "we are flying to rome and need …": where they are, what they do now
	return !(slices.Contains(lx.Copulas, ws[i+1]) && (slices.Contains(lx.AfterVerbs, ws[i+2]) || strings.HasSuffix(ws[i+2], "ing")))
}

// has reports whether a clause holds one of the phrases, not counting those
// of except.
func (lx *lexicon) has(cl string, phrases, except []string) bool {
	cl = " " + strings.Join(strings.FieldsFunc(cl, func(r rune) bool { return unicode.IsSpace(r) || strings.ContainsRune(",.;:!?", r) }), " ") + " "
	return slices.ContainsFunc(phrases, func(m string) bool { return !slices.Contains(except, m) && strings.Contains(cl, " "+m+" ") })
}

// pluralIdentity reports whether a short predicate names what the
// travelers are, in the plural ("big foodies", "early risers").
func (lx *lexicon) pluralIdentity(ws []string) bool {
	n := len(ws)
	return n > 0 && n < 4 && strings.HasSuffix(ws[n-1], "s") && slices.Contains(lx.Identities, strings.TrimSuffix(ws[n-1], "s"))
}

// second words a stored note for the traveler: "Always flies economy." →
// "you always fly economy", "Budget for hotels is …" → "your budget for
// hotels is …", "Travels with a dog, needs …" → "you travel with a dog and
// need …", "Cannot drive." → "you cannot drive".
func (lx *lexicon) second(text string) string {
	ws := strings.Fields(strings.TrimSuffix(strings.TrimSpace(text), "."))
	if len(ws) == 0 {
		return ""
	}
	if rest := ws[0][1:]; strings.ToLower(rest) == rest {
		ws[0] = strings.ToLower(ws[0])
	}
	if at := slices.IndexFunc(ws, func(w string) bool { return strings.HasSuffix(w, ",") }); at > 0 && at+1 < len(ws) && matchAt(ws, 0, lx.Conditions) != "" {
		cond := slices.Clone(ws[:at+1]) // "If it is over 6 hours, wants premium economy": the condition as said, then "you want …"
		for i, w := range cond {
			if bare := strings.TrimRight(w, ","); lx.Yours[bare] != "" {
				cond[i] = lx.Yours[bare] + w[len(bare):]
			}
		}
		return strings.Join(cond, " ") + " " + lx.second(strings.Join(ws[at+1:], " "))
	}
	first := slices.IndexFunc(ws, func(w string) bool { // the word after any adverb: a verb when the note says what the traveler does
		return !slices.Contains(lx.Adverbs, w) && !slices.Contains(lx.HabitAdverbs, w) && !slices.Contains(lx.Negators, w)
	})
	lead := "you"
	switch {
	case matchAt(ws, 0, lx.Attributes) != "":
		lead = "your"
	case matchAt(ws, 0, lx.States) != "":
		lead = "you are"
	case slices.Contains(lx.Modals, ws[0]):
	case ws[0] == "are": // "Are big foodies.": "you're big foodies"
	case first < 0 || lx.base[ws[first]] == "" && !lx.afterHabit(ws, first): // "Kids are 4 and 7, …", "Their back cannot take …": said as they are, in the second person
		lead = ""
	}
	out, verbNext := []string{lead}, lead == "you"
	for i, w := range ws {
		if bare := strings.TrimRight(w, ",;"); lx.Yours[bare] != "" {
			w = lx.Yours[bare] + w[len(bare):]
		}
		if verbNext {
			if b := lx.baseOf(ws, i); b != "" || lx.afterHabit(ws, i) {
				w, verbNext = cmp.Or(b, unthird(w)), false
			} else {
				verbNext = slices.Contains(lx.Adverbs, w) || slices.Contains(lx.HabitAdverbs, w) || slices.Contains(lx.Negators, w)
			}
		}
		if next := i + 1; next < len(ws) {
			switch {
			case strings.HasSuffix(w, ",") && lx.baseOf(ws, next) != "":
				w, verbNext = strings.TrimSuffix(w, ",")+" and", true
			case w == "and" || w == "or" || w == "but": // "gets seasick and rarely flies": "you get seasick and rarely fly"
				verbNext = lx.base[ws[next]] != "" || slices.Contains(lx.HabitAdverbs, ws[next]) || slices.Contains(lx.Negators, ws[next])
			}
		}
		out = append(out, w)
	}
	s := strings.TrimSpace(strings.Join(out, " "))
	return strings.NewReplacer("you are ", "you're ", "you do not ", "you don't ").Replace(s) // not at the end: "wherever you are"
}

// baseOf is the base form of ws[i] when it is a verb in the third person:
// one the cues give, or a word in -s before what follows a verb ("…, wakes
// at every passing bus": "wake"); "" otherwise.
func (lx *lexicon) baseOf(ws []string, i int) string {
	w := ws[i]
	if b := lx.base[w]; b != "" || i+1 >= len(ws) || !slices.Contains(lx.AfterVerbs, ws[i+1]) || len(w) < 4 || lx.stop[w] {
		return b
	}
	return unthird(w)
}

// afterHabit reports whether ws[i] is a verb in -s after the habit words
// that open a note ("Never buys travel insurance", "Usually rents a
// car"): nothing else follows them there.
func (lx *lexicon) afterHabit(ws []string, i int) bool {
	return i > 0 && strings.HasSuffix(ws[i], "s") && !slices.ContainsFunc(ws[:i], func(w string) bool {
		return !slices.Contains(lx.HabitAdverbs, strings.ToLower(w)) // not "No flights …"
	}) && unthird(ws[i]) != ""
}

// unthird is the base form of a verb in the third person ("flies" → "fly",
// "watches" → "watch", "books" → "book"); "" for a word that is none.
func unthird(w string) string {
	switch {
	case strings.HasSuffix(w, "ies"):
		return w[:len(w)-3] + "y"
	case strings.HasSuffix(w, "shes") || strings.HasSuffix(w, "ches") || strings.HasSuffix(w, "xes") || strings.HasSuffix(w, "sses") || strings.HasSuffix(w, "oes"):
		return w[:len(w)-2]
	case strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss"):
		return w[:len(w)-1]
	}
	return ""
}

// wordsLost reports whether none of a rule's notes keeps the reader's
// keywords: "no high floors" read as "Avoids high floors" keeps what a rule
// worded otherwise.
func wordsLost(g memory.SaveNoteArgs, ruled []memory.SaveNoteArgs) bool {
	return !slices.ContainsFunc(ruled, func(n memory.SaveNoteArgs) bool {
		return slices.ContainsFunc(g.Keywords, func(k string) bool { return strings.Contains(strings.ToLower(n.Text), k) })
	})
}

// saysAll reports whether the reader's one note says what several rule
// notes on one topic split ("Prefers apartments with a kitchen." for
// "Likes staying in apartments." and "Likes having a kitchen."): the rule
// notes share their first keyword, the topic, and each has another in the
// reader's words. Notes on two topics (a diet and an allergy) stay two.
func saysAll(g memory.SaveNoteArgs, ruled []memory.SaveNoteArgs) bool {
	return len(ruled) > 1 && !slices.ContainsFunc(ruled, func(n memory.SaveNoteArgs) bool {
		return len(n.Keywords) < 2 || n.Keywords[0] != ruled[0].Keywords[0] || !holds(g, n)
	})
}

// frontedIn reports whether a clause with no subject judges a thing ("a
// bathtub is a must"), wants one a marker opens ("this time, a sauna") or
// opens with a state ("not a fan of hostels"): the
// traveler is its subject. mine says the sentence speaks in the first
// person elsewhere ("motorbike taxis are out, I'm not getting on one").
func (lx *lexicon) frontedIn(cl string, mine bool) bool {
	_, ok := lx.read(cl, mine, false)
	return ok || strings.Contains(matchAt(strings.Fields(cl), 0, lx.States), " ")
}
