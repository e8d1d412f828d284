package memory

import (
	"slices"
	"testing"
)

func TestSuggestKeywords(t *testing.T) {
	tests := []struct {
		text string
		want []string
	}{
		{"I prefer aisle seats.", []string{"aisle", "seats"}},
		{"Allergic to peanuts, please avoid them.", []string{"allergic", "peanuts"}},
		{"No red-eye flights.", []string{"red-eye", "flights"}},
		{"Prefers trains under four hours.", []string{"trains", "hours"}},
		{"Likes staying in central, walkable neighbourhoods near a metro.", []string{"staying", "walkable", "neighbourhoods"}},
		{"Me gustan los hoteles céntricos.", []string{"gustan", "hoteles", "céntricos"}},
		{"a b", nil},
	}
	for _, tt := range tests {
		got := SuggestKeywords(tt.text)
		if !slices.Equal(got, tt.want) {
			t.Errorf("SuggestKeywords(%q) = %v, want %v", tt.text, got, tt.want)
		}
		if len(got) > 0 {
			if _, r := CheckNote(SaveNoteArgs{Text: tt.text, Keywords: got, Scope: ScopeDurable}, 0, 0, Limits{}); r != nil && r.Category == CategoryBadKeywords {
				t.Errorf("CheckNote refused the suggested keywords %v of %q", got, tt.text)
			}
		}
	}
}
