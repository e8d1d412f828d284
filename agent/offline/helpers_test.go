package offline

import (
	"context"
	"strings"
	"testing"

	"concierge/agent"
	"concierge/memory"
	"concierge/memory/longchat"
	"concierge/memory/prompt"
)

// wordCounter is a stand-in tokenizer: one token per word.
type wordCounter struct{}

func (wordCounter) Count(s string) int { return len(strings.Fields(s)) }

// model is built once: the table is compiled in New.
var model = New(wordCounter{})

func user(text string) memory.Message { return memory.Message{Role: memory.RoleUser, Content: text} }

// noteTexts is what capture saves of a message, the notes' texts joined
// by " | " ("" for none).
func noteTexts(say string) string {
	var got []string
	for _, n := range model.table.capture(say, nil).notes {
		got = append(got, n.Text)
	}
	return strings.Join(got, " | ")
}

// saying is a message and the notes capture should save of it, as noteTexts
// writes them ("" for none).
type saying struct{ say, want string }

// checkNoteTexts checks what capture saves of each message.
func checkNoteTexts(t *testing.T, cases []saying) {
	t.Helper()
	for _, c := range cases {
		if got := noteTexts(c.say); got != c.want {
			t.Errorf("capture(%q) = %q, want %q", c.say, got, c.want)
		}
	}
}

func complete(t testing.TB, req agent.Request) agent.Response {
	t.Helper()
	resp, err := model.Complete(context.Background(), req, nil)
	if err != nil {
		t.Fatalf("Complete: %v", err)
	}
	return resp
}

// chat drives the offline model the way agent.Turn does: the transcript is
// trimmed to the last turns, the instructions are built from the state with
// the SESSION block once something was trimmed, and save_memory_note calls
// are checked and answered like the server answers them.
type chat struct {
	t       testing.TB
	state   memory.State
	history []memory.Message
	saved   []memory.Note
	tools   []memory.Tool
	turn    int
}

func newChat(t testing.TB, st memory.State) *chat {
	return &chat{t: t, state: st, tools: []memory.Tool{memory.SaveNoteTool()}}
}

// say sends one traveler message and returns the reply.
func (c *chat) say(text string) string {
	c.t.Helper()
	c.turn++
	c.history = append(c.history, memory.Message{Role: memory.RoleUser, Content: text, Turn: c.turn})
	for round := 1; round <= 4; round++ {
		kept, trimmed := longchat.Trim(c.history, longchat.TrimOptions{MaxUserTurns: longchat.DefaultMaxUserTurns, TokenBudget: 12000})
		st := c.state
		st.Session = c.saved
		instr := prompt.BuildInstructions(st, prompt.InjectOptions{Today: "2026-12-01", LatestMessage: text, Trimmed: trimmed}).Text
		tools := c.tools
		if round == 4 {
			tools = nil
		}
		resp := complete(c.t, agent.Request{Instructions: instr, Messages: kept, Tools: tools})
		c.history = append(c.history, memory.Message{Role: memory.RoleAssistant, Content: resp.Content, ToolCalls: resp.ToolCalls, Turn: c.turn})
		if len(resp.ToolCalls) == 0 {
			return resp.Content
		}
		for _, tc := range resp.ToolCalls {
			result := `{"ok":true}`
			args, err := memory.ParseSaveNoteArgs(tc.Arguments)
			if err == nil {
				if norm, refusal := memory.CheckNote(args, len(c.saved), len(c.state.Global), memory.Limits{}); refusal != nil {
					result = `{"ok":false,"error":"` + refusal.Category + `"}`
				} else {
					c.saved = append(c.saved, memory.Note{ID: "s" + string(rune('a'+len(c.saved))), Text: norm.Text, Keywords: norm.Keywords, Scope: norm.Scope, LastUpdateDate: "2026-12-01"})
				}
			}
			c.history = append(c.history, memory.Message{Role: memory.RoleTool, ToolCallID: tc.ID, Content: result, Turn: c.turn})
		}
	}
	c.t.Fatalf("no reply after four rounds")
	return ""
}
