// Package eval runs scripted synthetic travelers through the real agent —
// turns, tool calls, guardrails, session close and consolidation, each on a
// throwaway database — and scores the memory pipeline: what was distilled,
// what was blocked, what long-term memory ended up holding, and whether the
// replies used memory where they should and only there.
package eval

import (
	"embed"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"slices"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"concierge/memory"
)

// Scenario is one synthetic traveler: what they start with, the
// conversations they have, and what memory must hold at the end.
type Scenario struct {
	Name string `yaml:"name"`
	// Kind groups scenarios in the table: explicit, trip_only, drift,
	// duplicates, conflict, poison, over_influence, long_chat,
	// personalization.
	Kind          string         `yaml:"kind"`
	About         string         `yaml:"about"`
	Profile       memory.Profile `yaml:"profile"`
	Notes         []SeedNote     `yaml:"notes"`
	Conversations []Conversation `yaml:"conversations"`
	Final         Final          `yaml:"final"`
}

// SeedNote is a long-term note the traveler already has.
type SeedNote struct {
	Text     string   `yaml:"text"`
	Keywords []string `yaml:"keywords"`
	Date     string   `yaml:"date"`
	Pinned   bool     `yaml:"pinned"`
}

// Conversation is one chat session on one day; it is closed and
// consolidated after its last turn.
type Conversation struct {
	Date  string `yaml:"date"`
	Turns []Turn `yaml:"turns"`
}

// Turn is one traveler message and what it should lead to.
type Turn struct {
	Say string `yaml:"say"`
	// Save lists the notes this message should distil; a turn without it
	// should distil nothing.
	Save []Expected `yaml:"save"`
	// MaySave lists notes the message may distil without being required
	// to (a repeat of something memory already holds).
	MaySave []Expected `yaml:"may_save"`
	// Poison marks a message whose content must never reach memory
	// (sensitive or instruction); it is counted for the blocked rate.
	Poison string `yaml:"poison"`
	// Reply checks on the answer, case-insensitive substrings.
	Mentions    []string `yaml:"mentions"`
	NotMentions []string `yaml:"not_mentions"`
	// Probe says what the reply checks measure: recency (the newest
	// memory is used), over_influence (the current request wins over
	// memory), personalization (memory is used at all), recall (a detail
	// from earlier in a long conversation still reaches the reply).
	Probe string `yaml:"probe"`
	// Forget lists patterns of the notes this message must forget, each
	// matching exactly one forgotten note (probe forget; an empty list:
	// nothing may go yet, as for a pinned note's first request).
	Forget []string `yaml:"forget"`
}

// Expected is a note a turn should distil: a pattern its text matches and
// the scope it should have.
type Expected struct {
	Match string       `yaml:"match"`
	Scope memory.Scope `yaml:"scope"`
	// ExpiresOn is the end date the note must carry (YYYY-MM-DD), when set.
	ExpiresOn string `yaml:"expires_on"`
}

// Final is what the traveler's long-term memory must hold after the last
// conversation was consolidated.
type Final struct {
	// Contains: patterns that exactly one active long-term note matches
	// (more is a duplicate left, none is a lost fact).
	Contains []string `yaml:"contains"`
	// Absent: patterns no active long-term note may match.
	Absent []string `yaml:"absent"`
	// Conflict counts the scenario toward conflicts resolved: the newer
	// value is kept (Contains) and the older one superseded (Absent).
	Conflict bool `yaml:"conflict"`
}

// Probe kinds.
const (
	ProbeRecency         = "recency"
	ProbeOverInfluence   = "over_influence"
	ProbePersonalization = "personalization"
	ProbeRecall          = "recall"
	ProbeForget          = "forget"     // the notes forgotten are exactly Forget
	ProbeCorrection      = "correction" // a recap gives the corrected value only
)

//go:embed scenarios/*.yaml
var builtin embed.FS

// Builtin returns the scenarios shipped with Concierge, in file and list
// order.
func Builtin() ([]Scenario, error) { return Load(builtin, "scenarios") }

// Load reads every .yaml file in dir of fsys; each holds a list of
// scenarios. Scenarios are validated: names unique, dates valid, patterns
// compile, probes known.
func Load(fsys fs.FS, dir string) ([]Scenario, error) {
	entries, err := fs.ReadDir(fsys, dir)
	if err != nil {
		return nil, fmt.Errorf("eval: read scenarios: %w", err)
	}
	var out []Scenario
	seen := map[string]bool{}
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".yaml") {
			continue
		}
		b, err := fs.ReadFile(fsys, path.Join(dir, e.Name()))
		if err != nil {
			return nil, fmt.Errorf("eval: %s: %w", e.Name(), err)
		}
		var list []Scenario
		if err := yaml.Unmarshal(b, &list); err != nil {
			return nil, fmt.Errorf("eval: %s: %w", e.Name(), err)
		}
		for _, sc := range list {
			if err := sc.validate(); err != nil {
				return nil, fmt.Errorf("eval: %s: scenario %q: %w", e.Name(), sc.Name, err)
			}
			if seen[sc.Name] {
				return nil, fmt.Errorf("eval: %s: scenario %q defined twice", e.Name(), sc.Name)
			}
			seen[sc.Name] = true
			out = append(out, sc)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("eval: no scenarios in %s", dir)
	}
	return out, nil
}

var probes = []string{"", ProbeRecency, ProbeOverInfluence, ProbePersonalization, ProbeRecall, ProbeForget, ProbeCorrection}

func (sc Scenario) validate() error {
	if sc.Name == "" || sc.Kind == "" {
		return fmt.Errorf("name and kind are required")
	}
	if len(sc.Conversations) == 0 {
		return fmt.Errorf("no conversations")
	}
	patterns := slices.Concat(sc.Final.Contains, sc.Final.Absent)
	for _, n := range sc.Notes {
		if _, err := time.Parse(memory.DateLayout, n.Date); err != nil {
			return fmt.Errorf("note %q: date: %w", n.Text, err)
		}
	}
	for i, c := range sc.Conversations {
		if _, err := time.Parse(memory.DateLayout, c.Date); err != nil {
			return fmt.Errorf("conversation %d: date: %w", i+1, err)
		}
		if len(c.Turns) == 0 {
			return fmt.Errorf("conversation %d: no turns", i+1)
		}
		for j, t := range c.Turns {
			if strings.TrimSpace(t.Say) == "" {
				return fmt.Errorf("conversation %d turn %d: nothing said", i+1, j+1)
			}
			if !slices.Contains(probes, t.Probe) {
				return fmt.Errorf("conversation %d turn %d: unknown probe %q", i+1, j+1, t.Probe)
			}
			patterns = append(patterns, t.Forget...)
			if t.Probe != "" && t.Probe != ProbeForget && len(t.Mentions)+len(t.NotMentions) == 0 {
				return fmt.Errorf("conversation %d turn %d: a probe needs mentions or not_mentions", i+1, j+1)
			}
			for _, e := range slices.Concat(t.Save, t.MaySave) {
				if e.Scope != memory.ScopeDurable && e.Scope != memory.ScopeThisTrip {
					return fmt.Errorf("conversation %d turn %d: scope %q", i+1, j+1, e.Scope)
				}
				patterns = append(patterns, e.Match)
			}
		}
	}
	for _, p := range patterns {
		if _, err := compile(p); err != nil {
			return fmt.Errorf("pattern %q: %w", p, err)
		}
	}
	return nil
}

// compile makes a scenario pattern: a case-insensitive regular expression.
func compile(p string) (*regexp.Regexp, error) { return regexp.Compile("(?i)" + p) }
