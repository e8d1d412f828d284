package models

// Redaction: a deleted note's text leaves every copy that recorded it —
// audit payloads, consolidation reports, prompt snapshots, summaries and
// the assistant's and tools' messages (deleteNoteTx calls redactNoteTx).

import (
	"encoding/json"
	"sort"
	"strings"

	"gorm.io/gorm"

	"concierge/memory"
)

// redactNoteTx removes the text of the notes in ids from every JSON payload
// of the user's audit events and consolidation reports, and then from every
// copy the chat made: the prompt snapshots (instructions, messages and
// response as sent), the summaries of dropped turns, and the transcript's
// tool-call records (the assistant's save_memory_note arguments, tool
// results and the assistant's own words).
// What the traveler typed stays in the transcript until the conversation is
// deleted. The texts to remove are every version the trail recorded of each
// note, read before the payloads are blanked.
func (s *Store) redactNoteTx(tx *gorm.DB, userID string, ids map[string]bool) error {
	var events []AuditEvent
	if err := tx.Where("user_id = ?", userID).Find(&events).Error; err != nil {
		return err
	}
	texts := map[string]bool{}
	noteIDs := make([]string, 0, len(ids))
	for id := range ids {
		noteIDs = append(noteIDs, id)
	}
	var versions []NoteVersion
	if err := tx.Where("note_id IN ?", noteIDs).Find(&versions).Error; err != nil {
		return err
	}
	for _, v := range versions {
		texts[v.Text] = true
	}
	var current []Note
	if err := tx.Where("id IN ? AND user_id = ?", noteIDs, userID).Find(&current).Error; err != nil {
		return err
	}
	for _, n := range current {
		texts[n.Text] = true
	}
	for _, ev := range events {
		collectNoteTexts(ev.Before, ids, texts)
		collectNoteTexts(ev.After, ids, texts)
	}
	var reports []ConsolidationReport
	if err := tx.Where("user_id = ?", userID).Find(&reports).Error; err != nil {
		return err
	}
	for _, r := range reports {
		collectNoteTexts(r.Report, ids, texts)
	}
	for _, ev := range events {
		before, b1 := redactJSON(ev.Before, ids)
		after, b2 := redactJSON(ev.After, ids)
		upd := map[string]any{"before": before, "after": after}
		if ids[ev.NoteID] && ev.ActorKind == ActorConsolidation && ev.Reason != "" {
			// A model engine's free-text reason may quote the note.
			upd["reason"], b1 = DeletedText, true
		}
		if b1 || b2 {
			if err := tx.Model(&AuditEvent{}).Where("id = ?", ev.ID).Updates(upd).Error; err != nil {
				return err
			}
		}
	}
	for _, r := range reports {
		if red, changed := redactJSON(r.Report, ids); changed {
			if err := tx.Model(&ConsolidationReport{}).Where("id = ?", r.ID).Update("report", red).Error; err != nil {
				return err
			}
		}
	}
	return s.redactChatCopiesTx(tx, userID, ids, texts)
}

// redactChatCopiesTx replaces the deleted notes' texts (as written and as
// the prompt neutralised them) with DeletedText in the user's prompt
// snapshots and in the assistant and tool messages of their transcripts, and
// blanks the arguments of every save_memory_note call that created one of
// the notes (found by its tool result, which names the note's id).
func (s *Store) redactChatCopiesTx(tx *gorm.DB, userID string, ids, texts map[string]bool) error {
	r := redactor{calls: map[string]bool{}}
	for t := range texts {
		if t == "" || t == DeletedText {
			continue
		}
		r.needles = append(r.needles, t)
		if n := memory.Neutralize(t); n != t && n != "" {
			r.needles = append(r.needles, n)
		}
	}
	// Longest first, so a text containing another is replaced whole.
	sort.Slice(r.needles, func(i, j int) bool { return len(r.needles[i]) > len(r.needles[j]) })
	var msgs []Message
	if err := tx.Where("user_id = ? AND role <> ?", userID, string(memory.RoleUser)).Find(&msgs).Error; err != nil {
		return err
	}
	for _, m := range msgs {
		var res struct {
			ID string `json:"id"`
		}
		if m.Role == string(memory.RoleTool) && json.Unmarshal([]byte(m.Content), &res) == nil && ids[res.ID] {
			r.calls[m.ToolCallID] = true
		}
	}
	if len(r.needles) == 0 && len(r.calls) == 0 {
		return nil
	}
	for _, m := range msgs {
		content, toolCalls := r.text(m.Content), r.json(m.ToolCalls)
		if content != m.Content || toolCalls != m.ToolCalls {
			if err := tx.Model(&Message{}).Where("id = ?", m.ID).Updates(map[string]any{"content": content, "tool_calls": toolCalls}).Error; err != nil {
				return err
			}
		}
	}
	// A summary of dropped turns may restate the note.
	var sessions []ChatSession
	if err := tx.Select("id", "summary").Where("user_id = ? AND summary <> ''", userID).Find(&sessions).Error; err != nil {
		return err
	}
	for _, cs := range sessions {
		if red := r.text(cs.Summary); red != cs.Summary {
			if err := tx.Model(&ChatSession{}).Where("id = ?", cs.ID).Update("summary", red).Error; err != nil {
				return err
			}
		}
	}
	var snaps []TurnSnapshot
	if err := tx.Select("id", "instructions", "messages", "response").Where("user_id = ?", userID).Find(&snaps).Error; err != nil {
		return err
	}
	for _, sn := range snaps {
		instr, sent, resp := r.text(sn.Instructions), r.json(sn.Messages), r.json(sn.Response)
		if instr != sn.Instructions || sent != sn.Messages || resp != sn.Response {
			if err := tx.Model(&TurnSnapshot{}).Where("id = ?", sn.ID).
				Updates(map[string]any{"instructions": instr, "messages": sent, "response": resp}).Error; err != nil {
				return err
			}
		}
	}
	return nil
}

// redactor rewrites chat records: needles are texts to replace, calls the
// ids of tool calls whose arguments go.
type redactor struct {
	needles []string
	calls   map[string]bool
}

func (r redactor) text(s string) string {
	for _, n := range r.needles {
		if strings.Contains(s, n) {
			s = strings.ReplaceAll(s, n, DeletedText)
		}
	}
	return s
}

// json rewrites a JSON document (a string that is not one is treated as
// text): every string in it, JSON held inside strings (tool arguments)
// included, and the arguments of the calls in r.calls.
func (r redactor) json(doc string) string {
	if doc == "" {
		return doc
	}
	var v any
	if err := json.Unmarshal([]byte(doc), &v); err != nil {
		return r.text(doc)
	}
	out, changed := r.walk(v)
	if !changed {
		return doc
	}
	b, err := json.Marshal(out)
	if err != nil {
		return r.text(doc)
	}
	return string(b)
}

func (r redactor) walk(x any) (any, bool) {
	switch t := x.(type) {
	case string:
		if trimmed := strings.TrimSpace(t); strings.HasPrefix(trimmed, "{") || strings.HasPrefix(trimmed, "[") {
			if red := r.json(t); red != t {
				return red, true
			}
			return t, false
		}
		red := r.text(t)
		return red, red != t
	case map[string]any:
		changed := false
		if id, ok := t["id"].(string); ok && r.calls[id] {
			if _, ok := t["arguments"]; ok {
				t["arguments"] = `{"text":"` + DeletedText + `","keywords":[]}`
				changed = true
			}
		}
		for k, c := range t {
			if red, ch := r.walk(c); ch {
				t[k], changed = red, true
			}
		}
		return t, changed
	case []any:
		changed := false
		for i, c := range t {
			if red, ch := r.walk(c); ch {
				t[i], changed = red, true
			}
		}
		return t, changed
	}
	return x, false
}

// collectNoteTexts adds to texts the "text" of every object in a JSON
// document whose "id" is in ids (a note as an audit payload or a report
// recorded it).
func collectNoteTexts(doc string, ids, texts map[string]bool) {
	if doc == "" {
		return
	}
	var v any
	if json.Unmarshal([]byte(doc), &v) != nil {
		return
	}
	var walk func(any)
	walk = func(x any) {
		switch t := x.(type) {
		case map[string]any:
			if id, ok := t["id"].(string); ok && ids[id] {
				if text, ok := t["text"].(string); ok {
					texts[text] = true
				}
			}
			for _, c := range t {
				walk(c)
			}
		case []any:
			for _, c := range t {
				walk(c)
			}
		}
	}
	walk(v)
}

// DeletedText replaces the text of a deleted note wherever it was recorded.
const DeletedText = "(deleted note)"

// redactJSON walks a JSON document and blanks the text and keywords of every
// object whose "id" is in ids, and the "why" of every decision about or into
// such a note. It reports whether anything changed.
func redactJSON(doc string, ids map[string]bool) (string, bool) {
	if doc == "" {
		return doc, false
	}
	var v any
	if err := json.Unmarshal([]byte(doc), &v); err != nil {
		return doc, false
	}
	changed := false
	matches := func(x any) bool {
		id, ok := x.(string)
		return ok && ids[id]
	}
	var walk func(any)
	walk = func(x any) {
		switch t := x.(type) {
		case map[string]any:
			if matches(t["id"]) {
				if _, ok := t["text"]; ok {
					t["text"] = DeletedText
					changed = true
				}
				if _, ok := t["keywords"]; ok {
					t["keywords"] = []string{}
					changed = true
				}
			}
			if note, ok := t["note"].(map[string]any); ok && (matches(note["id"]) || matches(t["into"])) {
				if why, ok := t["why"].(string); ok && why != DeletedText {
					t["why"] = DeletedText
					changed = true
				}
				if matches(t["into"]) && !matches(note["id"]) {
					note["text"], note["keywords"], changed = DeletedText, []string{}, true
				}
			}
			for _, c := range t {
				walk(c)
			}
		case []any:
			for _, c := range t {
				walk(c)
			}
		}
	}
	walk(v)
	if !changed {
		return doc, false
	}
	b, _ := json.Marshal(v)
	return string(b), true
}
