package longchat

import (
	"slices"
	"strings"
	"testing"

	"concierge/memory"
	"concierge/memory/consolidate"
	"concierge/memory/memorytest"
	"concierge/memory/prompt"
)

// TestAmnesiaStory: a peanut allergy stated at turn 2 survives a 4-turn
// window at turn 12 through the SESSION block, and is pinned afterwards.
func TestAmnesiaStory(t *testing.T) {
	allergy := memory.Note{ID: "s-peanut", Text: "Allergic to peanuts.", Keywords: []string{"allergy", "food"}, Scope: memory.ScopeDurable, LastUpdateDate: "2026-11-21", Source: memory.SourceAssistant}
	msgs := memorytest.Chat(12)
	tests := []struct {
		name        string
		window      int
		wantTrimmed bool
		wantSession bool
	}{
		{"4-turn window trims", 4, true, true},
		{"wide window keeps everything", 20, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			kept, trimmed := Trim(msgs, TrimOptions{MaxUserTurns: tt.window, TokenBudget: 4000, ReserveForAnswer: 500, Counter: memory.NewTokenCounter("gpt-4o")})
			if trimmed != tt.wantTrimmed {
				t.Fatalf("trimmed = %v, want %v", trimmed, tt.wantTrimmed)
			}
			inHistory := slices.ContainsFunc(kept, func(m memory.Message) bool { return strings.Contains(m.Content, "peanuts") })
			instr := prompt.BuildInstructions(memory.NewState(memorytest.JohnProfile(), memorytest.JohnGlobal(), []memory.Note{allergy}, nil),
				prompt.InjectOptions{Today: "2026-11-21", Trimmed: trimmed, LatestMessage: "Book dinner near the hotel"})
			inSession := strings.Contains(instr.Text, "SESSION:\n- Allergic to peanuts. [durable]")
			if injected := slices.Contains(instr.Notes, prompt.InjectedNote{ID: allergy.ID, Section: prompt.SectionSession}); injected != inSession || instr.Session != inSession {
				t.Errorf("structure says session=%v, allergy injected=%v; the text says %v", instr.Session, injected, inSession)
			}
			if inSession != tt.wantSession {
				t.Errorf("SESSION block has the allergy = %v, want %v", inSession, tt.wantSession)
			}
			if !inHistory && !inSession {
				t.Errorf("the allergy reached the model neither in history nor in instructions")
			}
		})
	}
	r := consolidate.ByRules(memorytest.JohnGlobal(), []memory.Note{allergy}, consolidate.Options{Today: "2026-11-21"})
	i := slices.IndexFunc(r.Global, func(n memory.Note) bool { return n.ID == allergy.ID })
	if i != 0 || !r.Global[i].Pinned {
		t.Fatalf("after consolidation the allergy is %+v, want the first note, pinned", r.Global)
	}
	next := prompt.BuildInstructions(memory.NewState(nil, r.Global, nil, nil), prompt.InjectOptions{Today: "2026-11-22", GlobalBudget: 1}).Text
	if !strings.Contains(next, "- Allergic to peanuts. [updated 2026-11-21; pinned]") {
		t.Errorf("next session misses the pinned allergy:\n%s", next)
	}
}
