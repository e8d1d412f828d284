package guard

import "testing"

func TestChineseResidentID(t *testing.T) {
	tests := []struct {
		in   string
		want bool
	}{
		{"11010519491231002x", true},
		{"440308199003071235", true},
		{"110105194912310021", false}, // wrong check digit
		{"11010519491231002", false},
	}
	for _, tt := range tests {
		if got := chineseResidentID(tt.in); got != tt.want {
			t.Errorf("chineseResidentID(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
	if cat, _ := ScreenText("11010519491231002X"); cat != CategorySSN {
		t.Errorf("bare resident id: got %q, want %q", cat, CategorySSN)
	}
}
