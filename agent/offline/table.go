package offline

import (
	_ "embed"
	"fmt"
	"strings"

	"go.yaml.in/yaml/v3"

	"concierge/memory"
)

//go:embed rules.yaml
var rulesYAML []byte

// tableFile is the typed part of rules.yaml; every other top-level string
// is a pattern and every other list a word set.
type tableFile struct {
	Macros     map[string]string   `yaml:"macros"`
	Rules      []ruleFile          `yaml:"rules"`
	Topics     []topicFile         `yaml:"topics"`
	Replies    map[string][]string `yaml:"replies"`
	Ask        map[string][]string `yaml:"ask"`
	Holes      map[string]string   `yaml:"placeholders"`
	Summary    map[string]string   `yaml:"summary"`
	Plurals    map[string]string   `yaml:"plurals"`
	Requests   []string            `yaml:"requests"`
	SearchTool string              `yaml:"search_tool"`
	Synonyms   map[string][]string `yaml:"search_synonyms"`
	Answers    []answerFile        `yaml:"answers"`
	Phrases    map[string]string   `yaml:"phrases"`
	Gazetteer  map[string][]string `yaml:"gazetteer"`
	Order      []string            `yaml:"order"`
	Needs      map[string]string   `yaml:"needs"`
	ProfileSay map[string]string   `yaml:"profile_say"`
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
	file     tableFile
	rules    []rule
	topics   []topic
	requests []*pattern
	re       map[string]*pattern        // by key; nested keys as "trip.dates"
	words    map[string]map[string]bool // by key
	lex      *lexicon                   // the clause reader's words
	answers  []answer
	needs    map[string]*pattern // what an option needs of a place, by gazetteer feature
}

// patterns lists every pattern the engine reads, so a table missing one
// fails to load instead of failing mid-conversation.
var patterns = []string{"trip_markers", "durable_markers", "past", "past_unless", "hypothetical", "pointing", "book_object", "vague_object", "near", "questions", "want_forms",
	"fillers", "choosing", "remember", "list_stop", "clause_breaks", "first_subject", "other_subject", "safety_notes", "food", "trip.destination",
	"trip.origin", "trip.dates", "trip.party", "trip.budget", "trip.budget_words", "intents.recall", "intents.earlier", "intents.remind", "intents.own", "intents.start", "intents.table",
	"intents.greeting", "intents.thanks", "intents.change", "intents.new_destination"}

var typed = map[string]bool{"macros": true, "rules": true, "topics": true, "replies": true, "ask": true, "placeholders": true, "summary": true, "plurals": true, "requests": true, "search_tool": true, "search_synonyms": true, "answers": true, "phrases": true, "gazetteer": true, "needs": true, "order": true, "profile_say": true}

// loadTable parses and compiles a table.
func loadTable(raw []byte) (*table, error) {
	t := &table{re: map[string]*pattern{}, words: map[string]map[string]bool{}}
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
	for _, rf := range t.file.Rules {
		r := rule{ruleFile: rf, re: compile(rf.Pattern), context: compile(rf.Context), unless: compile(rf.Unless), negatable: rf.Negatable == nil || *rf.Negatable}
		if r.Scope == "" {
			r.Scope = memory.ScopeDurable
		}
		if rf.Note == "" || len(rf.Keywords) == 0 {
			return nil, fmt.Errorf("offline rules: rule %q needs a note and keywords", rf.Pattern)
		}
		t.rules = append(t.rules, r)
	}
	for _, tf := range t.file.Topics {
		t.topics = append(t.topics, topic{topicFile: tf, re: compile(tf.Match), uses: compile(tf.Uses)})
	}
	t.needs = map[string]*pattern{}
	for feature, expr := range t.file.Needs {
		t.needs[feature] = compile(expr)
	}
	for _, af := range t.file.Answers {
		t.answers = append(t.answers, answer{answerFile: af, re: compile(af.Match), notes: compile(af.Notes)})
	}
	for _, r := range t.file.Requests {
		t.requests = append(t.requests, compile(r))
	}
	for _, k := range patterns {
		if t.re[k] == nil && err == nil {
			err = fmt.Errorf("offline rules: no pattern %q", k)
		}
	}
	return t, err
}
