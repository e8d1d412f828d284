package models

import (
	"context"
	"encoding/json"
	"fmt"

	"gorm.io/gorm"

	"concierge/memory"
)

// Actor is who makes a change: an account (by id and kind) or a process.
type Actor struct {
	ID   string
	Kind string // one of the Actor* constants
}

// Provenance says where a change came from.
type Provenance struct {
	SessionID       string
	MessageID       string
	ConsolidationID string
}

// Domain converts a stored note to the memory domain's note.
func (n *Note) Domain() memory.Note {
	var kw []string
	_ = json.Unmarshal([]byte(n.Keywords), &kw)
	if kw == nil {
		kw = []string{}
	}
	return memory.Note{
		ID: n.ID, Text: n.Text, Keywords: kw, Scope: memory.Scope(n.Scope),
		LastUpdateDate: n.LastUpdateDate, Pinned: n.Pinned, Source: memory.Source(n.Source),
		ExpiresOn: n.ExpiresOn,
	}
}

func encodeKeywords(kw []string) string {
	if kw == nil {
		kw = []string{}
	}
	b, _ := json.Marshal(kw)
	return string(b)
}

func domainNotes(rows []Note) []memory.Note {
	out := make([]memory.Note, len(rows))
	for i := range rows {
		out[i] = rows[i].Domain()
	}
	return out
}

// notePayload is what the audit trail records of a note's content.
func notePayload(n *Note) string {
	b, _ := json.Marshal(map[string]any{
		"id": n.ID, "text": n.Text, "keywords": json.RawMessage(n.Keywords), "pinned": n.Pinned,
		"scope": n.Scope, "status": n.Status, "last_update_date": n.LastUpdateDate, "expires_on": n.ExpiresOn,
	})
	return string(b)
}

// GlobalNotes returns a user's active global notes, oldest first.
func (s *Store) GlobalNotes(ctx context.Context, userID string) ([]memory.Note, error) {
	rows, err := s.GlobalNoteRows(ctx, userID, false)
	if err != nil {
		return nil, err
	}
	return domainNotes(rows), nil
}

// GlobalNoteRows returns a user's global notes as stored, with superseded
// ones too when withSuperseded is set.
func (s *Store) GlobalNoteRows(ctx context.Context, userID string, withSuperseded bool) ([]Note, error) {
	db := s.db.WithContext(ctx).Where("user_id = ? AND kind = ?", userID, KindGlobal)
	if !withSuperseded {
		db = db.Where("status = ?", StatusActive)
	}
	var rows []Note
	if err := db.Order("last_update_date, created_at, id").Find(&rows).Error; err != nil {
		return nil, fmt.Errorf("models: global notes: %w", err)
	}
	return rows, nil
}

// SessionNotes returns a chat session's active notes in the order they were made.
func (s *Store) SessionNotes(ctx context.Context, sessionID string) ([]memory.Note, error) {
	rows, err := s.SessionNoteRows(ctx, sessionID)
	if err != nil {
		return nil, err
	}
	return domainNotes(rows), nil
}

// SessionNoteRows returns a chat session's active notes as stored.
func (s *Store) SessionNoteRows(ctx context.Context, sessionID string) ([]Note, error) {
	var rows []Note
	err := s.db.WithContext(ctx).Where("session_id = ? AND kind = ? AND status = ?", sessionID, KindSession, StatusActive).
		Order("created_at, id").Find(&rows).Error
	if err != nil {
		return nil, fmt.Errorf("models: session notes: %w", err)
	}
	return rows, nil
}

// TurnNotes are the notes a turn's instructions carry.
type TurnNotes struct {
	// Global are the user's active global notes, in GlobalNotes' order.
	Global []memory.Note
	// Session are the session's active notes, in SessionNotes' order.
	Session []memory.Note
	// Trip are the active notes of the session's trip, oldest first (as
	// TripNotes), none without a trip.
	Trip []memory.Note
}

// TurnNotes reads a turn's notes in one statement that uses one index for
// each part: the user's notes by kind, the session's notes and the trip's.
// tripID is the session's trip, "" for none.
func (s *Store) TurnNotes(ctx context.Context, userID, sessionID, tripID string) (TurnNotes, error) {
	var rows []Note
	err := s.db.WithContext(ctx).
		Where("(user_id = ? AND kind = ? AND status = ?) OR (session_id = ? AND kind = ? AND status = ?) OR ("+onTrip+" AND kind = ? AND status = ?)",
			userID, KindGlobal, StatusActive, sessionID, KindSession, StatusActive, tripID, KindTrip, StatusActive).
		Order("kind, CASE WHEN kind = '" + KindGlobal + "' THEN last_update_date ELSE '' END, created_at, id").
		Find(&rows).Error
	if err != nil {
		return TurnNotes{}, fmt.Errorf("models: notes of a turn: %w", err)
	}
	out := TurnNotes{Global: []memory.Note{}, Session: []memory.Note{}}
	for _, n := range rows {
		switch {
		case n.UserID != userID:
			// Someone else's session or trip: its notes are not this
			// user's. (The owner is checked here, not in SQL, where it
			// would make the planner walk all of the user's notes instead
			// of three indexes.)
		case n.Kind == KindGlobal:
			out.Global = append(out.Global, n.Domain())
		case n.Kind == KindTrip:
			out.Trip = append(out.Trip, n.Domain())
		default:
			out.Session = append(out.Session, n.Domain())
		}
	}
	return out, nil
}

// NoteByID returns one of a user's notes.
func (s *Store) NoteByID(ctx context.Context, userID, id string) (*Note, error) {
	var n Note
	if err := s.db.WithContext(ctx).Where("id = ? AND user_id = ?", id, userID).Take(&n).Error; err != nil {
		return nil, fmt.Errorf("models: note %s: %w", id, notFound(err))
	}
	return &n, nil
}

// NewNote describes a note to create.
type NewNote struct {
	UserID string
	Kind   string // KindGlobal or KindSession (a this_trip session note of a conversation with a trip becomes KindTrip)
	Note   memory.Note
	Prov   Provenance
	TripID string // set with KindTrip
}

// PendingNote is a note to add, with who adds it and why: a round's notes
// (Round.Notes) and what Notes.Draft checks.
type PendingNote struct {
	NewNote
	Actor  Actor
	Reason string
	// Earlier are the session's notes before this one, oldest first: the
	// guard reads the new note joined to them, so an instruction split over
	// two notes is refused when its second half arrives.
	Earlier []string
	// Reviewed says the guard's model layer reviews this note after the
	// rules (memory.NoteContext.Reviewed): a script no language file covers
	// is then left to it instead of being refused. The agent sets it when
	// its Config has a Reviewer, and clears it when a review fails.
	Reviewed bool
}

// draftNote gives a note its id and defaults, so that what reports the
// note (a tool result) can be written in the same transaction that stores
// it.
func (s *Store) draftNote(nn NewNote) NewNote {
	if nn.Note.ID == "" {
		nn.Note.ID = s.newID()
	}
	if nn.Note.LastUpdateDate == "" {
		nn.Note.LastUpdateDate = s.now().Format(memory.DateLayout)
	}
	if nn.Note.Scope == "" {
		nn.Note.Scope = memory.ScopeDurable
	}
	return nn
}

// createNoteTx writes a note the service checked, its first history entry
// and its audit event.
func (s *Store) createNoteTx(tx *gorm.DB, nn NewNote, actor Actor, reason string) (*Note, error) {
	now := s.now()
	d := s.draftNote(nn).Note
	n := &Note{
		ID: d.ID, UserID: nn.UserID, Kind: nn.Kind, Text: d.Text, Keywords: encodeKeywords(d.Keywords),
		Scope: string(d.Scope), LastUpdateDate: d.LastUpdateDate, Pinned: d.Pinned, Source: string(d.Source),
		Status: StatusActive, ExpiresOn: d.ExpiresOn, SessionID: nn.Prov.SessionID, MessageID: nn.Prov.MessageID,
		ConsolidationID: nn.Prov.ConsolidationID, TripID: nn.TripID, CreatedAt: now, UpdatedAt: now,
	}
	ins := tx
	if n.TripID == "" {
		ins = tx.Omit("TripID") // the column's default (also before migration 24)
	}
	if err := ins.Create(n).Error; err != nil {
		return nil, err
	}
	if err := s.versionTx(tx, n, 1, actor, reason); err != nil {
		return nil, err
	}
	return n, s.auditTx(tx, AuditEvent{
		UserID: nn.UserID, ActorID: actor.ID, ActorKind: actor.Kind, Action: "note.create", NoteID: n.ID,
		Reason: reason, After: notePayload(n), SessionID: nn.Prov.SessionID, MessageID: nn.Prov.MessageID,
		ConsolidationID: nn.Prov.ConsolidationID,
	})
}

// addVersionTx records a changed note's next history entry.
func (s *Store) addVersionTx(tx *gorm.DB, n *Note, actor Actor, reason string) error {
	var last int
	if err := tx.Model(&NoteVersion{}).Where("note_id = ?", n.ID).Select("COALESCE(MAX(version), 0)").Scan(&last).Error; err != nil {
		return err
	}
	return s.versionTx(tx, n, last+1, actor, reason)
}

// versionTx records n as its history entry number version.
func (s *Store) versionTx(tx *gorm.DB, n *Note, version int, actor Actor, reason string) error {
	return tx.Create(&NoteVersion{
		ID: s.newID(), NoteID: n.ID, UserID: n.UserID, Version: version, Text: n.Text, Keywords: n.Keywords,
		Pinned: n.Pinned, Status: n.Status, Actor: actor.Kind, Reason: reason, CreatedAt: s.now(),
	}).Error
}

func (s *Store) auditTx(tx *gorm.DB, ev AuditEvent) error {
	ev.ID = s.newID()
	ev.CreatedAt = s.now()
	return tx.Create(&ev).Error
}

// NotePatch is a partial change to a note; nil fields stay as they are.
type NotePatch struct {
	Text     *string
	Keywords []string
	Pinned   *bool
	// ExpiresOn sets the end date (YYYY-MM-DD); "" clears it.
	ExpiresOn *string
}

// updateNoteTx applies a checked patch to cur and records a new history
// entry and an audit event with the content before and after.
func (s *Store) updateNoteTx(tx *gorm.DB, cur *Note, p NotePatch, actor Actor, reason string) (*Note, error) {
	out := *cur
	before := notePayload(&out)
	if p.Text != nil {
		out.Text = *p.Text
		// The source says who wrote the text: whoever rewrote it last.
		if src := editorSource(actor.Kind); src != "" && out.Text != cur.Text {
			out.Source = string(src)
		}
	}
	if p.Keywords != nil {
		out.Keywords = encodeKeywords(p.Keywords)
	}
	if p.Pinned != nil {
		out.Pinned = *p.Pinned
	}
	if p.ExpiresOn != nil {
		out.ExpiresOn = *p.ExpiresOn
	}
	out.UpdatedAt = s.now()
	if p.Text != nil || p.Keywords != nil {
		out.LastUpdateDate = out.UpdatedAt.Format(memory.DateLayout)
	}
	if err := tx.Save(&out).Error; err != nil {
		return nil, err
	}
	if err := s.addVersionTx(tx, &out, actor, reason); err != nil {
		return nil, err
	}
	return &out, s.auditTx(tx, AuditEvent{UserID: out.UserID, ActorID: actor.ID, ActorKind: actor.Kind, Action: "note.update",
		NoteID: out.ID, Reason: reason, Before: before, After: notePayload(&out)})
}

// editorSource is the note source of an actor who rewrites a note's text,
// or "" for one that keeps the note's source (the system).
func editorSource(kind string) memory.Source {
	switch kind {
	case ActorSupport, ActorAdmin:
		return memory.SourceStaff
	case ActorTraveler:
		return memory.SourceTraveler
	case ActorAssistant:
		return memory.SourceAssistant
	case ActorConsolidation:
		return memory.SourceConsolidation
	}
	return ""
}

// deleteNoteTx hard-deletes a note, the session notes merged into it and
// their history, scrubs their text from every copy (redactNoteTx) and
// records the deletion, without content, in the audit trail.
func (s *Store) deleteNoteTx(tx *gorm.DB, userID, id string, actor Actor, reason string) error {
	var n Note
	if err := tx.Where("id = ? AND user_id = ?", id, userID).Take(&n).Error; err != nil {
		return notFound(err)
	}
	var merged []Note
	if err := tx.Where("user_id = ? AND status = ? AND superseded_by = ?", userID, StatusConsumed, id).Find(&merged).Error; err != nil {
		return err
	}
	ids := map[string]bool{id: true}
	for _, m := range merged {
		ids[m.ID] = true
	}
	// Redact first, while the notes and their history can still say
	// what they said.
	if err := s.redactNoteTx(tx, userID, ids); err != nil {
		return err
	}
	for _, m := range append(merged, n) {
		if err := tx.Where("note_id = ?", m.ID).Delete(&NoteVersion{}).Error; err != nil {
			return err
		}
		if err := tx.Where("id = ?", m.ID).Delete(&Note{}).Error; err != nil {
			return err
		}
	}
	return s.auditTx(tx, AuditEvent{UserID: userID, ActorID: actor.ID, ActorKind: actor.Kind, Action: "note.delete",
		NoteID: id, Reason: reason, SessionID: n.SessionID})
}

// checkpoint folds the SQLite WAL back into the database file and truncates
// it, so the old page images of deleted rows leave the disk (secure_delete
// has zeroed the freed pages in the main file). It is best effort: if
// readers hold the WAL, the next checkpoint finishes the job. PostgreSQL
// reclaims dead tuples through autovacuum.
func (s *Store) checkpoint(ctx context.Context) {
	if !s.postgres {
		// Deleted or redacted messages leave the full-text index's pages
		// only when its segments merge.
		_ = s.optimizeSearch(ctx)
		_ = s.db.WithContext(ctx).Exec("PRAGMA wal_checkpoint(TRUNCATE)").Error
	}
}

// NoteHistory returns a note's versions, oldest first.
func (s *Store) NoteHistory(ctx context.Context, noteID string) ([]NoteVersion, error) {
	var vs []NoteVersion
	if err := s.db.WithContext(ctx).Where("note_id = ?", noteID).Order("version").Find(&vs).Error; err != nil {
		return nil, fmt.Errorf("models: note history: %w", err)
	}
	return vs, nil
}
