package memory

import (
	"fmt"
	"testing"
)

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
