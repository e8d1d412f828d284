package eval

import (
	"bufio"
	"bytes"
	"context"
	"embed"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/crypto/bcrypt"

	"concierge/agent"
	"concierge/memory"
	"concierge/models"
)

//go:embed holdout/*.jsonl
var holdoutFiles embed.FS

// HoldoutItem is one labelled statement of a holdout file: written from the
// contract (SPEC §2.3) before the offline rules were tuned, and never
// edited after, so its figures say how the model does on speech it was not
// fitted to.
type HoldoutItem struct {
	Text  string `json:"text"`
	Label string `json:"label"` // durable, this_trip, none, sensitive, instruction
	Kind  string `json:"kind,omitempty"`
	// Expect lists each note the statement should leave.
	Expect []HoldoutExpect `json:"expect,omitempty"`
	// Forbid lists strings no saved note may contain.
	Forbid []string `json:"forbid,omitempty"`
	// Trip is the trip the statement should fill (update_trip), when it
	// names one.
	Trip *HoldoutTrip `json:"trip,omitempty"`
}

// HoldoutTrip is what a statement says of its trip: the destination (a
// stem, matched case-insensitively in the trip's), the month ("03") of its
// start date, the party's size and the purpose; empty fields are not
// scored.
type HoldoutTrip struct {
	Destination string `json:"destination,omitempty"`
	Month       string `json:"month,omitempty"`
	Travellers  int    `json:"travellers,omitempty"`
	Purpose     string `json:"purpose,omitempty"`
}

// HoldoutExpect is one expected note: its scope, a key (alternatives
// separated by "|") that must be one of its keywords or in its text, and
// the gist: each entry of Must (alternatives separated by "|") must appear
// in its text, case-insensitively.
type HoldoutExpect struct {
	Scope memory.Scope `json:"scope"`
	Key   string       `json:"key"`
	Must  []string     `json:"must,omitempty"`
}

// HoldoutScore is a model's score on a holdout, reported apart from the
// scenarios' scorecard (which the rules were written alongside).
type HoldoutScore struct {
	Statements int `json:"statements"`
	// Precision: saved notes that matched an expected note (key and gist)
	// / all saved notes.
	Precision float64 `json:"precision"`
	// Recall: expected notes saved with their key and gist / all expected.
	Recall float64 `json:"recall"`
	// ScopeAccuracy: notes found with the expected scope / notes found.
	ScopeAccuracy float64 `json:"scope_accuracy"`
	// RefusedSaved counts sensitive or instruction-like statements that
	// left a note, or notes holding a forbidden string (must be 0).
	RefusedSaved int `json:"refused_saved"`
	// TripFields: the trip fields the statements name that the trip got
	// right / all the fields they name (0 fields: 0).
	TripFields   int     `json:"trip_fields"`
	TripAccuracy float64 `json:"trip_accuracy"`
	// Misses and FalseSaves describe what went wrong, for the test log.
	Misses     []string `json:"-"`
	FalseSaves []string `json:"-"`
	// MissKinds counts the misses by the expected note's scope, whether
	// its statement expects one note or several, and what was saved
	// instead (see missKind): an aggregate a holdout can print without
	// showing the statements it missed.
	MissKinds map[string]int `json:"miss_kinds,omitempty"`
}

// HoldoutLanguages are the holdout files, by language: en-7 (written
// blind after the sixth round of rules, before the learned reader), en-8
// (written blind after the learned reader's first version), en-9 (written
// blind before the clause classifier), es, ru. The English holdouts before
// en-7 had been looked at round after round; they were retired into the
// learned reader's training data (agent/offline/labelled/retired_*) when
// en-9 was written, and are no longer scored as holdouts.
var HoldoutLanguages = []string{"en-7", "en-8", "en-9", "es", "ru"}

// HoldoutHeadline is the holdout a scorecard's holdout section reports:
// the newest English one.
const HoldoutHeadline = "en-9"

// LoadHoldout returns the embedded holdout statements of one language
// ("en-9").
func LoadHoldout(lang string) ([]HoldoutItem, error) {
	raw, err := holdoutFiles.ReadFile("holdout/" + lang + ".jsonl")
	if err != nil {
		return nil, fmt.Errorf("eval: holdout %s: %w", lang, err)
	}
	return ParseHoldout(raw)
}

// ParseHoldout reads holdout items, one JSON object a line.
func ParseHoldout(raw []byte) ([]HoldoutItem, error) {
	var items []HoldoutItem
	sc := bufio.NewScanner(bytes.NewReader(raw))
	for line := 1; sc.Scan(); line++ {
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		var it HoldoutItem
		if err := json.Unmarshal(sc.Bytes(), &it); err != nil {
			return nil, fmt.Errorf("eval: holdout line %d: %w", line, err)
		}
		items = append(items, it)
	}
	return items, sc.Err()
}

// scoreTrip adds one statement's trip fields to s: got is the trip its
// conversation ended with (nil for none).
func (s *HoldoutScore) scoreTrip(want *HoldoutTrip, got *memory.Trip, right *int) {
	if want == nil {
		return
	}
	check := func(named bool, ok func(t memory.Trip) bool) {
		if !named {
			return
		}
		s.TripFields++
		if got != nil && ok(*got) {
			*right++
		}
	}
	check(want.Destination != "", func(t memory.Trip) bool {
		return strings.Contains(strings.ToLower(t.Destination), strings.ToLower(want.Destination))
	})
	check(want.Month != "", func(t memory.Trip) bool { return len(t.StartDate) >= 7 && t.StartDate[5:7] == want.Month })
	check(want.Travellers > 0, func(t memory.Trip) bool { return t.Travellers == want.Travellers })
	check(want.Purpose != "", func(t memory.Trip) bool { return t.Purpose == want.Purpose })
}

// SavedNote is what scoring needs of a saved note.
type SavedNote struct {
	Text     string
	Keywords []string
	Scope    memory.Scope
}

// ScoreHoldout scores what was saved for each item (saved[i] for items[i]).
func ScoreHoldout(items []HoldoutItem, saved [][]SavedNote) HoldoutScore {
	s := HoldoutScore{Statements: len(items), MissKinds: map[string]int{}}
	var total, matched, expected, found, scoped int
	for i, it := range items {
		got := saved[i]
		total += len(got)
		if (it.Label == "sensitive" || it.Label == "instruction") && len(got) > 0 {
			s.RefusedSaved++
		}
		for _, n := range got {
			for _, f := range it.Forbid {
				if strings.Contains(strings.ToLower(n.Text), strings.ToLower(f)) {
					s.RefusedSaved++
				}
			}
		}
		used := make([]bool, len(got))
		for _, e := range it.Expect {
			expected++
			j := slices.IndexFunc(got, func(n SavedNote) bool { return fits(n, e) })
			for k, n := range got { // a note of the right scope wins over the first fit
				if !used[k] && fits(n, e) && n.Scope == e.Scope {
					j = k
					break
				}
			}
			if j < 0 || used[j] {
				kind := missKind(it, e, got, j, "")
				s.MissKinds[kind]++
				s.Misses = append(s.Misses, fmt.Sprintf("[%s] %q: want %s note with %q %v, got %s", kind, it.Text, e.Scope, e.Key, e.Must, describe(got)))
				continue
			}
			used[j] = true
			found++
			if got[j].Scope == e.Scope {
				scoped++
			} else {
				s.MissKinds[missKind(it, e, got, j, "scope")]++
				s.Misses = append(s.Misses, fmt.Sprintf("%q: scope %s, want %s", it.Text, got[j].Scope, e.Scope))
			}
		}
		for k, n := range got {
			if used[k] {
				matched++
			} else {
				s.FalseSaves = append(s.FalseSaves, fmt.Sprintf("%q (%s) → %q (%s)", it.Text, it.Label, n.Text, n.Scope))
			}
		}
	}
	s.Precision, s.Recall, s.ScopeAccuracy = ratio(matched, total), ratio(found, expected), ratio(scoped, found)
	return s
}

// missKind names a miss as "scope/count/what": the expected scope, "one"
// or "several" notes expected of the statement, and what was saved:
// "nothing", "scope" (found with another scope), "shared" (the note that
// fits was taken by another expectation), "gist" (a note has the key but
// not the gist) or "other" (only notes without the key).
func missKind(it HoldoutItem, e HoldoutExpect, got []SavedNote, j int, what string) string {
	count := "one"
	if len(it.Expect) > 1 {
		count = "several"
	}
	switch {
	case what != "":
	case len(got) == 0:
		what = "nothing"
	case j >= 0:
		what = "shared"
	case slices.ContainsFunc(got, func(n SavedNote) bool { return fits(n, HoldoutExpect{Key: e.Key}) }):
		what = "gist"
	default:
		what = "other"
	}
	return string(e.Scope) + "/" + count + "/" + what
}

func fits(n SavedNote, e HoldoutExpect) bool {
	text := strings.ToLower(n.Text)
	if !slices.ContainsFunc(strings.Split(e.Key, "|"), func(k string) bool {
		return slices.Contains(n.Keywords, k) || strings.Contains(text, k)
	}) {
		return false
	}
	for _, m := range e.Must {
		if !slices.ContainsFunc(strings.Split(strings.ToLower(m), "|"), func(alt string) bool { return strings.Contains(text, alt) }) {
			return false
		}
	}
	return true
}

func describe(notes []SavedNote) string {
	if len(notes) == 0 {
		return "nothing"
	}
	var parts []string
	for _, n := range notes {
		parts = append(parts, fmt.Sprintf("%q (%s %s)", n.Text, n.Scope, strings.Join(n.Keywords, ",")))
	}
	return strings.Join(parts, "; ")
}

// RunHoldout sends each holdout statement as the first message of its own
// conversation, through the agent and the server's checks as in a real
// turn, and scores the notes each one left.
func RunHoldout(ctx context.Context, items []HoldoutItem, opt Options) (HoldoutScore, error) {
	if opt.Provider == nil {
		return HoldoutScore{}, fmt.Errorf("eval: no provider")
	}
	if opt.Log == nil {
		opt.Log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	dir, err := os.MkdirTemp(opt.Dir, "concierge-holdout-")
	if err != nil {
		return HoldoutScore{}, fmt.Errorf("eval: %w", err)
	}
	defer os.RemoveAll(dir)
	store, err := models.Open(filepath.Join(dir, "holdout.db"))
	if err != nil {
		return HoldoutScore{}, fmt.Errorf("eval: %w", err)
	}
	defer store.Close()
	clk := &clock{}
	clk.set("2026-03-02")
	store.Now, store.PasswordCost = clk.now, bcrypt.MinCost
	if err := store.Migrate(ctx); err != nil {
		return HoldoutScore{}, fmt.Errorf("eval: %w", err)
	}
	uid, err := setUp(ctx, store, Scenario{Name: "holdout"})
	if err != nil {
		return HoldoutScore{}, fmt.Errorf("eval: %w", err)
	}
	ag := agent.New(agent.DefaultConfig(opt.Model), store, opt.Provider, opt.Log)
	ag.SetClock(clk.now)
	turns := agent.NewRunner(agent.RunnerConfig{}, ag, opt.Log)
	saved := make([][]SavedNote, len(items))
	trips := make([]*memory.Trip, len(items))
	for i, it := range items {
		owner := uid
		if it.Trip != nil { // a traveler of its own: another statement's open trip would make it ask which trip first
			u, err := store.CreateUser(ctx, fmt.Sprintf("trip-%d@eval.invalid", i), "Eval Traveler", models.RoleTraveler, "eval-password-1")
			if err != nil {
				return HoldoutScore{}, fmt.Errorf("eval: %w", err)
			}
			owner = u.ID
		}
		cs, err := store.CreateChatSession(ctx, owner)
		if err != nil {
			return HoldoutScore{}, fmt.Errorf("eval: %w", err)
		}
		res, err := turns.Send(ctx, agent.Post{SessionID: cs.ID, Content: it.Text})
		if err != nil {
			return HoldoutScore{}, fmt.Errorf("eval: holdout statement %d: %w", i+1, err)
		}
		for _, n := range res.Saved {
			saved[i] = append(saved[i], SavedNote{Text: n.Text, Keywords: n.Keywords, Scope: n.Scope})
		}
		if it.Trip != nil {
			if trips[i], err = sessionTrip(ctx, store, owner, cs.ID); err != nil {
				return HoldoutScore{}, fmt.Errorf("eval: holdout statement %d: %w", i+1, err)
			}
		}
	}
	s := ScoreHoldout(items, saved)
	right := 0
	for i, it := range items {
		s.scoreTrip(it.Trip, trips[i], &right)
	}
	if s.TripFields > 0 {
		s.TripAccuracy = ratio(right, s.TripFields)
	}
	return s, nil
}

// sessionTrip is the trip a conversation belongs to, or nil.
func sessionTrip(ctx context.Context, store *models.Store, uid, sessionID string) (*memory.Trip, error) {
	cs, err := store.ChatSessionByID(ctx, sessionID)
	if err != nil || cs.TripID == "" {
		return nil, err
	}
	t, err := store.TripByID(ctx, uid, cs.TripID)
	if err != nil {
		return nil, err
	}
	d := t.Domain()
	return &d, nil
}
