package longchat

import (
	"testing"

	"concierge/memory"
	"concierge/memory/memorytest"
)

func BenchmarkTrim(b *testing.B) {
	msgs := memorytest.Chat(400)[:1000]
	opt := TrimOptions{MaxUserTurns: 8, TokenBudget: 8000, ReserveForAnswer: 1000, Counter: memory.NewTokenCounter("gpt-4o")}
	Trim(msgs, opt)
	b.ReportAllocs()
	for b.Loop() {
		Trim(msgs, opt)
	}
}
