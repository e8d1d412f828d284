package memory

import (
	"fmt"
	"testing"
)

func BenchmarkBuildInstructions(b *testing.B) {
	st := NewState(johnProfile(), manyGlobal(200), []Note{{ID: "s", Text: "Is vegetarian.", LastUpdateDate: "2026-01-01"}}, nil)
	opt := InjectOptions{Counter: NewTokenCounter("gpt-4o"), Today: "2026-01-01", LatestMessage: "Find me a quiet hotel in Lyon with late checkout", Trimmed: true}
	BuildInstructions(st, opt) // warm the encoding, as a running server has
	b.ReportAllocs()
	for b.Loop() {
		BuildInstructions(st, opt)
	}
}

func BenchmarkConsolidateRules(b *testing.B) {
	global := manyGlobal(200)
	var session []Note
	for i := 0; i < 20; i++ {
		text := fmt.Sprintf("Prefers hotels with a pool in town %d.", i)
		if i%4 == 0 {
			text = global[i*9].Text // some duplicates
		}
		session = append(session, Note{ID: fmt.Sprintf("s%02d", i), Text: text, Keywords: []string{"hotel"}, Scope: ScopeDurable, LastUpdateDate: "2026-11-21"})
	}
	b.ReportAllocs()
	for b.Loop() {
		ConsolidateRules(global, session, ConsolidateOptions{Today: "2026-11-21"})
	}
}

func BenchmarkTrim(b *testing.B) {
	msgs := chat(400)[:1000]
	opt := TrimOptions{MaxUserTurns: 8, TokenBudget: 8000, ReserveForAnswer: 1000, Counter: NewTokenCounter("gpt-4o")}
	Trim(msgs, opt)
	b.ReportAllocs()
	for b.Loop() {
		Trim(msgs, opt)
	}
}

// benchNote is a 180-character note, the longest a note may be, with the
// numbers, places and words that wake the guard's slower checks.
const benchNote = "Prefers aisle seats on flights over 2 hours; likes hotels near 3 Grand Place, terminal 2 lounges and quiet rooms; skips minibars; flies out after 9am, budget 4000 a night, no code."

func BenchmarkScreenText(b *testing.B) {
	if n := len([]rune(benchNote)); n != MaxNoteChars {
		b.Fatalf("bench note has %d characters, want %d", n, MaxNoteChars)
	}
	ScreenText(benchNote) // compile the language files, as a running server has
	b.ReportAllocs()
	for b.Loop() {
		ScreenText(benchNote)
	}
}

// BenchmarkScreenMessage screens a traveler's ordinary message without
// digits, the common case on every turn: only the instruction rules' word
// gates and the checks without numbers run.
func BenchmarkScreenMessage(b *testing.B) {
	const msg = "I'd love a quiet boutique hotel near the old town, and please remember I'm vegetarian and prefer aisle seats."
	ScreenText(msg)
	b.ReportAllocs()
	for b.Loop() {
		ScreenText(msg)
	}
}
