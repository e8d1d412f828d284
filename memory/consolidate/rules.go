package consolidate

import (
	"cmp"
	"slices"
	"strings"

	"concierge/memory"
	"concierge/memory/guard"
)

// The actions a consolidation Decision records.
const (
	ActionPromoted         = "promoted"          // a session note became a global note
	ActionMerged           = "merged"            // folded into an equivalent note (Into), which was refreshed
	ActionSuperseded       = "superseded"        // lost a memory.Conflict to a more recent note (Into)
	ActionDroppedTrip      = "dropped_trip"      // scoped to this trip, never a default
	ActionDroppedDuplicate = "dropped_duplicate" // repeated an earlier note of the same session (Into)
	ActionRefused          = "refused"           // sensitive or instruction-like content
	ActionExpired          = "expired"           // past its ExpiresOn date
	ActionPruned           = "pruned"            // stalest unpinned note beyond the per-user cap
)

// Engines that can produce a Result.
const (
	EngineRules = "rules"
	EngineModel = "model"
)

// Decision records what consolidation did with one note and why.
type Decision struct {
	Note   memory.Note `json:"note"`
	Action string      `json:"action"`
	Into   string      `json:"into,omitempty"` // the note that absorbed or superseded this one
	Why    string      `json:"why"`
	// Engine is the engine that made this decision (EngineRules or
	// EngineModel): with the model engine, notes it could not decide
	// validly are decided by the rules.
	Engine string `json:"engine,omitempty"`
}

// Supersession links a note that lost a conflict to the note that beat it.
type Supersession struct {
	NoteID string `json:"note_id"`
	ByID   string `json:"by_id"`
}

// Result is the outcome of consolidating one session: exactly one decision
// per session note (in input order), then decisions for the global notes
// that were superseded, expired or pruned; the resulting active global notes;
// and the supersessions to keep as history.
type Result struct {
	Engine         string         `json:"engine"`
	FallbackReason string         `json:"fallback_reason,omitempty"`
	Decisions      []Decision     `json:"decisions"`
	Global         []memory.Note  `json:"global_notes"`
	Superseded     []Supersession `json:"superseded,omitempty"`
}

// Options parameterise consolidation.
type Options struct {
	Today          string // YYYY-MM-DD: expiry, and the date of undated session notes
	MaxGlobalNotes int    // per-user cap; 0 means memory.DefaultMaxGlobalNotes
	// NewID makes ids for new notes. The rules engine never needs it (it
	// keeps the ids of the notes it keeps); it is there for engines that
	// create canonical notes.
	NewID func() string
}

// work is one note under consolidation with its precomputed features.
type work struct {
	note      memory.Note
	f         memory.Features
	session   bool
	order     int // position in its input list
	active    bool
	action    string // final action for session notes; "" while active
	into, why string
}

// ByRules folds a closed session's notes into the global notes
// with deterministic rules, in this order:
//  1. expired global notes leave (expired);
//  2. session notes, oldest first: this_trip notes are dropped
//     (dropped_trip), expired ones leave (expired), anything ScreenText
//     blocks is refused (refused);
//  3. a note that conflicts with an active one (see conflict) is resolved
//     by recency: the later LastUpdateDate wins, a tie goes to the session
//     note (or the later session note), and the loser is superseded; pinned
//     global notes are never superseded by rules, the newer note is kept
//     beside them for staff to resolve;
//  4. a near duplicate (DuplicateThreshold) of a global note is merged into
//     it, refreshing its LastUpdateDate, so the canonical phrasing is the
//     one already known; a near duplicate of an earlier note of the same
//     session is dropped (dropped_duplicate) and refreshes that note;
//  5. whatever is left is promoted: same id, scope durable, source
//     consolidation;
//  6. notes about allergies, medical or accessibility needs are pinned;
//  7. beyond MaxGlobalNotes the stalest unpinned notes are pruned.
//
// It never writes text: every resulting note's text is an input note's text.
func ByRules(global, session []memory.Note, opt Options) Result {
	maxGlobal := opt.MaxGlobalNotes
	if maxGlobal <= 0 {
		maxGlobal = memory.DefaultMaxGlobalNotes
	}
	res := Result{Engine: EngineRules}

	gl := make([]*work, len(global))
	for i, n := range global {
		gl[i] = &work{note: n, order: i, active: true}
	}
	slices.SortStableFunc(gl, func(a, b *work) int { return memory.CompareGlobal(a.note, b.note) })
	globalDecision := map[*work]Decision{}
	for _, w := range gl {
		n := w.note
		if memory.Expired(n, opt.Today) {
			w.active = false
			globalDecision[w] = Decision{Note: n, Action: ActionExpired, Why: "expired on " + n.ExpiresOn}
		} else {
			w.f = memory.FeaturesOf(n.Text)
		}
	}

	// Session notes in input order (for the report) and chronologically
	// (for processing), so a later statement overrides an earlier one.
	ss := make([]*work, len(session))
	for i, n := range session {
		if !memory.ValidDate(n.LastUpdateDate) && memory.ValidDate(opt.Today) {
			n.LastUpdateDate = opt.Today
		}
		ss[i] = &work{note: n, session: true, order: i}
	}
	chrono := slices.Clone(ss)
	slices.SortStableFunc(chrono, func(a, b *work) int { return cmp.Compare(a.note.LastUpdateDate, b.note.LastUpdateDate) })

	var promoted []*work
	for _, s := range chrono {
		n := s.note
		switch {
		case n.Scope == memory.ScopeThisTrip:
			s.action, s.why = ActionDroppedTrip, "scoped to this trip only"
			continue
		case memory.Expired(n, opt.Today):
			s.action, s.why = ActionExpired, "expired on "+n.ExpiresOn
			continue
		case strings.TrimSpace(n.Text) == "":
			s.action, s.why = ActionRefused, "empty text"
			continue
		}
		if cat, blocked := guard.ScreenText(n.Text); blocked {
			s.action, s.why = ActionRefused, "blocked: "+cat
			continue
		}
		s.f = memory.FeaturesOf(n.Text)
		s.active = true

		// Conflicts first: a contradiction is never mistaken for a duplicate.
		for _, o := range activeOf(gl, promoted) {
			ok, why := memory.Conflict(s.f, o.f, func() bool { return memory.SharesKeyword(s.note.Keywords, o.note.Keywords) })
			if !ok {
				continue
			}
			sessionWins := s.note.LastUpdateDate >= o.note.LastUpdateDate // ties go to the session note
			switch {
			case !o.session && o.note.Pinned:
				// Rules never unpin a safety note; both stay for staff to resolve.
			case sessionWins:
				o.active = false
				if o.session {
					o.action, o.into, o.why = ActionSuperseded, s.note.ID, why+"; a later note of this session wins"
				} else {
					globalDecision[o] = Decision{Note: o.note, Action: ActionSuperseded, Into: s.note.ID, Why: why + "; the session note is as recent or newer"}
				}
				res.Superseded = append(res.Superseded, Supersession{NoteID: o.note.ID, ByID: s.note.ID})
			default:
				s.active = false
				s.action, s.into, s.why = ActionSuperseded, o.note.ID, why+"; the global note is more recent"
				res.Superseded = append(res.Superseded, Supersession{NoteID: s.note.ID, ByID: o.note.ID})
			}
			if !s.active {
				break
			}
		}
		if !s.active {
			continue
		}

		if o := firstDuplicate(s, gl, promoted); o != nil {
			s.active = false
			o.note.LastUpdateDate = max(o.note.LastUpdateDate, s.note.LastUpdateDate)
			o.note.ExpiresOn = memory.LaterExpiry(o.note.ExpiresOn, s.note.ExpiresOn)
			if o.session {
				s.action, s.into, s.why = ActionDroppedDuplicate, o.note.ID, "repeats an earlier note of this session"
			} else {
				s.action, s.into, s.why = ActionMerged, o.note.ID, "same as a global note, which was refreshed"
			}
			continue
		}

		s.note.Scope = memory.ScopeDurable
		s.note.Source = memory.SourceConsolidation
		s.why = "durable and new"
		promoted = append(promoted, s)
	}

	// Auto-pin safety notes, then enforce the cap on what is left.
	active := activeOf(gl, promoted)
	for _, w := range active {
		if !w.note.Pinned && memory.NeedsPin(w.f, w.note.Keywords) {
			w.note.Pinned = true
			if w.session {
				w.why += "; pinned (allergy, medical or accessibility need)"
			}
		}
	}
	if len(active) > maxGlobal {
		byStaleness := slices.Clone(active)
		slices.SortStableFunc(byStaleness, func(a, b *work) int {
			return cmp.Or(
				cmp.Compare(a.note.LastUpdateDate, b.note.LastUpdateDate),
				boolOrder(a.session, b.session), // existing notes go before fresh ones
				cmp.Compare(a.note.ID, b.note.ID),
			)
		})
		excess := len(active) - maxGlobal
		for _, w := range byStaleness {
			if excess == 0 {
				break
			}
			if w.note.Pinned {
				continue
			}
			w.active = false
			excess--
			if w.session {
				w.action, w.why = ActionPruned, "over the per-user cap and stalest"
			} else {
				globalDecision[w] = Decision{Note: w.note, Action: ActionPruned, Why: "over the per-user cap and stalest"}
			}
		}
	}

	for _, s := range ss {
		if s.active {
			s.action = ActionPromoted
		}
		res.Decisions = append(res.Decisions, Decision{Note: s.note, Action: s.action, Into: s.into, Why: s.why, Engine: EngineRules})
	}
	for _, g := range gl {
		if d, ok := globalDecision[g]; ok {
			d.Engine = EngineRules
			res.Decisions = append(res.Decisions, d)
		}
	}
	final := activeOf(gl, promoted)
	slices.SortStableFunc(final, func(a, b *work) int { return memory.CompareGlobal(a.note, b.note) })
	res.Global = make([]memory.Note, len(final))
	for i, w := range final {
		res.Global[i] = w.note
	}
	return res
}

// activeOf lists the notes still standing: global notes in their order, then
// promoted session notes in processing order.
func activeOf(gl, promoted []*work) []*work {
	out := make([]*work, 0, len(gl)+len(promoted))
	for _, w := range gl {
		if w.active {
			out = append(out, w)
		}
	}
	for _, w := range promoted {
		if w.active {
			out = append(out, w)
		}
	}
	return out
}

// firstDuplicate finds the active note s repeats, global notes first.
func firstDuplicate(s *work, gl, promoted []*work) *work {
	for _, o := range activeOf(gl, promoted) {
		if o != s && (o.note.Text == s.note.Text || memory.Duplicate(s.f, o.f)) {
			return o
		}
	}
	return nil
}

func boolOrder(a, b bool) int {
	switch {
	case a == b:
		return 0
	case !a:
		return -1
	}
	return 1
}
