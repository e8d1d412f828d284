package memory

import (
	"encoding/json"
	"testing"
)

// TestProfileYAMLMemo: a remembered rendering is exactly the fresh one, and
// a profile that changes in place (the same map, another value) or differs
// only in a value's type or bytes never gets another's rendering.
func TestProfileYAMLMemo(t *testing.T) {
	profiles := NewProfiles()
	p := map[string]any{"name": "Ana", "seat": "aisle"}
	st := State{Profile: p, Trips: []Trip{{Route: "LIS-NYC"}}}
	first := profiles.YAML(st)
	if again := profiles.YAML(st); again != first || first != renderProfileYAML(st) {
		t.Fatalf("memoised rendering differs:\n%s\n%s", first, again)
	}
	p["seat"] = "window"
	if got := profiles.YAML(st); got == first || got != renderProfileYAML(st) {
		t.Errorf("changed in place: got\n%s", got)
	}
	for _, v := range []any{"1", json.Number("1"), 1.5, "\xffa", "\xfea"} {
		st := State{Profile: map[string]any{"k": v}}
		if got, want := profiles.YAML(st), renderProfileYAML(st); got != want {
			t.Errorf("value %#v: memo %q, fresh %q", v, got, want)
		}
	}
}
