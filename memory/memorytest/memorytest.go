// Package memorytest holds the fixtures the tests of the packages under
// memory (prompt, consolidate, longchat) share: John, his profile and
// notes, and a long transcript. Package memory's own tests cannot import
// it, since it imports memory.
package memorytest

import (
	"fmt"
	"strings"

	"concierge/memory"
)

// JohnProfile is the demo traveler of SPEC §5, private ids included.
func JohnProfile() memory.Profile {
	return memory.Profile{
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

// JohnGlobal are John's five dated global notes.
func JohnGlobal() []memory.Note {
	return []memory.Note{
		{ID: "g1", Text: "Avoids checked bags on trips shorter than a week.", Keywords: []string{"luggage"}, Scope: memory.ScopeDurable, LastUpdateDate: "2024-03-10", Source: memory.SourceSeed},
		{ID: "g2", Text: "Prefers aisle seats.", Keywords: []string{"seat", "flight"}, Scope: memory.ScopeDurable, LastUpdateDate: "2024-06-01", Source: memory.SourceSeed},
		{ID: "g3", Text: "Likes staying in central, walkable neighbourhoods.", Keywords: []string{"hotel", "neighbourhood"}, Scope: memory.ScopeDurable, LastUpdateDate: "2024-02-15", Source: memory.SourceSeed},
		{ID: "g4", Text: "Likes to compare options side by side before choosing.", Keywords: []string{"planning"}, Scope: memory.ScopeDurable, LastUpdateDate: "2023-11-05", Source: memory.SourceSeed},
		{ID: "g5", Text: "Prefers rooms on high floors.", Keywords: []string{"hotel", "room"}, Scope: memory.ScopeDurable, LastUpdateDate: "2024-01-20", Source: memory.SourceSeed},
	}
}

// ManyGlobal makes n varied, dated global notes.
func ManyGlobal(n int) []memory.Note {
	topics := []string{"Prefers quiet rooms away from the lift", "Likes boutique hotels with a gym", "Prefers morning departures",
		"Avoids layovers longer than three hours", "Likes trains for trips under four hours", "Prefers rental cars with automatic gearbox",
		"Likes hotels with late checkout", "Prefers direct flights when the price difference is small", "Likes street food tours",
		"Prefers travel insurance with cancellation cover"}
	out := make([]memory.Note, n)
	for i := range out {
		out[i] = memory.Note{
			ID:             fmt.Sprintf("g%03d", i),
			Text:           fmt.Sprintf("%s in city %d.", topics[i%len(topics)], i),
			Keywords:       []string{"topic" + string(rune('a'+i%26)), "hotel"},
			Scope:          memory.ScopeDurable,
			LastUpdateDate: fmt.Sprintf("20%02d-%02d-%02d", 20+i%6, 1+i%12, 1+i%28),
			Pinned:         i%50 == 0,
			Source:         memory.SourceSeed,
		}
	}
	return out
}

// Chat builds a transcript of turns user turns; turn t has a user message,
// an assistant answer and, every third turn, a tool call with its result.
func Chat(turns int) []memory.Message {
	var msgs []memory.Message
	for t := 1; t <= turns; t++ {
		content := fmt.Sprintf("Turn %d: looking at options for my trip.", t)
		if t == 2 {
			content = "I am allergic to peanuts, please remember that."
		}
		msgs = append(msgs, memory.Message{Role: memory.RoleUser, Content: content, Turn: t})
		if t%3 == 2 {
			id := fmt.Sprintf("call_%d", t)
			msgs = append(msgs,
				memory.Message{Role: memory.RoleAssistant, ToolCalls: []memory.ToolCall{{ID: id, Name: memory.SaveNoteToolName, Arguments: `{"text":"x","keywords":["a"],"scope":"durable"}`}}, Turn: t},
				memory.Message{Role: memory.RoleTool, ToolCallID: id, Content: `{"ok":true}`, Turn: t},
			)
		}
		msgs = append(msgs, memory.Message{Role: memory.RoleAssistant, Content: strings.Repeat("Here are two options with trade-offs. ", 3), Turn: t})
	}
	return msgs
}

// NoteTexts are the texts of ns, in order.
func NoteTexts(ns []memory.Note) []string {
	out := make([]string, len(ns))
	for i, n := range ns {
		out[i] = n.Text
	}
	return out
}
