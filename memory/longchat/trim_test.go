package longchat

import (
	"fmt"
	"slices"
	"testing"

	"concierge/memory"
	"concierge/memory/memorytest"
)

func roles(msgs []memory.Message) string {
	s := ""
	for _, m := range msgs {
		s += string(m.Role[0])
	}
	return s
}

func TestTrim(t *testing.T) {
	u := func(c string) memory.Message { return memory.Message{Role: memory.RoleUser, Content: c} }
	a := func(c string) memory.Message { return memory.Message{Role: memory.RoleAssistant, Content: c} }
	call := func(ids ...string) memory.Message {
		m := memory.Message{Role: memory.RoleAssistant}
		for _, id := range ids {
			m.ToolCalls = append(m.ToolCalls, memory.ToolCall{ID: id, Name: memory.SaveNoteToolName, Arguments: "{}"})
		}
		return m
	}
	res := func(id string) memory.Message {
		return memory.Message{Role: memory.RoleTool, ToolCallID: id, Content: "ok"}
	}

	tests := []struct {
		name        string
		msgs        []memory.Message
		opt         TrimOptions
		wantRoles   string
		wantTrimmed bool
	}{
		{"empty", nil, TrimOptions{}, "", false},
		{"fits", []memory.Message{u("hi"), a("hello")}, TrimOptions{}, "ua", false},
		{"last two turns", []memory.Message{u("1"), a("1"), u("2"), a("2"), u("3"), call("c"), res("c"), a("3")}, TrimOptions{MaxUserTurns: 2}, "uaatta"[:0] + "uauata", true},
		{"preamble kept when turns fit", []memory.Message{a("welcome"), u("1"), a("1")}, TrimOptions{MaxUserTurns: 2}, "aua", false},
		{"preamble dropped with old turns", []memory.Message{a("welcome"), u("1"), a("1"), u("2")}, TrimOptions{MaxUserTurns: 1}, "u", true},
		{"orphan tool result dropped", []memory.Message{res("x"), u("1"), a("1")}, TrimOptions{}, "ua", true},
		{"unanswered call removed", []memory.Message{u("1"), call("c"), a("done")}, TrimOptions{}, "ua", true},
		{"partly answered call keeps answered pair", []memory.Message{u("1"), call("c1", "c2"), res("c2"), a("done")}, TrimOptions{}, "uata", true},
		{"result after user message is orphan", []memory.Message{u("1"), call("c"), u("2"), res("c")}, TrimOptions{}, "uu", true},
		{"budget drops oldest turns", []memory.Message{u(longText(300)), a(longText(300)), u("2"), a("2")}, TrimOptions{TokenBudget: 100, ReserveForAnswer: 20}, "ua", true},
		{"latest turn kept over budget", []memory.Message{u("1"), u(longText(900))}, TrimOptions{TokenBudget: 50}, "u", true},
		{"reserve counts", []memory.Message{u("1"), a("1"), u("2"), a("2")}, TrimOptions{TokenBudget: 30, ReserveForAnswer: 15}, "ua", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := slices.Clone(tt.msgs)
			kept, trimmed := Trim(tt.msgs, tt.opt)
			if got := roles(kept); got != tt.wantRoles || trimmed != tt.wantTrimmed {
				t.Errorf("Trim = %s, %v; want %s, %v", got, trimmed, tt.wantRoles, tt.wantTrimmed)
			}
			if len(in) != len(tt.msgs) || fmt.Sprint(in) != fmt.Sprint(tt.msgs) {
				t.Errorf("Trim modified its input")
			}
			checkToolPairing(t, kept)
		})
	}
}

func longText(n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = 'a' + byte(i%26)
	}
	return string(b)
}

// checkToolPairing asserts the invariants the chat API needs.
func checkToolPairing(t *testing.T, kept []memory.Message) {
	t.Helper()
	if len(kept) > 0 && kept[0].Role == memory.RoleTool {
		t.Fatalf("history starts with a tool message: %s", roles(kept))
	}
	for i := 0; i < len(kept); i++ {
		m := kept[i]
		if m.Role == memory.RoleTool {
			t.Fatalf("tool result %q at %d is not right after its call: %s", m.ToolCallID, i, roles(kept))
		}
		if m.Role != memory.RoleAssistant || len(m.ToolCalls) == 0 {
			continue
		}
		want := map[string]bool{}
		for _, tc := range m.ToolCalls {
			want[tc.ID] = true
		}
		j := i + 1
		for ; j < len(kept) && kept[j].Role == memory.RoleTool; j++ {
			if !want[kept[j].ToolCallID] {
				t.Fatalf("tool result %q has no call", kept[j].ToolCallID)
			}
			delete(want, kept[j].ToolCallID)
		}
		if len(want) > 0 {
			t.Fatalf("calls %v have no result", want)
		}
		i = j - 1
	}
}

func TestTrimAmnesiaWindow(t *testing.T) {
	msgs := memorytest.Chat(12)
	kept, trimmed := Trim(msgs, TrimOptions{MaxUserTurns: 4})
	if !trimmed {
		t.Fatalf("a 12-turn chat with a 4-turn window was not trimmed")
	}
	users := 0
	for _, m := range kept {
		if m.Role == memory.RoleUser {
			users++
			if m.Turn < 9 {
				t.Errorf("kept user turn %d", m.Turn)
			}
		}
	}
	if users != 4 {
		t.Errorf("kept %d user turns, want 4", users)
	}
}

func FuzzTrim(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3, 1, 0, 2}, uint8(2), uint16(0))
	f.Add([]byte{3, 3, 0, 2, 3, 1}, uint8(1), uint16(40))
	f.Add([]byte{2, 7, 11, 0, 2, 3, 3, 1, 0}, uint8(3), uint16(25))
	f.Fuzz(func(t *testing.T, script []byte, turns uint8, budget uint16) {
		// Each byte is one message: the low two bits pick the role (user,
		// assistant, assistant with calls, tool); the rest picks ids so that
		// results may match, miss or repeat their calls.
		var msgs []memory.Message
		for i, b := range script {
			id := fmt.Sprintf("c%d", b>>4)
			switch b & 3 {
			case 0:
				msgs = append(msgs, memory.Message{Role: memory.RoleUser, Content: fmt.Sprint("u", i)})
			case 1:
				msgs = append(msgs, memory.Message{Role: memory.RoleAssistant, Content: fmt.Sprint("a", i)})
			case 2:
				calls := []memory.ToolCall{{ID: id, Name: "f"}}
				if b&4 != 0 {
					calls = append(calls, memory.ToolCall{ID: fmt.Sprintf("c%d", (b>>4)+1), Name: "g"})
				}
				msgs = append(msgs, memory.Message{Role: memory.RoleAssistant, ToolCalls: calls})
			case 3:
				msgs = append(msgs, memory.Message{Role: memory.RoleTool, ToolCallID: id, Content: "r"})
			}
		}
		kept, trimmed := Trim(msgs, TrimOptions{MaxUserTurns: int(turns % 6), TokenBudget: int(budget % 200)})
		checkToolPairing(t, kept)
		if len(kept) > len(msgs) {
			t.Fatalf("kept more than given")
		}
		if !trimmed && len(kept) != len(msgs) {
			t.Fatalf("cut messages without reporting it")
		}
		// The latest user message always survives.
		for i := len(msgs) - 1; i >= 0; i-- {
			if msgs[i].Role == memory.RoleUser {
				if !slices.ContainsFunc(kept, func(m memory.Message) bool { return m.Role == memory.RoleUser && m.Content == msgs[i].Content }) {
					t.Fatalf("latest user message was dropped")
				}
				break
			}
		}
	})
}
