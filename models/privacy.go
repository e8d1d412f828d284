package models

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"concierge/memory"
)

// Export is everything Concierge holds about one user, as JSON.
type Export struct {
	ExportedAt        time.Time           `json:"exported_at"`
	User              ExportUser          `json:"user"`
	Profile           memory.Profile      `json:"profile"`
	Notes             []ExportNote        `json:"notes"`
	NoteHistory       []ExportNoteVersion `json:"note_history"`
	Snapshots         []ExportSnapshot    `json:"prompt_snapshots"`
	Trips             []memory.Trip       `json:"trips"`
	Sessions          []ExportSession     `json:"sessions"`
	Reports           []json.RawMessage   `json:"consolidation_reports"`
	Audit             []ExportAudit       `json:"audit_events"`
	Erasure           []ExportErasure     `json:"erasure_requests"`
	BlockedByCategory map[string]int      `json:"blocked_writes_by_category"`
	Review            []ExportReview      `json:"review_items"`
}

// ExportReview is one review queue item about the user, open or resolved.
type ExportReview struct {
	ID         string     `json:"id"`
	Kind       string     `json:"kind"`
	Status     string     `json:"status"`
	SessionID  string     `json:"session_id,omitempty"`
	Turn       int        `json:"turn,omitempty"`
	NoteID     string     `json:"note_id,omitempty"`
	Category   string     `json:"category,omitempty"`
	Field      string     `json:"field,omitempty"`
	Proposed   string     `json:"proposed,omitempty"`
	CreatedAt  time.Time  `json:"created_at"`
	ResolvedAt *time.Time `json:"resolved_at,omitempty"`
	Action     string     `json:"action,omitempty"`
	Reason     string     `json:"reason,omitempty"`
}

// ExportUser is the account part of an export.
type ExportUser struct {
	ID        string    `json:"id"`
	Email     string    `json:"email"`
	Name      string    `json:"name"`
	Role      Role      `json:"role"`
	CreatedAt time.Time `json:"created_at"`
}

// ExportNote is a note with its kind, status and provenance.
type ExportNote struct {
	memory.Note
	Kind      string    `json:"kind"`
	Status    string    `json:"status"`
	SessionID string    `json:"session_id,omitempty"`
	TripID    string    `json:"trip_id,omitempty"`
	CreatedAt time.Time `json:"created_at"`
}

// ExportNoteVersion is one earlier or current version of a note.
type ExportNoteVersion struct {
	NoteID    string    `json:"note_id"`
	Version   int       `json:"version"`
	Text      string    `json:"text"`
	Keywords  string    `json:"keywords"`
	Pinned    bool      `json:"pinned"`
	Status    string    `json:"status"`
	Actor     string    `json:"actor"`
	Reason    string    `json:"reason,omitempty"`
	CreatedAt time.Time `json:"created_at"`
}

// ExportSnapshot is what the model was sent on one round of one turn.
type ExportSnapshot struct {
	SessionID    string          `json:"session_id"`
	Turn         int             `json:"turn"`
	Round        int             `json:"round"`
	Model        string          `json:"model"`
	Instructions string          `json:"instructions"`
	Messages     json.RawMessage `json:"messages"`
	Response     json.RawMessage `json:"response"`
	CreatedAt    time.Time       `json:"created_at"`
}

// ExportSession is a chat session with its transcript.
type ExportSession struct {
	ID        string          `json:"id"`
	Title     string          `json:"title"`
	Status    string          `json:"status"`
	CreatedAt time.Time       `json:"created_at"`
	Messages  []ExportMessage `json:"messages"`
}

// ExportMessage is one transcript entry.
type ExportMessage struct {
	Role      string    `json:"role"`
	Content   string    `json:"content"`
	Turn      int       `json:"turn"`
	CreatedAt time.Time `json:"created_at"`
}

// ExportAudit is one audit event about the user.
type ExportAudit struct {
	At     time.Time `json:"at"`
	Actor  string    `json:"actor"`
	Action string    `json:"action"`
	NoteID string    `json:"note_id,omitempty"`
	Reason string    `json:"reason,omitempty"`
}

// ExportErasure is one erasure request of the user.
type ExportErasure struct {
	ID        string    `json:"id"`
	Status    string    `json:"status"`
	CreatedAt time.Time `json:"created_at"`
}

// ExportUserData gathers all of a user's data.
func (s *Store) ExportUserData(ctx context.Context, userID string) (*Export, error) {
	u, err := s.UserByID(ctx, userID)
	if err != nil {
		return nil, err
	}
	out := &Export{ExportedAt: s.now(), User: ExportUser{ID: u.ID, Email: u.Email, Name: u.Name, Role: u.Role, CreatedAt: u.CreatedAt},
		BlockedByCategory: map[string]int{}}
	if out.Profile, err = s.Profile(ctx, userID); err != nil {
		return nil, err
	}
	db := s.db.WithContext(ctx)
	var notes []Note
	if err := db.Where("user_id = ?", userID).Order("created_at, id").Find(&notes).Error; err != nil {
		return nil, fmt.Errorf("models: export notes: %w", err)
	}
	out.Notes = make([]ExportNote, len(notes))
	for i := range notes {
		out.Notes[i] = ExportNote{Note: notes[i].Domain(), Kind: notes[i].Kind, Status: notes[i].Status, SessionID: notes[i].SessionID, TripID: notes[i].TripID, CreatedAt: notes[i].CreatedAt}
	}
	var versions []NoteVersion
	if err := db.Where("user_id = ?", userID).Order("note_id, version").Find(&versions).Error; err != nil {
		return nil, fmt.Errorf("models: export note history: %w", err)
	}
	out.NoteHistory = make([]ExportNoteVersion, len(versions))
	for i, v := range versions {
		out.NoteHistory[i] = ExportNoteVersion{NoteID: v.NoteID, Version: v.Version, Text: v.Text, Keywords: v.Keywords,
			Pinned: v.Pinned, Status: v.Status, Actor: v.Actor, Reason: v.Reason, CreatedAt: v.CreatedAt}
	}
	var snaps []TurnSnapshot
	if err := db.Where("user_id = ?", userID).Order("created_at, turn, round").Find(&snaps).Error; err != nil {
		return nil, fmt.Errorf("models: export snapshots: %w", err)
	}
	if err := s.wholeInstructions(ctx, snaps); err != nil {
		return nil, err
	}
	out.Snapshots = make([]ExportSnapshot, len(snaps))
	for i, sn := range snaps {
		out.Snapshots[i] = ExportSnapshot{SessionID: sn.SessionID, Turn: sn.Turn, Round: sn.Round, Model: sn.Model,
			Instructions: sn.Instructions, Messages: json.RawMessage(sn.Messages), Response: json.RawMessage(sn.Response), CreatedAt: sn.CreatedAt}
	}
	if out.Trips, err = s.Trips(ctx, userID, 1000); err != nil {
		return nil, err
	}
	sessions, err := s.ChatSessions(ctx, userID, 100000)
	if err != nil {
		return nil, err
	}
	out.Sessions = make([]ExportSession, len(sessions))
	for i, cs := range sessions {
		msgs, err := s.Messages(ctx, cs.ID)
		if err != nil {
			return nil, err
		}
		es := ExportSession{ID: cs.ID, Title: cs.Title, Status: cs.Status, CreatedAt: cs.CreatedAt, Messages: []ExportMessage{}}
		for _, m := range msgs {
			es.Messages = append(es.Messages, ExportMessage{Role: m.Role, Content: m.Content, Turn: m.Turn, CreatedAt: m.CreatedAt})
		}
		out.Sessions[i] = es
	}
	reports, err := s.Reports(ctx, userID, 100000)
	if err != nil {
		return nil, err
	}
	out.Reports = make([]json.RawMessage, len(reports))
	for i, r := range reports {
		out.Reports[i] = json.RawMessage(r.Report)
	}
	var events []AuditEvent
	if err := db.Where("user_id = ?", userID).Order("created_at, id").Find(&events).Error; err != nil {
		return nil, fmt.Errorf("models: export audit: %w", err)
	}
	out.Audit = make([]ExportAudit, len(events))
	for i, e := range events {
		out.Audit[i] = ExportAudit{At: e.CreatedAt, Actor: e.ActorKind, Action: e.Action, NoteID: e.NoteID, Reason: e.Reason}
	}
	var reqs []ErasureRequest
	if err := db.Where("user_id = ?", userID).Order("created_at").Find(&reqs).Error; err != nil {
		return nil, fmt.Errorf("models: export erasure requests: %w", err)
	}
	out.Erasure = make([]ExportErasure, len(reqs))
	for i, r := range reqs {
		out.Erasure[i] = ExportErasure{ID: r.ID, Status: r.Status, CreatedAt: r.CreatedAt}
	}
	var blocked []struct {
		Category string
		N        int
	}
	if err := db.Model(&BlockedWrite{}).Select("category, COUNT(*) AS n").Where("user_id = ?", userID).Group("category").Scan(&blocked).Error; err != nil {
		return nil, fmt.Errorf("models: export blocked writes: %w", err)
	}
	for _, b := range blocked {
		out.BlockedByCategory[b.Category] = b.N
	}
	var items []ReviewItem
	if err := db.Where("user_id = ?", userID).Order("created_at, id").Find(&items).Error; err != nil {
		return nil, fmt.Errorf("models: export review items: %w", err)
	}
	out.Review = make([]ExportReview, len(items))
	for i, it := range items {
		out.Review[i] = ExportReview{ID: it.ID, Kind: it.Kind, Status: it.Status, SessionID: it.SessionID, Turn: it.Turn,
			NoteID: it.NoteID, Category: it.Category, Field: it.Field, Proposed: it.ProposedValue, CreatedAt: it.CreatedAt,
			ResolvedAt: it.ResolvedAt, Action: it.Action, Reason: it.Reason}
	}
	return out, nil
}

// RequestErasure records by's request to erase the account userID. The
// rules: a traveler asks for their own account; an admin asks for anyone's
// but their own (ErrSelfErasure); nobody else asks. A user has at most one
// pending request: when there is one it is returned with created false (the
// look and the insert are one write transaction). An admin then executes
// it with EraseUser; the traveler may withdraw it before that
// (CancelErasureRequest). reason is an optional note kept with the request
// until the erasure clears it.
func (s *Store) RequestErasure(ctx context.Context, userID string, by Actor, reason string) (r *ErasureRequest, created bool, err error) {
	switch {
	case by.Kind == ActorTraveler && by.ID != "" && by.ID != userID:
		return nil, false, fmt.Errorf("models: erasure request by another traveler: %w", ErrNotFound)
	case by.Kind == ActorAdmin && by.ID == userID:
		return nil, false, ErrSelfErasure
	case by.Kind != ActorTraveler && by.Kind != ActorAdmin:
		return nil, false, memory.Errorf(memory.EINVALID, "Only the traveler or an admin asks for an erasure.")
	}
	err = s.write(ctx, func(tx *gorm.DB) error {
		// The account's row is taken first (on SQLite the one writer
		// serialises already), so two requests at once find one another.
		user := tx
		if s.postgres {
			user = tx.Clauses(clause.Locking{Strength: "UPDATE"})
		}
		if err := user.Select("id").Where("id = ?", userID).Take(&User{}).Error; err != nil {
			return notFound(err)
		}
		var existing ErasureRequest
		err := tx.Where("user_id = ? AND status = ?", userID, ErasurePending).Take(&existing).Error
		if err == nil {
			r = &existing
			return nil
		}
		if notFound(err) != ErrNotFound {
			return err
		}
		r, created = &ErasureRequest{ID: s.newID(), UserID: userID, RequestedBy: by.Kind, Status: ErasurePending, Reason: reason, CreatedAt: s.now()}, true
		return tx.Create(r).Error
	})
	if err != nil {
		return nil, false, fmt.Errorf("models: erasure request: %w", err)
	}
	return r, created, nil
}

// PendingErasureRequest returns a user's pending erasure request.
func (s *Store) PendingErasureRequest(ctx context.Context, userID string) (*ErasureRequest, error) {
	var r ErasureRequest
	if err := s.db.WithContext(ctx).Where("user_id = ? AND status = ?", userID, ErasurePending).Take(&r).Error; err != nil {
		return nil, fmt.Errorf("models: pending erasure request: %w", notFound(err))
	}
	return &r, nil
}
