package prompt

import (
	"strings"

	"concierge/memory"
)

// writeTrips renders the trip part of the <memories> block: the open trips
// by handle when the conversation has none, else the TRIP block with the
// trip's notes (those not expired), each with its note handle when the
// forget tool is offered, as GLOBAL and SESSION notes have theirs: "forget
// that" reaches a trip wish too. It returns the tokens of the lines it
// wrote, and adds the notes to out.Notes (the notes the forget tool may
// resolve a handle to).
func writeTrips(b *strings.Builder, st memory.State, opt InjectOptions, handles bool, counter memory.TokenCounter, out *Instructions) int {
	tokens := 0
	if st.Trip == nil {
		if len(st.OpenTrips) == 0 {
			return 0
		}
		line := "OPEN TRIPS (this conversation is attached to none):"
		for i, t := range st.OpenTrips {
			line += " [" + memory.TripHandle(i) + "] " + t.Describe() + ";"
		}
		line = strings.TrimSuffix(line, ";") + "\n"
		b.WriteString(line)
		return counter.Count(line)
	}
	handle := ""
	for i, t := range st.OpenTrips {
		if t.ID == st.Trip.ID {
			handle = " [" + memory.TripHandle(i) + "]"
		}
	}
	head := memory.SectionTrip + handle + " (this conversation's trip): " + st.Trip.Describe() + "\n"
	b.WriteString(head)
	tokens += counter.Count(head)
	for _, n := range st.TripNotes {
		if memory.Expired(n, opt.Today) {
			continue
		}
		line := "- " + memory.Neutralize(n.Text) + " [this trip]\n"
		if handles {
			line = "- [" + memory.Handle(n.ID) + "] " + strings.TrimPrefix(line, "- ")
		}
		b.WriteString(line)
		tokens += counter.Count(line)
		out.Notes = append(out.Notes, InjectedNote{ID: n.ID, Section: memory.SectionTrip, Pinned: n.Pinned})
	}
	return tokens
}
