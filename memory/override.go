package memory

// ProfileOverride is a note that overrides a profile field: the memory
// policy lets a note (or the traveler's message) override a field for the
// conversation, while the profile itself stays as it is.
type ProfileOverride struct {
	Field string // the profile key, e.g. "seat_preference"
	Note  Note   // the note the assistant follows instead
}

// ProfileOverrides finds, for each profile field a note contradicts
// (ProfileConflicts decides what contradicts), the note that does. notes
// are in the order they win (the conversation's own first, then the most
// recent); the first that contradicts a field is the one reported. A
// this-trip note overrides too, for the conversation it belongs to.
func ProfileOverrides(p Profile, notes []Note) []ProfileOverride {
	var out []ProfileOverride
	seen := map[string]bool{}
	for _, n := range notes {
		probe := n
		probe.Scope = ScopeDurable
		for _, s := range ProfileConflicts(p, probe) {
			if !seen[s.Field] {
				seen[s.Field] = true
				out = append(out, ProfileOverride{Field: s.Field, Note: n})
			}
		}
	}
	return out
}

// OverriddenNotes are the ids of the global notes a durable note of this
// conversation contradicts ("Prefers window seats." said today against a
// remembered "Prefers aisle seats."): a correction wins at once, so the
// instructions leave the older note out for the rest of the conversation,
// and consolidation supersedes it when the conversation ends. Contradiction
// is decided as consolidation decides it (Conflict in similarity.go).
func OverriddenNotes(global, session []Note) map[string]bool {
	if len(global) == 0 || len(session) == 0 {
		return nil
	}
	// A wish for this trip ("this time a window seat") changes the trip,
	// not the default: only a durable statement is a correction.
	session = durableOnly(session)
	fs := make([]Features, len(session))
	for i, s := range session {
		fs[i] = FeaturesOf(s.Text)
	}
	var out map[string]bool
	for _, g := range global {
		gf := FeaturesOf(g.Text)
		for i, s := range session {
			if ok, _ := Conflict(fs[i], gf, func() bool { return SharesKeyword(s.Keywords, g.Keywords) }); ok {
				if out == nil {
					out = map[string]bool{}
				}
				out[g.ID] = true
				break
			}
		}
	}
	return out
}

// SessionProfileOverrides are the profile fields a durable note of this
// conversation contradicts, with the value the note states (Proposed) and
// the profile's (Current); the latest note wins a field.
func SessionProfileOverrides(p Profile, session []Note) []ProfileSuggestion {
	var out []ProfileSuggestion
	seen := map[string]int{}
	for _, n := range durableOnly(session) {
		for _, s := range ProfileConflicts(p, n) {
			if i, ok := seen[s.Field]; ok {
				out[i] = s
				continue
			}
			seen[s.Field] = len(out)
			out = append(out, s)
		}
	}
	return out
}

func durableOnly(notes []Note) []Note {
	out := make([]Note, 0, len(notes))
	for _, n := range notes {
		if n.Scope != ScopeThisTrip {
			out = append(out, n)
		}
	}
	return out
}
