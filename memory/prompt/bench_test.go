package prompt

import (
	"testing"

	"concierge/memory"
	"concierge/memory/memorytest"
)

func BenchmarkBuildInstructions(b *testing.B) {
	st := memory.NewState(memorytest.JohnProfile(), memorytest.ManyGlobal(200), []memory.Note{{ID: "s", Text: "Is vegetarian.", LastUpdateDate: "2026-01-01"}}, nil)
	opt := InjectOptions{Counter: memory.NewTokenCounter("gpt-4o"), Today: "2026-01-01", LatestMessage: "Find me a quiet hotel in Lyon with late checkout", Trimmed: true,
		Profiles: memory.NewProfiles()}
	BuildInstructions(st, opt) // warm the encoding, as a running server has
	b.ReportAllocs()
	for b.Loop() {
		BuildInstructions(st, opt)
	}
}
