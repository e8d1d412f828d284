package memory

import (
	"reflect"
	"testing"
)

func TestProfileConflicts(t *testing.T) {
	john := Profile{"seat_preference": "aisle", "home_city": "San Francisco", "currency": "USD"}
	tests := []struct {
		name    string
		profile Profile
		note    Note
		want    []ProfileSuggestion
	}{
		{"window against aisle", john, Note{Text: "Prefers window seats.", Scope: ScopeDurable},
			[]ProfileSuggestion{{Field: "seat_preference", Current: "aisle", Proposed: "window"}}},
		{"agrees with the profile", john, Note{Text: "Prefers aisle seats.", Scope: ScopeDurable}, nil},
		{"negated", john, Note{Text: "Does not like window seats.", Scope: ScopeDurable}, nil},
		{"this trip only", john, Note{Text: "Wants a window seat on this trip.", Scope: ScopeThisTrip}, nil},
		{"two values state none", john, Note{Text: "Takes an aisle or a window seat.", Scope: ScopeDurable}, nil},
		{"field not in the profile", Profile{"currency": "USD"}, Note{Text: "Prefers window seats.", Scope: ScopeDurable}, nil},
		{"moved city", john, Note{Text: "Lives in Lisbon now.", Scope: ScopeDurable},
			[]ProfileSuggestion{{Field: "home_city", Current: "San Francisco", Proposed: "Lisbon"}}},
		{"same city", john, Note{Text: "Lives in San Francisco.", Scope: ScopeDurable}, nil},
		{"unrelated", john, Note{Text: "Prefers rooms on high floors.", Scope: ScopeDurable}, nil},
		{"prices in euros", john, Note{Text: "Prefers prices in euros.", Scope: ScopeDurable},
			[]ProfileSuggestion{{Field: "currency", Current: "USD", Proposed: "EUR"}}},
		{"pays in the profile's currency", john, Note{Text: "Always pays in US dollars.", Scope: ScopeDurable}, nil},
		{"a budget's currency", john, Note{Text: "Budget is 3000 euros.", Scope: ScopeDurable}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ProfileConflicts(tt.profile, tt.note); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("ProfileConflicts(%q) = %+v, want %+v", tt.note.Text, got, tt.want)
			}
		})
	}
}

func TestApplySuggestionCopies(t *testing.T) {
	p := Profile{"seat_preference": "aisle"}
	got := ApplySuggestion(p, ProfileSuggestion{Field: "seat_preference", Proposed: "window"})
	if got["seat_preference"] != "window" || p["seat_preference"] != "aisle" {
		t.Errorf("ApplySuggestion: got %v, original %v", got, p)
	}
}
