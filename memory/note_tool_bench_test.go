package memory

import "testing"

// BenchmarkParseSaveNoteArgs parses a save call's arguments, as the agent
// does for every call and the offline model for every earlier save in its
// window.
func BenchmarkParseSaveNoteArgs(b *testing.B) {
	raw := `{"text":"Prefers a quiet room away from the lift, high floor if possible.","keywords":["room","quiet","floor"],"scope":"durable","expires_on":null}`
	for b.Loop() {
		if _, err := ParseSaveNoteArgs(raw); err != nil {
			b.Fatal(err)
		}
	}
}
