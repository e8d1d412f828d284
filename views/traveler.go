package views

import (
	"context"
	"time"
)

// The view models of the traveler's pages: the chat and "What Concierge
// remembers". Handlers build them; the components in chat.templ and
// memory.templ only display them.

// ChatSessionItem is one conversation in the session list.
type ChatSessionItem struct {
	ID      string
	Title   string
	When    string // e.g. "3 Mar 2025"
	Open    bool
	Current bool
}

// MemoryChip is a note the assistant saved during a turn, shown under it.
type MemoryChip struct {
	SessionID string
	NoteID    string
	Text      string
	ThisTrip  bool // scoped to this trip rather than a long-term default
	Undone    bool // the traveler took it back
	Locked    bool // no longer undoable here (the conversation has ended)
	Forgotten bool // forgotten on the traveler's request: Undo restores it
	Restored  bool // a forgotten note the traveler brought back
}

// ChatBubble is one message of the conversation.
type ChatBubble struct {
	Assistant bool
	Text      string // as written; assistant text is rendered as Markdown
	Turn      int
	Chips     []MemoryChip
	Blocked   []string // refusal categories of the turn's refused writes
	Missed    bool     // a user message that never got an answer
}

// ChatView is the chat page: the session list and, when one is chosen, the
// conversation, the memory panel and, once it ended, the outcome.
type ChatView struct {
	Sessions  []ChatSessionItem
	SessionID string // empty on the landing page
	Title     string
	Open      bool
	Messages  []ChatBubble
	Pending   bool // the last message awaits its answer: stream it
	Panel     ChatPanel
	Outcome   *ChatOutcome
	Notice    string // a status line, e.g. after deleting a conversation
	// MessageKey is the Idempotency-Key of the next message the composer
	// sends (static/chat.js makes a new one after each stored message).
	MessageKey string
}

// TravelerFact is one line of the profile as the traveler sees it.
type TravelerFact struct {
	Key, Label, Value string
	// OverriddenBy is the text of the note the assistant follows instead
	// of this field, or "".
	OverriddenBy string
}

// TravelerNote is a remembered note as the traveler sees it.
type TravelerNote struct {
	ID       string
	Text     string
	Date     string // last update, e.g. "2 Mar 2025"
	Source   string // in plain words: "Saved from a conversation"
	Pinned   bool
	ThisTrip bool
	From     *NoteOrigin // the conversation it came from, when there is one
	// EditedBy is who rewrote the text since ("support", "you"), or "".
	EditedBy string
	// ExpiresOn is the last day the note holds (YYYY-MM-DD), "" for none;
	// the component writes it in the request's language.
	ExpiresOn string
}

// NoteOrigin is the conversation and message a note came from.
type NoteOrigin struct {
	SessionID string // empty when the conversation was deleted
	Title     string
	Date      string // when the conversation started
	Quote     string // what the traveler said, shortened; empty if unknown
}

// TripNote is a note the open conversation staged, with what will become of
// it when the conversation ends.
type TripNote struct {
	ID        string
	Text      string
	SessionID string
	Session   string // the conversation's title
	ThisTrip  bool   // dropped at the end; otherwise offered to long-term memory
}

// ChatPanel is the side panel: what the assistant knows right now, and the
// trip the conversation plans.
type ChatPanel struct {
	SessionID string
	CSRF      string
	Profile   []TravelerFact
	Global    []TravelerNote
	Session   []TravelerNote
	Ended     bool
	Trip      *TravelerTrip  // the conversation's trip, nil for none
	OpenTrips []TravelerTrip // the traveler's planning and booked trips, for the picker
}

// TripID is the id of the conversation's trip, "" for none.
func (p ChatPanel) TripID() string {
	if p.Trip == nil {
		return ""
	}
	return p.Trip.ID
}

// OutcomeLine is one note's fate at the end of a conversation.
type OutcomeLine struct {
	Text   string
	Detail string // e.g. "merged with “Prefers aisle seats.”"
}

// ChatOutcome is what ending a conversation did to the traveler's memory.
type ChatOutcome struct {
	SessionID string
	CSRF      string
	Status    string // queued, running, done or failed
	Added     []OutcomeLine
	Merged    []OutcomeLine // merged into or replacing what was known
	TripOnly  []OutcomeLine
	NotStored []OutcomeLine
}

// Working reports whether the consolidation is still to be done.
func (o *ChatOutcome) Working() bool { return o.Status == "queued" || o.Status == "running" }

// Empty reports whether the conversation left nothing to decide.
func (o *ChatOutcome) Empty() bool {
	return len(o.Added)+len(o.Merged)+len(o.TripOnly)+len(o.NotStored) == 0
}

// RemembersView is the "What Concierge remembers" page.
type RemembersView struct {
	Profile []TravelerFact
	Notes   []TravelerNote // pinned first, then most recently updated
	Trip    []TripNote     // staged by open conversations
	Trips   []TravelerTrip // the traveler's trips, newest first
	Erasure *ErasureStatus
}

// TravelerTrip is one trip on the memory page: what it is, its notes and
// the conversations that planned it. The component writes the dates, the
// status and a missing name in the request's language.
type TravelerTrip struct {
	ID, Destination string
	Name            string // "" while the trip has no name, destination or route
	// StartDate and EndDate are YYYY-MM-DD, "" when not set.
	StartDate, EndDate string
	Status             string // a memory.TripStatus: planning, booked, travelled, cancelled
	Open               bool   // planning or booked: can be cancelled
	Notes              []string
	Conversations      []TripConversation
}

// TripConversation links a conversation of a trip; Title is "" while it
// has none.
type TripConversation struct {
	ID, Title string
	// Started tells conversations with the same title apart.
	Started time.Time
}

// NoteForm is the add-a-note form or a note's edit form, with what the
// traveler typed.
type NoteForm struct {
	NoteID string // empty: adding
	Text   string
}

// ErasureStatus is the traveler's pending request to erase their account.
type ErasureStatus struct {
	Requested string // date of the request
}

// blockedCategories are the guard's categories a traveler is told about
// in their own words (blocked.<category>); any other reads blocked.other.
var blockedCategories = map[string]bool{
	"ssn": true, "payment_card": true, "iban": true, "passport_number": true, "date_of_birth": true,
	"street_address": true, "secret": true, "booking_reference": true, "account_number": true,
	"instruction": true, "phone": true, "email": true, "session_cap": true, "user_cap": true,
}

// BlockedNoticeID is the message id that says, without the refused text,
// why a note was not saved.
func BlockedNoticeID(category string) string {
	if blockedCategories[category] {
		return "blocked." + category
	}
	return "blocked.other"
}

// CategoryNameID is the message id of a guard category's name, for the
// memory health chart's legend (category.<name>, or category.other).
func CategoryNameID(category string) string {
	if blockedCategories[category] || category == "unsupported_language" || category == "too_long" || category == "bad_format" || category == "bad_keywords" || category == "guess" || category == "sensitive_data" || category == "bad_encoding" {
		return "category." + category
	}
	return "category.other"
}

// BlockedNotice is BlockedNoticeID's message in the request's language.
func BlockedNotice(ctx context.Context, category string) string {
	return T(ctx, BlockedNoticeID(category))
}

// tripName is the trip's name, or "Unnamed trip" in the request's language.
func tripName(ctx context.Context, t TravelerTrip) string {
	if t.Name == "" {
		return T(ctx, "trips.untitled")
	}
	return t.Name
}

// tripDates are the trip's days in the request's language: both, the
// first only, or that none is set.
func tripDates(ctx context.Context, t TravelerTrip) string {
	switch {
	case t.StartDate != "" && t.EndDate != "":
		return T(ctx, "trips.dates", "Start", Day(ctx, t.StartDate), "End", Day(ctx, t.EndDate))
	case t.StartDate != "":
		return T(ctx, "trips.from", "Start", Day(ctx, t.StartDate))
	}
	return T(ctx, "trips.no_dates")
}
