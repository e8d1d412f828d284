package offline

import (
	_ "embed"
	"fmt"
	"hash/maphash"
	"strings"

	"go.yaml.in/yaml/v3"

	"concierge/memory"
)

//go:embed rules.yaml
var rulesYAML []byte

//go:embed gazetteer.yaml
var gazetteerYAML []byte

// voiceYAML are the reply files, by language (lang.go's codes).
var voiceYAML = map[string][]byte{langEN: repliesEN, langES: repliesES, langRU: repliesRU}

var (
	//go:embed replies_en.yaml
	repliesEN []byte
	//go:embed replies_es.yaml
	repliesES []byte
	//go:embed replies_ru.yaml
	repliesRU []byte
)

// tableFile is the typed part of rules.yaml; every other top-level string
// is a pattern and every other list a word set.
type tableFile struct {
	Macros      map[string]string `yaml:"macros"`
	Rules       []ruleFile        `yaml:"rules"`
	PartySay    map[string]string `yaml:"party_say"`
	PartyPerson map[string]string `yaml:"party_person"`
	Plurals     map[string]string `yaml:"plurals"`
	Requests    []string          `yaml:"requests"`
	Order       []string          `yaml:"order"`
}

// voiceFile is one language's replies_*.yaml: what the model says and the
// questions it recognises in that language.
type voiceFile struct {
	Intents    map[string]string   `yaml:"intents"`
	Stopwords  []string            `yaml:"stopwords"`
	Synonyms   map[string][]string `yaml:"search_synonyms"`
	Date       string              `yaml:"date"`
	MonthYear  string              `yaml:"month_year"` // a whole month ("March 2027")
	And        string              `yaml:"and"`
	Months     []string            `yaml:"months"`
	MonthNames []string            `yaml:"month_names"` // a month alone, when months are declined for dates
	Replies    map[string][]string `yaml:"replies"`
	Labels     map[string]string   `yaml:"trip_labels"`
	Ask        map[string][]string `yaml:"ask"`
	Holes      map[string]string   `yaml:"placeholders"`
	Summary    map[string]string   `yaml:"summary"`
	ProfileSay map[string]string   `yaml:"profile_say"`
	Phrases    map[string]string   `yaml:"phrases"`
	Values     map[string]string   `yaml:"values"`
	Answers    []answerFile        `yaml:"answers"`
	Topics     []topicFile         `yaml:"topics"`
	Refusing   refusing            `yaml:"refusing"`
	Counts     map[string]int      `yaml:"counts"` // the number words of the "count" intent
}

// refusing is how a voice hears that the traveler rules something out ("I
// don't drive", "no beaches"): a clause with one of Words, and none of
// Except, rules out the options that name what its words point to, and
// puts first those that say what they favour ("hate layovers": direct).
type refusing struct {
	Words   []string            `yaml:"words"`
	Except  []string            `yaml:"except"`
	Points  map[string][]string `yaml:"points"`
	Favours map[string][]string `yaml:"favours"`
	// RulesOut are words of the trip's party, a note or the message and the
	// options each rules out ("kids": the business hotel; "wheelchair": the
	// heritage homestay).
	RulesOut map[string][]string `yaml:"rules_out"`
}

// voice is one compiled voiceFile.
type voice struct {
	voiceFile
	lang    string
	is      map[string]*pattern // the intents
	stop    map[string]bool
	answers []answer
	topics  []topic

	refuse, notRefuse map[string]bool // Refusing's Words and Except
	// refused is what a note refuses and favours, by the hash of its text
	// (the text itself is not kept).
	refused *memory.Memo[uint64, [2][]string]
	seed    maphash.Seed
}

// place is one gazetteer entry: its names and what it has.
type place struct {
	Names   []string          `yaml:"names"`
	Has     []string          `yaml:"has"`
	Country map[string]string `yaml:"country"` // by language
	Regions []string          `yaml:"regions"` // areas one visa covers ("Schengen")
}

type ruleFile struct {
	Pattern, Note, Trip, Group, List, Context, Unless string
	Keywords                                          []string
	Scope                                             memory.Scope
	Constraint                                        bool
	Standing                                          bool // holds when asked for too: "show prices in AUD please" is how they always want them
	Fallback                                          bool // counts only when no rule before it read the clause
	Negatable                                         *bool
}

type topicFile struct {
	Name, Match, Uses    string
	Lead, Options, Close []string
	Aside                []string            `yaml:"aside"` // the line after the list, when the voice's illustrative one does not fit ("not a forecast")
	ByPlace              map[string][]string `yaml:"by_place"`
}

// rule is one compiled capture rule.
type rule struct {
	ruleFile
	re, context, unless *pattern
	negatable           bool
}

// topic is one compiled reply topic.
type topic struct {
	topicFile
	re, uses *pattern
}

// table is rules.yaml compiled: the whole of what the engine knows.
type table struct {
	file         tableFile
	rules        []rule
	plans        []*pattern      // the rules that swap or reshape the trip's plan (swaps)
	kinds        map[string]bool // the rules' first keywords, each naming a kind of note ("diet", "seat")
	requests     []*pattern
	re           map[string]*pattern        // by key; nested keys as "trip.dates"
	words        map[string]map[string]bool // by key
	lex          *lexicon                   // the clause reader's words
	voices       map[string]*voice          // by language
	places       []place
	placeIndex   map[string]*place            // by lower-cased name
	countryIndex map[string]bool              // the places' countries in English, lower-cased, without "the"
	nameStarts   map[string]bool              // the first words of the names of more than one word ("new", "saint")
	said         *memory.Memo[string, string] // sayNote's English wordings, by the note's text
	heard        *memory.Memo[string, heard]  // what each message says of a trip (heardIn)
	named        *memory.Memo[string, string] // each sentence with the words that name its trip read as "for this trip" (namingTrip)
	gate         *gate                        // the learned reader's classifiers (learned.go)
}

// patterns lists every pattern the engine reads, so a table missing one
// fails to load instead of failing mid-conversation.
var patterns = []string{"trip_markers", "durable_markers", "past", "past_unless", "indifferent", "hypothetical", "contingency", "pointing", "picks", "book_object", "vague_object", "at_hand", "budget_trait", "near", "questions", "want_forms", "trip_wants", "trip_named", "trip_named_acts", "list_head",
	"fillers", "choosing", "remember", "list_stop", "clause_breaks", "first_subject", "other_subject", "safety_notes", "private", "trip.destination", "trip.destination_lower",
	"trip.origin", "trip.home", "trip.planning", "trip_dated_week", "trip_other", "trip_ask", "trip.dates", "trip.stay_before", "trip.month_after", "trip.party", "trip.budget", "trip.budget_habit", "trip.budget_words", "along", "intents.change", "intents.new_destination"}

// intents, replies and placeholders every voice has, so a reply file
// missing one fails to load.
var (
	voiceIntents = []string{"recall", "greeting", "thanks", "table", "food", "earlier", "question", "own", "start", "count"}
	voiceReplies = []string{"hello", "greeting", "thanks", "fallback", "remark", "instruction", "sensitive", "private", "other_person", "acknowledge", "already_known", "saved", "saved_as", "saved_as_also", "saved_trip",
		"refused", "safety", "trip_ready", "trip_next", "trip_ack", "prefs", "illustrative", "recall_empty", "recall_name_only", "recall_lead", "recall_trip",
		"recall_close", "override", "earlier_found", "earlier_missing", "who_traveler", "who_assistant", "forgot", "forget_confirm", "forget_missing", "unsupported", "trip_line", "table_head"}
)

var typed = map[string]bool{"macros": true, "rules": true, "party_say": true, "party_person": true, "plurals": true, "requests": true, "order": true}

// loadTable parses and compiles a table.
func loadTable(raw []byte) (*table, error) {
	t := &table{re: map[string]*pattern{}, words: map[string]map[string]bool{}, said: memory.NewMemo[string, string](4096), heard: memory.NewMemo[string, heard](1024), named: memory.NewMemo[string, string](1024)}
	var err error
	if t.lex, err = loadLexicon(lexiconEN); err != nil {
		return nil, err
	}
	var rest map[string]any
	if err := yaml.Unmarshal(raw, &t.file); err != nil {
		return nil, fmt.Errorf("offline rules: %w", err)
	}
	if err := yaml.Unmarshal(raw, &rest); err != nil {
		return nil, fmt.Errorf("offline rules: %w", err)
	}
	compile := func(expr string) *pattern {
		for name, body := range t.file.Macros {
			expr = strings.ReplaceAll(expr, "{"+name+"}", body)
		}
		if expr == "" || err != nil {
			return nil
		}
		re, e := compilePattern(expr)
		if e != nil {
			err = fmt.Errorf("offline rules: %q: %w", expr, e)
		}
		return re
	}
	var walk func(prefix string, m map[string]any)
	walk = func(prefix string, m map[string]any) {
		for k, v := range m {
			switch x := v.(type) {
			case string:
				t.re[prefix+k] = compile(x)
			case []any:
				t.words[prefix+k] = map[string]bool{}
				for _, w := range x {
					t.words[prefix+k][fmt.Sprint(w)] = true
				}
			case map[string]any:
				walk(prefix+k+".", x)
			}
		}
	}
	for k := range typed {
		delete(rest, k)
	}
	walk("", rest)
	t.kinds = map[string]bool{}
	for _, rf := range t.file.Rules {
		r := rule{ruleFile: rf, re: compile(rf.Pattern), context: compile(rf.Context), unless: compile(rf.Unless), negatable: rf.Negatable == nil || *rf.Negatable}
		if r.Scope == "" {
			r.Scope = memory.ScopeDurable
		}
		if rf.Note == "" || len(rf.Keywords) == 0 {
			return nil, fmt.Errorf("offline rules: rule %q needs a note and keywords", rf.Pattern)
		}
		t.rules = append(t.rules, r)
		if r.Group == "swap" || r.Group == "reshape" {
			t.plans = append(t.plans, r.re)
		}
		if k := rf.Keywords[0]; !strings.Contains(k, "{") {
			t.kinds[k] = true
		}
	}
	if e := yaml.Unmarshal(gazetteerYAML, &t.places); e != nil {
		return nil, fmt.Errorf("offline gazetteer: %w", e)
	}
	t.placeIndex, t.countryIndex = map[string]*place{}, map[string]bool{}
	for i, p := range t.places {
		for j, n := range p.Names {
			p.Names[j] = strings.ToLower(n) // matched against a lower-cased destination
			t.placeIndex[p.Names[j]] = &t.places[i]
		}
		t.countryIndex[strings.ToLower(strings.TrimPrefix(p.Country[langEN], "the "))] = true
	}
	t.nameStarts = map[string]bool{}
	for name := range t.placeIndex {
		if first, _, more := strings.Cut(name, " "); more {
			t.nameStarts[first] = true
		}
	}
	for name := range t.countryIndex {
		if first, _, more := strings.Cut(name, " "); more {
			t.nameStarts[first] = true
		}
	}
	t.voices = map[string]*voice{}
	for lang, raw := range voiceYAML {
		vc := &voice{lang: lang, is: map[string]*pattern{}, refused: memory.NewMemo[uint64, [2][]string](4096), seed: maphash.MakeSeed()}
		if e := yaml.Unmarshal(raw, &vc.voiceFile); e != nil {
			return nil, fmt.Errorf("offline replies %s: %w", lang, e)
		}
		for _, k := range voiceIntents {
			if vc.is[k] = compile(vc.Intents[k]); vc.is[k] == nil && err == nil {
				err = fmt.Errorf("offline replies %s: no intent %q", lang, k)
			}
		}
		for _, k := range voiceReplies {
			if len(vc.Replies[k]) == 0 && err == nil {
				err = fmt.Errorf("offline replies %s: no reply %q", lang, k)
			}
		}
		if len(vc.Months) != 12 && err == nil {
			err = fmt.Errorf("offline replies %s: want 12 months", lang)
		}
		vc.stop, vc.refuse, vc.notRefuse = set(vc.Stopwords), set(vc.Refusing.Words), set(vc.Refusing.Except)
		for _, tf := range vc.Topics {
			vc.topics = append(vc.topics, topic{topicFile: tf, re: compile(tf.Match), uses: compile(tf.Uses)})
		}
		for _, af := range vc.Answers {
			vc.answers = append(vc.answers, answer{answerFile: af, re: compile(af.Match), notes: compile(af.Notes)})
		}
		t.voices[lang] = vc
	}
	for _, r := range t.file.Requests {
		t.requests = append(t.requests, compile(r))
	}
	for _, k := range patterns {
		if t.re[k] == nil && err == nil {
			err = fmt.Errorf("offline rules: no pattern %q", k)
		}
	}
	if err != nil {
		return nil, err
	}
	inputs, err := trainingInputs(raw)
	if err != nil {
		return nil, err
	}
	if g, ok := storedGate(inputs); ok {
		t.gate = g
		return t, nil
	}
	sets, err := loadLabelled()
	if err != nil {
		return nil, err
	}
	t.gate = t.train(sets...)
	return t, nil
}

// set is a word list as a set.
func set(words []string) map[string]bool {
	m := make(map[string]bool, len(words))
	for _, w := range words {
		m[w] = true
	}
	return m
}
