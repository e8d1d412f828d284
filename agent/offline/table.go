package offline

import (
	_ "embed"
	"fmt"
	"regexp"
	"strings"

	"go.yaml.in/yaml/v3"

	"concierge/memory"
)

//go:embed rules.yaml
var rulesYAML []byte

// tableFile is rules.yaml as written.
type tableFile struct {
	Macros         map[string]string `yaml:"macros"`
	Rules          []ruleFile        `yaml:"rules"`
	TripMarkers    string            `yaml:"trip_markers"`
	DurableMarkers string            `yaml:"durable_markers"`
	Past           string            `yaml:"past"`
	PastUnless     string            `yaml:"past_unless"`
	Hypothetical   string            `yaml:"hypothetical"`
	Questions      string            `yaml:"questions"`
	Requests       []string          `yaml:"requests"`
	WantForms      string            `yaml:"want_forms"`
	Fillers        string            `yaml:"fillers"`
	Remember       string            `yaml:"remember"`
	Intensifiers   []string          `yaml:"intensifiers"`
	FirstPerson    []string          `yaml:"first_person"`
	SelfNouns      []string          `yaml:"self_nouns"`
	ThirdPerson    []string          `yaml:"third_person"`
	Idioms         string            `yaml:"first_person_idioms"`
	Negators       []string          `yaml:"negators"`
	ListStop       string            `yaml:"list_stop"`
	ListFillers    []string          `yaml:"list_fillers"`
	Plurals        map[string]string `yaml:"plurals"`
	ClauseBreaks   string            `yaml:"clause_breaks"`
	Intents        map[string]string `yaml:"intents"`
	Stopwords      []string          `yaml:"stopwords"`
	SearchTool     string            `yaml:"search_tool"`
	SafetyNotes    string            `yaml:"safety_notes"`
	Food           string            `yaml:"food"`
	Trip           struct {
		Destination string   `yaml:"destination"`
		Origin      string   `yaml:"origin"`
		Dates       string   `yaml:"dates"`
		Party       string   `yaml:"party"`
		Budget      string   `yaml:"budget"`
		BudgetWords string   `yaml:"budget_words"`
		NotPlaces   []string `yaml:"not_places"`
	} `yaml:"trip"`
	Replies replies `yaml:"replies"`
}

// replies are the reply variants of rules.yaml, by purpose.
type replies struct {
	Greeting       []string            `yaml:"greeting"`
	Thanks         []string            `yaml:"thanks"`
	Fallback       []string            `yaml:"fallback"`
	Instruction    []string            `yaml:"instruction"`
	Sensitive      []string            `yaml:"sensitive"`
	OtherPerson    []string            `yaml:"other_person"`
	Acknowledge    []string            `yaml:"acknowledge"`
	AlreadyKnown   []string            `yaml:"already_known"`
	Saved          []string            `yaml:"saved"`
	SavedTrip      []string            `yaml:"saved_trip"`
	Refused        []string            `yaml:"refused"`
	Safety         []string            `yaml:"safety"`
	TripReady      []string            `yaml:"trip_ready"`
	TripNext       []string            `yaml:"trip_next"`
	TripAck        []string            `yaml:"trip_ack"`
	RecallEmpty    []string            `yaml:"recall_empty"`
	RecallLead     []string            `yaml:"recall_lead"`
	RecallNameOnly []string            `yaml:"recall_name_only"`
	RecallClose    []string            `yaml:"recall_close"`
	EarlierFound   []string            `yaml:"earlier_found"`
	EarlierMissing []string            `yaml:"earlier_missing"`
	Prefs          []string            `yaml:"prefs"`
	Ask            map[string][]string `yaml:"ask"`
	Illustrative   []string            `yaml:"illustrative"`
	Topics         []topicFile         `yaml:"topics"`
}

type ruleFile struct {
	Pattern, Note, Trip, Group, List, Context, Unless string
	Keywords                                          []string
	Scope                                             memory.Scope
	Constraint                                        bool
	Negatable                                         *bool
}

type topicFile struct {
	Name, Match, Uses    string
	Lead, Options, Close []string
}

// rule is one compiled capture rule.
type rule struct {
	ruleFile
	re, context, unless *regexp.Regexp
	negatable           bool
}

// topic is one compiled reply topic.
type topic struct {
	topicFile
	re, uses *regexp.Regexp
}

// table is rules.yaml compiled: the whole of what the engine knows.
type table struct {
	file                                        tableFile
	rules                                       []rule
	tripMarker, durableMarker, past, pastUnless *regexp.Regexp
	hypothetical, question, wantForm, fillers   *regexp.Regexp
	remember, idioms, safety, food              *regexp.Regexp
	requests                                    []*regexp.Regexp
	intensifier, firstPerson, selfNoun, third   map[string]bool
	dest, origin, dates, party, budget, budgetW *regexp.Regexp
	notPlace, negator, listFiller, stopword     map[string]bool
	listStop, clauseBreak                       *regexp.Regexp
	intent                                      map[string]*regexp.Regexp
	topics                                      []topic
}

// loadTable parses and compiles the embedded table.
func loadTable(raw []byte) (*table, error) {
	var f tableFile
	if err := yaml.Unmarshal(raw, &f); err != nil {
		return nil, fmt.Errorf("offline rules: %w", err)
	}
	t := &table{file: f}
	var err error
	compile := func(expr string) *regexp.Regexp {
		for name, body := range f.Macros {
			expr = strings.ReplaceAll(expr, "{"+name+"}", body)
		}
		if expr == "" || err != nil {
			return nil
		}
		re, e := regexp.Compile(expr)
		if e != nil {
			err = fmt.Errorf("offline rules: %q: %w", expr, e)
		}
		return re
	}
	for _, rf := range f.Rules {
		r := rule{ruleFile: rf, re: compile(rf.Pattern), context: compile(rf.Context), unless: compile(rf.Unless), negatable: rf.Negatable == nil || *rf.Negatable}
		if r.Scope == "" {
			r.Scope = memory.ScopeDurable
		}
		if rf.Note == "" || len(rf.Keywords) == 0 {
			return nil, fmt.Errorf("offline rules: rule %q needs a note and keywords", rf.Pattern)
		}
		t.rules = append(t.rules, r)
	}
	t.tripMarker, t.durableMarker = compile(f.TripMarkers), compile(f.DurableMarkers)
	t.past, t.pastUnless, t.hypothetical = compile(f.Past), compile(f.PastUnless), compile(f.Hypothetical)
	t.question, t.wantForm, t.fillers = compile(f.Questions), compile(f.WantForms), compile(f.Fillers)
	t.remember, t.idioms, t.safety, t.food = compile(f.Remember), compile(f.Idioms), compile(f.SafetyNotes), compile(f.Food)
	for _, r := range f.Requests {
		t.requests = append(t.requests, compile(r))
	}
	t.dest, t.origin, t.dates = compile(f.Trip.Destination), compile(f.Trip.Origin), compile(f.Trip.Dates)
	t.party, t.budget, t.budgetW = compile(f.Trip.Party), compile(f.Trip.Budget), compile(f.Trip.BudgetWords)
	for _, tf := range f.Replies.Topics {
		t.topics = append(t.topics, topic{topicFile: tf, re: compile(tf.Match), uses: compile(tf.Uses)})
	}
	t.intent = map[string]*regexp.Regexp{}
	for name, expr := range f.Intents {
		t.intent[name] = compile(expr)
	}
	t.listStop, t.clauseBreak = compile(f.ListStop), compile(f.ClauseBreaks)
	t.negator, t.listFiller, t.stopword = set(f.Negators), set(f.ListFillers), set(f.Stopwords)
	t.intensifier, t.firstPerson = set(f.Intensifiers), set(f.FirstPerson)
	t.selfNoun, t.third, t.notPlace = set(f.SelfNouns), set(f.ThirdPerson), set(f.Trip.NotPlaces)
	if err != nil {
		return nil, err
	}
	return t, nil
}

func set(words []string) map[string]bool {
	m := make(map[string]bool, len(words))
	for _, w := range words {
		m[w] = true
	}
	return m
}
