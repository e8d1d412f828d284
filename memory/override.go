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
