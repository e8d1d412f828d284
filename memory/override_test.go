package memory

import "testing"

func TestProfileOverrides(t *testing.T) {
	profile := Profile{"seat_preference": "aisle", "home_city": "San Francisco", "currency": "USD"}
	tests := []struct {
		name  string
		notes []string
		want  map[string]string // field → overriding note
	}{
		{"a window note overrides the aisle seat", []string{"Prefers window seats."}, map[string]string{"seat_preference": "Prefers window seats."}},
		{"an aisle note agrees", []string{"Prefers aisle seats."}, map[string]string{}},
		{"a negation overrides nothing", []string{"Does not want window seats."}, map[string]string{}},
		{"the first note in winning order is the one", []string{"Wants a middle seat.", "Prefers window seats."}, map[string]string{"seat_preference": "Wants a middle seat."}},
		{"a move overrides the home city", []string{"Lives in Lisbon now."}, map[string]string{"home_city": "Lives in Lisbon now."}},
		{"unrelated notes", []string{"Vegetarian.", "Likes walkable neighbourhoods."}, map[string]string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var notes []Note
			for i, s := range tt.notes {
				notes = append(notes, Note{ID: string(rune('a' + i)), Text: s})
			}
			got := map[string]string{}
			for _, o := range ProfileOverrides(profile, notes) {
				got[o.Field] = o.Note.Text
			}
			if len(got) != len(tt.want) {
				t.Fatalf("got %v, want %v", got, tt.want)
			}
			for k, v := range tt.want {
				if got[k] != v {
					t.Errorf("%s: got %q, want %q", k, got[k], v)
				}
			}
		})
	}
}
