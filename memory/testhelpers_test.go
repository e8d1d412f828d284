package memory

import (
	"fmt"
	"strings"
	"testing"
)

// johnProfile is the demo traveler of SPEC §5, private ids included.
func johnProfile() Profile {
	return Profile{
		"name":            "John Doe",
		"home_city":       "San Francisco",
		"currency":        "USD",
		"seat_preference": "aisle",
		"customer_id":     "cus_8842",
		"loyalty_programs": []any{
			map[string]any{"program": "United MileagePlus", "status": "Gold", "member_id": "UA-99812345"},
			map[string]any{"program": "Marriott Bonvoy", "status": "Titanium", "number": "MB77123"},
		},
		"visas":           []any{"Schengen", "US"},
		"passport_expiry": "2031-05-01",
		"passport_number": "K1234567",
		"insurance":       map[string]any{"coverage": "comprehensive", "policy_number": "POL-55"},
		"tone":            "concise and friendly",
	}
}

// johnGlobal are John's five dated global notes.
func johnGlobal() []Note {
	return []Note{
		{ID: "g1", Text: "Avoids checked bags on trips shorter than a week.", Keywords: []string{"luggage"}, Scope: ScopeDurable, LastUpdateDate: "2024-03-10", Source: SourceSeed},
		{ID: "g2", Text: "Prefers aisle seats.", Keywords: []string{"seat", "flight"}, Scope: ScopeDurable, LastUpdateDate: "2024-06-01", Source: SourceSeed},
		{ID: "g3", Text: "Likes staying in central, walkable neighbourhoods.", Keywords: []string{"hotel", "neighbourhood"}, Scope: ScopeDurable, LastUpdateDate: "2024-02-15", Source: SourceSeed},
		{ID: "g4", Text: "Likes to compare options side by side before choosing.", Keywords: []string{"planning"}, Scope: ScopeDurable, LastUpdateDate: "2023-11-05", Source: SourceSeed},
		{ID: "g5", Text: "Prefers rooms on high floors.", Keywords: []string{"hotel", "room"}, Scope: ScopeDurable, LastUpdateDate: "2024-01-20", Source: SourceSeed},
	}
}

// manyGlobal makes n varied, dated global notes.
func manyGlobal(n int) []Note {
	topics := []string{"Prefers quiet rooms away from the lift", "Likes boutique hotels with a gym", "Prefers morning departures",
		"Avoids layovers longer than three hours", "Likes trains for trips under four hours", "Prefers rental cars with automatic gearbox",
		"Likes hotels with late checkout", "Prefers direct flights when the price difference is small", "Likes street food tours",
		"Prefers travel insurance with cancellation cover"}
	out := make([]Note, n)
	for i := range out {
		out[i] = Note{
			ID:             fmt.Sprintf("g%03d", i),
			Text:           fmt.Sprintf("%s in city %d.", topics[i%len(topics)], i),
			Keywords:       []string{"topic" + string(rune('a'+i%26)), "hotel"},
			Scope:          ScopeDurable,
			LastUpdateDate: fmt.Sprintf("20%02d-%02d-%02d", 20+i%6, 1+i%12, 1+i%28),
			Pinned:         i%50 == 0,
			Source:         SourceSeed,
		}
	}
	return out
}

// chat builds a transcript of turns user turns; turn t has a user message,
// an assistant answer and, every third turn, a tool call with its result.
func chat(turns int) []Message {
	var msgs []Message
	for t := 1; t <= turns; t++ {
		content := fmt.Sprintf("Turn %d: looking at options for my trip.", t)
		if t == 2 {
			content = "I am allergic to peanuts, please remember that."
		}
		msgs = append(msgs, Message{Role: RoleUser, Content: content, Turn: t})
		if t%3 == 2 {
			id := fmt.Sprintf("call_%d", t)
			msgs = append(msgs,
				Message{Role: RoleAssistant, ToolCalls: []ToolCall{{ID: id, Name: SaveNoteToolName, Arguments: `{"text":"x","keywords":["a"],"scope":"durable"}`}}, Turn: t},
				Message{Role: RoleTool, ToolCallID: id, Content: `{"ok":true}`, Turn: t},
			)
		}
		msgs = append(msgs, Message{Role: RoleAssistant, Content: strings.Repeat("Here are two options with trade-offs. ", 3), Turn: t})
	}
	return msgs
}

func noteTexts(ns []Note) []string {
	out := make([]string, len(ns))
	for i, n := range ns {
		out[i] = n.Text
	}
	return out
}

func findDecision(t *testing.T, r Result, id string) Decision {
	t.Helper()
	var found []Decision
	for _, d := range r.Decisions {
		if d.Note.ID == id {
			found = append(found, d)
		}
	}
	if len(found) != 1 {
		t.Fatalf("decisions for %q = %d, want exactly 1 (%+v)", id, len(found), r.Decisions)
	}
	return found[0]
}
