package memory

import (
	"cmp"
	"slices"
	"strings"
)

// MaxTrips is how many recent trips a State keeps.
const MaxTrips = 3

// NewState assembles a traveler's State. It copies its inputs, keeps the
// MaxTrips most recent trips (most recent first by StartDate) and orders
// everything deterministically: global notes pinned first, then most
// recently updated, then by id; session notes oldest first, keeping the
// given order for notes of the same day.
func NewState(profile Profile, global, session []Note, trips []Trip) State {
	g := slices.Clone(global)
	slices.SortStableFunc(g, CompareGlobal)
	s := slices.Clone(session)
	slices.SortStableFunc(s, func(a, b Note) int { return cmp.Compare(a.LastUpdateDate, b.LastUpdateDate) })
	t := slices.Clone(trips)
	slices.SortStableFunc(t, func(a, b Trip) int {
		return cmp.Or(
			cmp.Compare(b.StartDate, a.StartDate),
			cmp.Compare(b.EndDate, a.EndDate),
			cmp.Compare(a.Route, b.Route),
		)
	})
	if len(t) > MaxTrips {
		t = t[:MaxTrips]
	}
	return State{Profile: profile, Global: g, Session: s, Trips: t}
}

// CompareGlobal orders global notes pinned first, then newest, then by id.
func CompareGlobal(a, b Note) int {
	if a.Pinned != b.Pinned {
		if a.Pinned {
			return -1
		}
		return 1
	}
	if a.LastUpdateDate != b.LastUpdateDate {
		return strings.Compare(b.LastUpdateDate, a.LastUpdateDate)
	}
	return strings.Compare(a.ID, b.ID)
}
