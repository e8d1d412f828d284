package memory

// Scope says how long a note is meant to live.
type Scope string

// The scopes a note can have.
const (
	// ScopeDurable marks a note that should become a long-term default.
	ScopeDurable Scope = "durable"
	// ScopeThisTrip marks a note that only holds for the current trip.
	ScopeThisTrip Scope = "this_trip"
)

// Source says who wrote a note.
type Source string

// The sources a note can come from.
const (
	SourceSeed          Source = "seed"
	SourceAssistant     Source = "assistant"
	SourceStaff         Source = "staff"
	SourceConsolidation Source = "consolidation"
	SourceImport        Source = "import"
	SourceTraveler      Source = "traveler" // written by the traveler in their own words
)

// DateLayout is the layout of every date a note carries (ISO YYYY-MM-DD).
const DateLayout = "2006-01-02"

// Note is one remembered sentence about a traveler, global or session-scoped.
type Note struct {
	ID             string   `json:"id"`
	Text           string   `json:"text"`
	Keywords       []string `json:"keywords"`
	Scope          Scope    `json:"scope"`
	LastUpdateDate string   `json:"last_update_date"` // YYYY-MM-DD
	Pinned         bool     `json:"pinned"`
	Source         Source   `json:"source"`
	// ExpiresOn is an optional YYYY-MM-DD after which the note is forgotten.
	ExpiresOn string `json:"expires_on,omitempty"`
}

// Profile is the traveler's structured, trusted profile (a JSON object).
type Profile map[string]any

// Trip is one of the traveler's trips (see trip.go).
type Trip struct {
	ID          string     `json:"id,omitempty"`
	Name        string     `json:"name,omitempty"` // the traveler's name for it; empty: its destination
	Destination string     `json:"destination,omitempty"`
	Route       string     `json:"route,omitempty"`
	StartDate   string     `json:"start_date"`
	EndDate     string     `json:"end_date"`
	Travellers  int        `json:"travellers,omitempty"`
	Purpose     string     `json:"purpose"`
	Budget      string     `json:"budget,omitempty"`
	Status      TripStatus `json:"status,omitempty"`
	ExternalID  string     `json:"external_id,omitempty"`
	Flight      string     `json:"flight,omitempty"`
	Hotel       string     `json:"hotel,omitempty"`
}

// State is the one authoritative picture of a traveler that is rendered into
// the instructions on every model call.
type State struct {
	Profile Profile
	Global  []Note // active global notes
	Session []Note // this session's notes
	Trips   []Trip // most recent travelled trips, most recent first
	// Trip is the conversation's trip (nil: none), TripNotes its notes,
	// OpenTrips the traveler's planning and booked trips in handle order.
	Trip      *Trip
	TripNotes []Note
	OpenTrips []Trip
}

// Role is the author of a chat message.
type Role string

// The roles a chat message can have.
const (
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
	RoleTool      Role = "tool"
)

// ToolCall is one function call requested by the model.
type ToolCall struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"` // raw JSON as the model produced it
}

// Message is one item of a chat transcript as the model sees it.
type Message struct {
	Role       Role       `json:"role"`
	Content    string     `json:"content"`
	ToolCalls  []ToolCall `json:"tool_calls,omitempty"`
	ToolCallID string     `json:"tool_call_id,omitempty"`
	Turn       int        `json:"turn"`
}

// Tool describes one function the model may call (name, description and a
// JSON schema for its arguments).
type Tool struct {
	Name        string         `json:"name"`
	Description string         `json:"description"`
	Parameters  map[string]any `json:"parameters"`
}

// SaveNoteToolName is the name of the only tool the chat model is given.
const SaveNoteToolName = "save_memory_note"

// SearchToolName is the tool that searches the trimmed part of the
// current conversation (memory/longchat).
const SearchToolName = "search_conversation"

// SaveNoteArgs are the arguments of a save_memory_note call.
type SaveNoteArgs struct {
	Text     string   `json:"text"`
	Keywords []string `json:"keywords"`
	Scope    Scope    `json:"scope"`
	// ExpiresOn is the day after which the fact no longer holds
	// (YYYY-MM-DD), or "" when it lasts; the notes service validates it.
	ExpiresOn string `json:"expires_on,omitempty"`
}

// TokenCounter counts the tokens a text costs with one model's tokenizer.
type TokenCounter interface {
	Count(text string) int
}
