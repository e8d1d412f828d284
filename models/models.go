// Package models holds Concierge's persistent types, the ordered schema
// migrations, the Store that owns every query, and the demo seed.
package models

import (
	"encoding/json"
	"time"

	"concierge/memory/prompt"
)

// Role is what an account may do.
type Role string

// The roles an account can have.
const (
	RoleTraveler Role = "traveler"
	RoleSupport  Role = "support"
	RoleAdmin    Role = "admin"
)

// Valid reports whether r is one of the known roles.
func (r Role) Valid() bool {
	return r == RoleTraveler || r == RoleSupport || r == RoleAdmin
}

// IsStaff reports whether r may use the console.
func (r Role) IsStaff() bool { return r == RoleSupport || r == RoleAdmin }

// User is an account: a traveler, a support agent or an admin.
type User struct {
	ID           string `gorm:"primaryKey"`
	Email        string
	Name         string
	Role         Role
	PasswordHash string `json:"-"`
	// DisabledAt is when an admin disabled the account: it cannot sign in
	// and its sessions and tokens were revoked. Nil for an active account.
	DisabledAt *time.Time
	// Language is the account's choice of language for its pages (en, es,
	// ru), or "" to follow the browser.
	Language  string
	CreatedAt time.Time
	UpdatedAt time.Time
}

// Profile is a traveler's structured, trusted profile stored as a JSON object.
type Profile struct {
	UserID    string `gorm:"primaryKey"`
	Data      string // JSON object
	UpdatedAt time.Time
}

// Trip is one of a traveler's trips: planned over conversations, with its
// own notes (kind KindTrip), until it is travelled or cancelled.
type Trip struct {
	ID          string `gorm:"primaryKey"`
	UserID      string
	Name        string
	Destination string
	Route       string
	StartDate   string
	EndDate     string
	Travellers  int
	Purpose     string
	Budget      string
	Status      string
	ExternalID  *string
	Flight      string
	Hotel       string
	CreatedAt   time.Time
	UpdatedAt   *time.Time
	// NotesEndedAt is when the trip's notes were deleted because it ended.
	NotesEndedAt *time.Time
}

// Note kinds: a global note is long-term memory, a session note is a
// candidate captured during one chat session.
const (
	KindGlobal  = "global"
	KindSession = "session"
	KindTrip    = "trip" // a this_trip note of a trip (Note.TripID), injected in its conversations
)

// Note statuses.
const (
	StatusActive     = "active"
	StatusSuperseded = "superseded"
	StatusConsumed   = "consumed" // a session note whose fate consolidation decided
)

// Note is one memory note, global or session-scoped, with its provenance.
type Note struct {
	ID              string `gorm:"primaryKey"`
	UserID          string
	Kind            string
	Text            string
	Keywords        string // JSON array of strings
	Scope           string
	LastUpdateDate  string // YYYY-MM-DD
	Pinned          bool
	Source          string
	Status          string
	SupersededBy    string
	ExpiresOn       string
	SessionID       string // provenance: the chat session it came from
	MessageID       string // provenance: the message it came from
	ConsolidationID string // provenance: the consolidation run that last wrote it
	TripID          string // the trip a KindTrip note belongs to (migration 24)
	CreatedAt       time.Time
	UpdatedAt       time.Time
}

// NoteVersion is one entry of a note's history: its content after a change.
type NoteVersion struct {
	ID        string `gorm:"primaryKey"`
	NoteID    string
	UserID    string
	Version   int
	Text      string
	Keywords  string
	Pinned    bool
	Status    string
	Actor     string
	Reason    string
	CreatedAt time.Time
}

// Chat session statuses.
const (
	SessionOpen    = "open"
	SessionClosing = "closing"
	SessionClosed  = "closed"
)

// ChatSession is one conversation between a traveler and the assistant.
type ChatSession struct {
	ID             string `gorm:"primaryKey"`
	UserID         string
	Title          string
	Status         string
	LastActivityAt time.Time
	CloseReason    string
	ClosedAt       *time.Time
	CreatedAt      time.Time
	// AnsweringUntil is the lease of the instance answering this session's
	// last message; other instances wait for it to end.
	AnsweringUntil *time.Time
	// AnsweringBy is the token of that lease's holder: only it may append
	// to the transcript while the lease is held.
	AnsweringBy string
	// Summary condenses the turns that left the model's window, up to turn
	// SummaryThrough; it is never promoted to long-term memory.
	Summary        string
	SummaryThrough int
	SummaryTokens  int
	// TripID is the trip this conversation plans ("" for none); set once
	// (migration 24).
	TripID string
}

// Message is one item of a transcript: a user or assistant message or a tool result.
type Message struct {
	ID         string `gorm:"primaryKey"`
	SessionID  string
	UserID     string
	Seq        int
	Turn       int
	Role       string
	Content    string
	ToolCalls  string // JSON array, empty when none
	ToolCallID string
	Failed     bool // an assistant turn that did not complete
	CreatedAt  time.Time
	// IdempotencyKey is the client's key for a user message (nil: none);
	// unique per session, so a retried send never stores twice.
	IdempotencyKey *string
}

// TurnSnapshot is exactly what the model was sent on one round of one turn.
type TurnSnapshot struct {
	ID               string `gorm:"primaryKey"`
	SessionID        string
	UserID           string
	Turn             int
	Round            int
	Model            string
	Instructions     string
	Messages         string // JSON array as sent
	Response         string // JSON of what came back
	PromptTokens     int
	CompletionTokens int
	CreatedAt        time.Time
	// What the instructions carried, as prompt.BuildInstructions reported it
	// (migration 6): InjectedNotes is a JSON array of prompt.InjectedNote,
	// SectionTokens a JSON prompt.SectionTokens, MemoryInjected whether any
	// note went in, SessionBlock whether the SESSION block did. Older
	// snapshots have MemoryInjected backfilled and the JSON columns empty.
	InjectedNotes  string
	SectionTokens  string
	MemoryInjected bool
	SessionBlock   bool
	// InstructionsHead and InstructionsTail (migration 11) name the
	// prompt_texts the instructions start and end with, when they were
	// stored apart (ShareStatic); Instructions then holds what is between.
	// The store's readers of snapshots return the instructions whole.
	InstructionsHead string
	InstructionsTail string

	head, tail string // the texts ShareStatic set apart, until stored
}

// ShareStatic sets apart the first head and last tail bytes of the
// instructions, text the same for every traveler (prompt.Instructions'
// StaticHead and StaticTail), to be stored once for all snapshots.
func (sn *TurnSnapshot) ShareStatic(head, tail int) {
	if head < 0 || tail < 0 || head+tail > len(sn.Instructions) || sn.head != "" || sn.tail != "" {
		return
	}
	in := sn.Instructions
	sn.head, sn.Instructions, sn.tail = in[:head], in[head:len(in)-tail], in[len(in)-tail:]
}

// PromptText is a text that snapshots' instructions share, stored once
// under the hash of its content.
type PromptText struct {
	ID   string `gorm:"primaryKey"`
	Text string
}

// SetInjection records on the snapshot what its instructions carried.
func (sn *TurnSnapshot) SetInjection(in prompt.Instructions) {
	notes, _ := json.Marshal(in.Notes)
	if in.Notes == nil {
		notes = []byte("[]")
	}
	tokens, _ := json.Marshal(in.Tokens)
	sn.InjectedNotes, sn.SectionTokens = string(notes), string(tokens)
	sn.MemoryInjected, sn.SessionBlock = in.HasMemory(), in.Session
}

// Injection reads back what SetInjection recorded; ok is false for a
// snapshot written before the structure was stored.
func (sn *TurnSnapshot) Injection() (notes []prompt.InjectedNote, tokens prompt.SectionTokens, ok bool) {
	if sn.SectionTokens == "" || json.Unmarshal([]byte(sn.SectionTokens), &tokens) != nil ||
		json.Unmarshal([]byte(sn.InjectedNotes), &notes) != nil {
		return nil, prompt.SectionTokens{}, false
	}
	return notes, tokens, true
}

// Consolidation job statuses.
const (
	JobQueued  = "queued"
	JobRunning = "running"
	JobDone    = "done"
	JobFailed  = "failed"
)

// ConsolidationJob is a durable request to consolidate one closed session.
type ConsolidationJob struct {
	ID          string `gorm:"primaryKey"`
	SessionID   string
	UserID      string
	Status      string
	Attempts    int
	LockedBy    string
	LockedUntil time.Time
	Error       string
	CreatedAt   time.Time
	StartedAt   *time.Time
	FinishedAt  *time.Time
}

// ConsolidationReport records every decision one consolidation run made.
type ConsolidationReport struct {
	ID             string `gorm:"primaryKey"`
	JobID          string
	UserID         string
	SessionID      string
	Engine         string
	FallbackReason string
	Report         string // JSON
	CreatedAt      time.Time
}

// Actor kinds recorded in the audit trail.
const (
	ActorTraveler      = "traveler"
	ActorAssistant     = "assistant"
	ActorConsolidation = "consolidation"
	ActorSupport       = "support"
	ActorAdmin         = "admin"
	ActorSystem        = "system"
)

// AuditEvent records one change to a traveler's memory or profile.
type AuditEvent struct {
	ID              string `gorm:"primaryKey"`
	UserID          string // whose data changed
	ActorID         string
	ActorKind       string
	Action          string
	NoteID          string
	Reason          string
	Before          string // JSON payload, may hold note text
	After           string // JSON payload, may hold note text
	SessionID       string
	MessageID       string
	ConsolidationID string
	CreatedAt       time.Time
}

// Erasure request statuses.
const (
	ErasurePending = "pending"
	ErasureDone    = "done"
)

// ErasureRequest is a request to erase everything of one traveler; once done
// it keeps only a receipt without personal content.
type ErasureRequest struct {
	ID          string `gorm:"primaryKey"`
	UserID      string // emptied when executed
	RequestedBy string // actor kind: traveler or admin
	Status      string
	ExecutedBy  string
	Reason      string // one of the ErasureReasons codes, never free text
	Ticket      string // an opaque reference (CheckTicket), or empty
	Receipt     string // JSON: rows deleted per table
	CreatedAt   time.Time
	CompletedAt *time.Time
}

// APIToken is a bearer token for the JSON API; only its hash is stored.
type APIToken struct {
	ID         string `gorm:"primaryKey"`
	UserID     string
	Hash       string
	Label      string // the owner's name for it, or "" (issued by POST /api/v1/auth/token)
	Prefix     string // the token's first TokenPrefixLen characters, shown to recognise it
	ExpiresAt  time.Time
	CreatedAt  time.Time
	LastUsedAt *time.Time
}

// WebSession is a browser login; only the hash of the cookie value is stored.
type WebSession struct {
	ID        string `gorm:"primaryKey"` // hash of the cookie value
	UserID    string
	ExpiresAt time.Time
	CreatedAt time.Time
}

// BlockedWrite counts one refused memory write by category; the refused text
// is never stored.
type BlockedWrite struct {
	ID        string `gorm:"primaryKey"`
	UserID    string
	SessionID string
	Category  string
	CreatedAt time.Time
}
