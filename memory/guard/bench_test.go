package guard

import "testing"

// benchNote is a 180-character note, the longest a note may be, with the
// numbers, places and words that wake the guard's slower checks.
const benchNote = "Prefers aisle seats on flights over 2 hours; likes hotels near 3 Grand Place, terminal 2 lounges and quiet rooms; skips minibars; flies out after 9am, budget 4000 a night, no code."

func BenchmarkScreenText(b *testing.B) {
	if n := len([]rune(benchNote)); n != 180 {
		b.Fatalf("bench note has %d characters, want 180", n)
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

// BenchmarkScreenTextRussian screens a Russian note with Latin brand names
// and model numbers, the text that takes the normaliser's non-ASCII path
// (and its mixed-script pass) rather than the byte-by-byte one.
func BenchmarkScreenTextRussian(b *testing.B) {
	const note = "Летает на Боинг 737 MAX, любит кафе с Wi-Fi у выхода 12, берёт в прокат Škoda Octavia; звонит с iPhone, в поездах Сапсан смотрит YouTube, отели у моря."
	ScreenText(note)
	b.ReportAllocs()
	for b.Loop() {
		ScreenText(note)
	}
}
