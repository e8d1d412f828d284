package models

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"gorm.io/gorm"

	"concierge/memory"
	"concierge/memory/consolidate"
)

// StatusForgotten is a note the traveler asked the assistant to forget in
// a conversation that is still open: it is no longer injected, listed or
// consolidated, and Undo (Notes.Restore) can still bring it back with its
// history. When that conversation ends the note is deleted as Delete does
// (PurgeForgotten), so the Undo window is the conversation.
const StatusForgotten = "forgotten"

// forgottenMark is what superseded_by holds for a forgotten note: the
// conversation and the message that asked, so the chip shows under that
// turn and the purge knows when Undo is over.
const forgottenMark = "forgotten:"

func forgottenBy(sessionID, messageID string) string {
	return forgottenMark + sessionID + ":" + messageID
}

// forgottenIn reads a forgotten note's conversation and message.
func forgottenIn(n *Note) (sessionID, messageID string, ok bool) {
	rest, ok := strings.CutPrefix(n.SupersededBy, forgottenMark)
	if !ok || n.Status != StatusForgotten {
		return "", "", false
	}
	sessionID, messageID, _ = strings.Cut(rest, ":")
	return sessionID, messageID, true
}

// ErrNotForgettable refuses to forget a note that is not active.
var ErrNotForgettable = &memory.Error{Code: memory.ENOTEDITABLE, Message: "That note is no longer remembered."}

// Forget takes an active note (global or of a session) out of the
// traveler's memory at their request in the conversation prov names: the
// assistant acts (actor) on the message prov.MessageID. The note stops
// being injected at once; its text is deleted everywhere when that
// conversation ends, unless Restore brings it back first.
func (n *Notes) Forget(ctx context.Context, userID, id string, actor Actor, prov Provenance) (*Note, error) {
	var out Note
	err := n.write(ctx, userID, func(tx *gorm.DB) error {
		if err := tx.Where("id = ? AND user_id = ?", id, userID).Take(&out).Error; err != nil {
			return notFound(err)
		}
		if out.Status != StatusActive {
			return ErrNotForgettable
		}
		cs, err := n.s.lockSessionTx(tx, prov.SessionID, nil)
		if err != nil {
			return err
		}
		if cs.Status != SessionOpen || cs.UserID != userID {
			return ErrSessionClosed
		}
		fields := map[string]any{"status": StatusForgotten, "superseded_by": forgottenBy(prov.SessionID, prov.MessageID)}
		if err := n.s.setNoteFieldsTx(tx, userID, id, fields, actor, "forgotten at the traveler's request", "note.forget", prov); err != nil {
			return err
		}
		return tx.Where("id = ?", id).Take(&out).Error
	})
	if err != nil {
		return nil, fmt.Errorf("models: forget note %s: %w", id, err)
	}
	return &out, nil
}

// Restore is Undo for Forget: while the conversation that forgot the note
// is open, the note becomes active again with its history, audited as a
// change by actor.
func (n *Notes) Restore(ctx context.Context, userID, sessionID, id string, actor Actor) (*Note, error) {
	var out Note
	err := n.write(ctx, userID, func(tx *gorm.DB) error {
		if err := tx.Where("id = ? AND user_id = ?", id, userID).Take(&out).Error; err != nil {
			return notFound(err)
		}
		sid, _, ok := forgottenIn(&out)
		if !ok || sid != sessionID {
			return ErrNotFound
		}
		cs, err := n.s.lockSessionTx(tx, sessionID, nil)
		if err != nil {
			return err
		}
		if cs.Status != SessionOpen {
			return ErrUndoClosed
		}
		fields := map[string]any{"status": StatusActive, "superseded_by": ""}
		if err := n.s.setNoteFieldsTx(tx, userID, id, fields, actor, "forgetting undone by the traveler", "note.restore", Provenance{SessionID: sessionID}); err != nil {
			return err
		}
		return tx.Where("id = ?", id).Take(&out).Error
	})
	if err != nil {
		return nil, fmt.Errorf("models: restore note %s: %w", id, err)
	}
	return &out, nil
}

// ForgottenInSession lists the notes a conversation forgot and Undo can
// still restore, each with the message that asked.
func (s *Store) ForgottenInSession(ctx context.Context, sessionID string) ([]Note, error) {
	var rows []Note
	if err := s.db.WithContext(ctx).Where("status = ? AND superseded_by LIKE ?", StatusForgotten, forgottenBy(sessionID, "")+"%").
		Order("updated_at, id").Find(&rows).Error; err != nil {
		return nil, fmt.Errorf("models: forgotten notes: %w", err)
	}
	return rows, nil
}

// ForgottenMessage is the message that asked to forget n ("" when n is
// not a forgotten note).
func ForgottenMessage(n *Note) string {
	_, m, _ := forgottenIn(n)
	return m
}

// PurgeForgotten deletes, as Delete does (history, audit payloads,
// reports, snapshots and tool records scrubbed), every forgotten note
// whose conversation is no longer open: the Undo window is over. It
// returns how many notes went.
func (n *Notes) PurgeForgotten(ctx context.Context) (int, error) {
	var rows []Note
	if err := n.s.db.WithContext(ctx).Where("status = ?", StatusForgotten).Order("updated_at, id").Limit(500).Find(&rows).Error; err != nil {
		return 0, fmt.Errorf("models: purge forgotten notes: %w", err)
	}
	purged := 0
	for i := range rows {
		sid, _, ok := forgottenIn(&rows[i])
		if !ok {
			continue
		}
		var cs ChatSession
		err := n.s.db.WithContext(ctx).Select("id", "status").Where("id = ?", sid).Take(&cs).Error
		if err == nil && cs.Status == SessionOpen {
			continue
		}
		err = n.write(ctx, rows[i].UserID, func(tx *gorm.DB) error {
			var cur Note
			if err := tx.Where("id = ? AND status = ?", rows[i].ID, StatusForgotten).Take(&cur).Error; err != nil {
				return notFound(err)
			}
			return n.s.deleteNoteTx(tx, cur.UserID, cur.ID, Actor{Kind: ActorSystem}, "forgotten at the traveler's request")
		})
		if err != nil && !errors.Is(err, ErrNotFound) {
			return purged, fmt.Errorf("models: purge forgotten note %s: %w", rows[i].ID, err)
		}
		if err == nil {
			purged++
		}
	}
	if purged > 0 {
		n.s.checkpoint(ctx)
	}
	return purged, nil
}

// DeleteExpired deletes every active note whose end date is before today
// (YYYY-MM-DD), as Delete does, each with an audit event "note.expired"
// by the system. It returns how many notes went.
func (n *Notes) DeleteExpired(ctx context.Context, today string) (int, error) {
	var rows []Note
	if err := n.s.db.WithContext(ctx).Where("status = ? AND expires_on <> '' AND expires_on < ?", StatusActive, today).
		Order("expires_on, id").Limit(500).Find(&rows).Error; err != nil {
		return 0, fmt.Errorf("models: expired notes: %w", err)
	}
	gone := 0
	for i := range rows {
		err := n.write(ctx, rows[i].UserID, func(tx *gorm.DB) error {
			var cur Note
			if err := tx.Where("id = ? AND status = ? AND expires_on <> '' AND expires_on < ?", rows[i].ID, StatusActive, today).Take(&cur).Error; err != nil {
				return notFound(err)
			}
			return n.s.forgetNoteTx(tx, &cur, Actor{Kind: ActorSystem}, consolidate.ActionExpired)
		})
		if err != nil && !errors.Is(err, ErrNotFound) {
			return gone, fmt.Errorf("models: delete expired note %s: %w", rows[i].ID, err)
		}
		if err == nil {
			gone++
		}
	}
	if gone > 0 {
		n.s.checkpoint(ctx)
	}
	return gone, nil
}
