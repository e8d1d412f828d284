package memory

import "strings"

// profileAxes are the profile fields a note can contradict on one of the
// contradiction axes (similarity.go), with the axis.
var profileAxes = map[string]string{"seat_preference": "seat", "cabin_class": "cabin", "diet": "diet"}

// ProfileOverride is a note that overrides a profile field: the memory
// policy lets a note (or the traveler's message) override a field for the
// conversation, while the profile itself stays as it is.
type ProfileOverride struct {
	Field string // the profile key, e.g. "seat_preference"
	Note  Note   // the note the assistant follows instead
}

// ProfileOverrides finds, for each profile field a note can contradict
// (the seat, the cabin, the diet, the home city), the note that does:
// a statement, not a negation, whose value on that axis differs from the
// field's. notes are in the order they win (the caller's list: the
// conversation's own first, then the most recent), and the first that
// contradicts a field is the one reported.
func ProfileOverrides(p Profile, notes []Note) []ProfileOverride {
	var out []ProfileOverride
	feats := make([]features, len(notes))
	for i, n := range notes {
		feats[i] = featuresOf(n.Text)
	}
	for _, field := range []string{"seat_preference", "cabin_class", "diet", "home_city"} {
		value, _ := p[field].(string)
		if strings.TrimSpace(value) == "" {
			continue
		}
		pf := featuresOf(value)
		for i, f := range feats {
			if f.negative {
				continue
			}
			var differs bool
			if field == "home_city" {
				differs = f.city != "" && f.city != strings.ToLower(strings.TrimSpace(value))
			} else {
				axis := profileAxes[field]
				pv := pf.axes[axis]
				if len(pv) == 0 {
					// A bare value ("aisle") names no trigger word: read it as one.
					pv = featuresOf(value + " " + axis).axes[axis]
				}
				differs = len(f.axes[axis]) > 0 && len(pv) > 0 && !intersects(f.axes[axis], pv)
			}
			if differs {
				out = append(out, ProfileOverride{Field: field, Note: notes[i]})
				break
			}
		}
	}
	return out
}
