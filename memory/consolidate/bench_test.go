package consolidate

import (
	"fmt"
	"testing"

	"concierge/memory"
	"concierge/memory/memorytest"
)

func BenchmarkConsolidateRules(b *testing.B) {
	global := memorytest.ManyGlobal(200)
	var session []memory.Note
	for i := 0; i < 20; i++ {
		text := fmt.Sprintf("Prefers hotels with a pool in town %d.", i)
		if i%4 == 0 {
			text = global[i*9].Text // some duplicates
		}
		session = append(session, memory.Note{ID: fmt.Sprintf("s%02d", i), Text: text, Keywords: []string{"hotel"}, Scope: memory.ScopeDurable, LastUpdateDate: "2026-11-21"})
	}
	opt := Options{Today: "2026-11-21"}
	ByRules(global, session, opt) // compile the guard's language files, as a running server has
	b.ReportAllocs()
	for b.Loop() {
		ByRules(global, session, opt)
	}
}
