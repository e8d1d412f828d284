package handlers

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"concierge/memory"
	"concierge/memory/consolidate"
	"concierge/models"
	"concierge/views"
	"concierge/views/locale"
)

// This file turns stored chat data into the traveler's view models.

// travelerDate is the day of t as YYYY-MM-DD, which the page writes in
// the traveler's language (views.Day).
func travelerDate(t time.Time) string { return t.Format(memory.DateLayout) }

// travelerDay checks a YYYY-MM-DD date for the page (views.Day), and
// leaves anything else as it is.
func travelerDay(day string) string {
	t, err := time.Parse(memory.DateLayout, day)
	if err != nil {
		return day
	}
	return travelerDate(t)
}

// chatTitle is the conversation's name; "" until it has one, which the
// page shows as "New conversation" in the traveler's language
// (views.Untitled).
func chatTitle(cs *models.ChatSession) string { return cs.Title }

func chatSessionItems(sessions []models.ChatSession, current string) []views.ChatSessionItem {
	out := make([]views.ChatSessionItem, len(sessions))
	for i := range sessions {
		cs := &sessions[i]
		out[i] = views.ChatSessionItem{ID: cs.ID, Title: chatTitle(cs), When: travelerDate(cs.CreatedAt),
			Open: cs.Status == models.SessionOpen, Current: cs.ID == current}
	}
	return out
}

// chatChip is how a saved note shows under its turn.
func chatChip(sessionID string, n memory.Note, locked bool) views.MemoryChip {
	return views.MemoryChip{SessionID: sessionID, NoteID: n.ID, Text: n.Text, ThisTrip: n.Scope == memory.ScopeThisTrip, Locked: locked}
}

// chatTranscript is the conversation as people had it: user messages and
// final answers (tool traffic left out), each answer with the notes saved
// during its turn. pending says that the last message awaits its answer.
func chatTranscript(cs *models.ChatSession, msgs []models.Message, notes []models.Note) (out []views.ChatBubble, pending bool) {
	open := cs.Status == models.SessionOpen
	byMessage := map[string][]views.MemoryChip{}
	for i := range notes {
		n := &notes[i]
		if m := models.ForgottenMessage(n); m != "" {
			byMessage[m] = append(byMessage[m], forgotChip(cs.ID, n.Domain(), !open))
			continue
		}
		byMessage[n.MessageID] = append(byMessage[n.MessageID], chatChip(cs.ID, n.Domain(), !open))
	}
	lastUser, lastUserID := -1, ""
	for _, m := range msgs {
		switch {
		case m.Role == string(memory.RoleUser):
			if lastUser >= 0 {
				out[lastUser].Missed = true // a later message came before any answer
			}
			out = append(out, views.ChatBubble{Text: m.Content, Turn: m.Turn})
			lastUser, lastUserID = len(out)-1, m.ID
		case m.Role == string(memory.RoleAssistant) && m.ToolCalls == "" && lastUser >= 0:
			out = append(out, views.ChatBubble{Assistant: true, Text: m.Content, Turn: m.Turn, Chips: byMessage[lastUserID]})
			lastUser = -1
		}
	}
	if lastUser >= 0 {
		if open {
			return out, true
		}
		out[lastUser].Missed = true
	}
	return out, false
}

// answerBubble is the final form of a freshly streamed answer.
func answerBubble(sessionID string, turn int, reply string, saved, forgotten []memory.Note, blocked []string) views.ChatBubble {
	b := views.ChatBubble{Assistant: true, Text: reply, Turn: turn, Blocked: blocked}
	for _, n := range saved {
		b.Chips = append(b.Chips, chatChip(sessionID, n, false))
	}
	for _, n := range forgotten {
		b.Chips = append(b.Chips, forgotChip(sessionID, n, false))
	}
	return b
}

// forgotChip is how a note forgotten on request shows under its turn.
func forgotChip(sessionID string, n memory.Note, locked bool) views.MemoryChip {
	return views.MemoryChip{SessionID: sessionID, NoteID: n.ID, Text: n.Text, Forgotten: true, Locked: locked}
}

// travelerSource is the message id that says in plain words where a note
// came from ("From your account set-up").
func travelerSource(src memory.Source) string {
	switch src {
	case memory.SourceSeed, memory.SourceAssistant, memory.SourceConsolidation, memory.SourceStaff, memory.SourceImport, memory.SourceTraveler:
		return "source." + string(src)
	}
	return "source.other"
}

func travelerNotes(notes []memory.Note) []views.TravelerNote {
	out := make([]views.TravelerNote, len(notes))
	for i, n := range notes {
		out[i] = views.TravelerNote{ID: n.ID, Text: n.Text, Date: travelerDay(n.LastUpdateDate), Source: travelerSource(n.Source),
			Pinned: n.Pinned, ThisTrip: n.Scope == memory.ScopeThisTrip, ExpiresOn: n.ExpiresOn}
	}
	return out
}

// fillOutcome sorts the decisions of a consolidation report into what the
// traveler is told: added, merged or replaced, kept for this trip, not
// stored. notes are the conversation's own notes, to tell them from older
// global notes the run also decided on.
func fillOutcome(out *views.ChatOutcome, report string, notes []models.Note) error {
	var rep models.ReportJSON
	if err := json.Unmarshal([]byte(report), &rep); err != nil {
		return fmt.Errorf("read consolidation report: %w", err)
	}
	fromSession := map[string]bool{}
	for _, n := range notes {
		fromSession[n.ID] = true
	}
	textOf := map[string]string{}
	for _, n := range rep.GlobalNotes {
		textOf[n.ID] = n.Text
	}
	for _, d := range rep.Decisions {
		line := views.OutcomeLine{Text: d.Note.Text}
		into := textOf[d.Into]
		switch {
		case !fromSession[d.Note.ID]:
			// An older global note the run replaced or forgot.
			switch d.Action {
			case consolidate.ActionSuperseded:
				line.Detail = "replaced"
				if into != "" {
					line.Detail = "replaced by “" + into + "”"
				}
				out.Merged = append(out.Merged, line)
			case consolidate.ActionExpired:
				line.Detail = "forgotten: it had expired"
				out.NotStored = append(out.NotStored, line)
			case consolidate.ActionPruned:
				line.Detail = "forgotten: too many notes, this was the stalest"
				out.NotStored = append(out.NotStored, line)
			}
		case d.Action == consolidate.ActionPromoted:
			out.Added = append(out.Added, line)
		case d.Action == consolidate.ActionMerged:
			if into != "" {
				line.Detail = "merged with “" + into + "”"
			} else {
				line.Detail = "already known"
			}
			out.Merged = append(out.Merged, line)
		case d.Action == consolidate.ActionDroppedDuplicate:
			line.Detail = "said twice, kept once"
			out.Merged = append(out.Merged, line)
		case d.Action == consolidate.ActionDroppedTrip:
			out.TripOnly = append(out.TripOnly, line)
		case d.Action == consolidate.ActionSuperseded:
			line.Detail = "a more recent note says otherwise"
			out.NotStored = append(out.NotStored, line)
		default: // refused, or anything a newer engine may add
			line.Detail = "not something Concierge keeps"
			out.NotStored = append(out.NotStored, line)
		}
	}
	return nil
}

// profileLabels names the profile fields travelers know, in display
// order; the labels are message ids.
var profileLabels = []struct{ key, label string }{
	{"name", "profile.name"},
	{"home_city", "profile.home_city"},
	{"home_airport", "profile.home_airport"},
	{"currency", "profile.currency"},
	{"seat_preference", "profile.seat_preference"},
	{"preferred_tone", "profile.preferred_tone"},
	{"loyalty_programs", "profile.loyalty_programs"},
	{"visas", "profile.visas"},
	{"passport_expiry", "profile.passport_expiry"},
	{"insurance", "profile.insurance"},
}

// highlightKeys are the profile fields the chat's side panel shows.
var highlightKeys = map[string]bool{"name": true, "home_city": true, "currency": true, "seat_preference": true, "preferred_tone": true, "loyalty_programs": true}

// travelerOrder sorts long-term notes (stored oldest first) the one way
// the traveler sees them, on the memory page and in the chat's panel:
// pinned (safety) notes first, then the most recently updated.
func travelerOrder[N any](notes []N, pinned func(N) bool) {
	slices.Reverse(notes)
	slices.SortStableFunc(notes, func(a, b N) int {
		switch pa, pb := pinned(a), pinned(b); {
		case pa == pb:
			return 0
		case pa:
			return -1
		}
		return 1
	})
}

// withOverrides marks the profile facts a note overrides (the memory
// policy lets a note override a field; the assistant follows the note),
// naming the note. notes are in the order they win: the conversation's
// own first, then the long-term ones in travelerOrder.
func withOverrides(facts []views.TravelerFact, p memory.Profile, notes []memory.Note) []views.TravelerFact {
	for _, o := range memory.ProfileOverrides(p, notes) {
		for i := range facts {
			if facts[i].Key == o.Field {
				facts[i].OverriddenBy = o.Note.Text
			}
		}
	}
	return facts
}

// domainRows are stored notes as the domain speaks of them.
func domainRows(rows []models.Note) []memory.Note {
	out := make([]memory.Note, len(rows))
	for i := range rows {
		out[i] = rows[i].Domain()
	}
	return out
}

// profileHighlights is the short profile of the chat's side panel.
func profileHighlights(l *locale.Localizer, p memory.Profile) []views.TravelerFact {
	var out []views.TravelerFact
	for _, f := range profileLabels {
		if v, ok := p[f.key]; ok && highlightKeys[f.key] {
			if s := profileValue(l, f.key, v); s != "" {
				out = append(out, views.TravelerFact{Key: f.key, Label: f.label, Value: s})
			}
		}
	}
	return out
}

// profileFacts is the whole profile without identifiers: known fields
// first, then any other field under a label made from its key.
func profileFacts(l *locale.Localizer, p memory.Profile) []views.TravelerFact {
	var out []views.TravelerFact
	known := map[string]bool{}
	for _, f := range profileLabels {
		known[f.key] = true
		if v, ok := p[f.key]; ok {
			if s := profileValue(l, f.key, v); s != "" {
				out = append(out, views.TravelerFact{Key: f.key, Label: f.label, Value: s})
			}
		}
	}
	var rest []string
	for k := range p {
		if !known[k] && !memory.IsPrivateField(k) && strings.TrimSpace(k) != "" {
			rest = append(rest, k)
		}
	}
	sort.Strings(rest)
	for _, k := range rest {
		if s := profileValue(l, k, p[k]); s != "" {
			out = append(out, views.TravelerFact{Label: capitalize(strings.ReplaceAll(k, "_", " ")), Value: s})
		}
	}
	return out
}

// profileValue renders one profile value in words of l's language,
// leaving identifiers out.
func profileValue(l *locale.Localizer, key string, v any) string {
	switch t := v.(type) {
	case nil:
		return ""
	case string:
		if key == "seat_preference" {
			if id := "profile.seat." + strings.ReplaceAll(t, " ", "_"); l.T(id) != id {
				return l.T(id)
			}
		}
		if key == "seat_preference" || key == "preferred_tone" {
			return capitalize(t)
		}
		if _, err := time.Parse(memory.DateLayout, t); err == nil {
			return travelerDay(t)
		}
		return t
	case []any:
		parts := make([]string, 0, len(t))
		for _, x := range t {
			if s := profileValue(l, "", x); s != "" {
				parts = append(parts, s)
			}
		}
		return strings.Join(parts, "; ")
	case map[string]any:
		return profileObject(l, t)
	}
	return fmt.Sprint(v)
}

// profileObject renders a nested profile object: a loyalty programme as
// "programme status", a visa with its validity, anything else as
// "key: value" pairs — identifiers always left out — in l's language.
func profileObject(l *locale.Localizer, m map[string]any) string {
	str := func(k string) string { s, _ := m[k].(string); return s }
	switch {
	case str("program") != "":
		return strings.TrimSpace(str("program") + " " + str("status"))
	case str("type") != "":
		if until := str("valid_until"); until != "" && until != "n/a" {
			return l.T("profile.valid_until", "Type", str("type"), "Date", l.Day(until))
		}
		return str("type")
	case str("provider") != "":
		s := strings.TrimSpace(str("provider") + " " + str("plan"))
		if covers := profileValue(l, "", m["covers"]); covers != "" {
			s = l.T("profile.covers", "Plan", s, "Covers", strings.ReplaceAll(covers, ";", ","))
		}
		return s
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		if !memory.IsPrivateField(k) {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		if s := profileValue(l, k, m[k]); s != "" {
			parts = append(parts, strings.ToLower(views.FieldLabelIn(l, k))+": "+s)
		}
	}
	return strings.Join(parts, ", ")
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// untilDay is a note's end date for people ("31 March 2027"), "" for none.
func untilDay(date string) string {
	if date == "" {
		return ""
	}
	return memory.FormatExpiry(date)
}
