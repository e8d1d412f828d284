package models

import (
	"context"
	"errors"
	"fmt"
	"time"
	"unicode/utf8"

	"gorm.io/gorm"

	"concierge/memory"
)

// NotesFromSession returns every note a chat session produced, whatever
// became of it since (active, consumed, promoted to a global note), in the
// order they were made, and the notes it forgot that Undo can still bring
// back. Deleted notes are gone and so are not returned.
func (s *Store) NotesFromSession(ctx context.Context, sessionID string) ([]Note, error) {
	var rows []Note
	// The notes the conversation forgot (StatusForgotten, global ones
	// included) come too: the chat shows them with Undo.
	if err := s.db.WithContext(ctx).Where("session_id = ? OR (status = ? AND superseded_by LIKE ?)", sessionID, StatusForgotten, forgottenBy(sessionID, "")+"%").
		Order("created_at, id").Find(&rows).Error; err != nil {
		return nil, fmt.Errorf("models: notes from session: %w", err)
	}
	return rows, nil
}

// JobForSession returns the consolidation job of a closing or closed session.
func (s *Store) JobForSession(ctx context.Context, sessionID string) (*ConsolidationJob, error) {
	var j ConsolidationJob
	if err := s.db.WithContext(ctx).Where("session_id = ?", sessionID).Take(&j).Error; err != nil {
		return nil, fmt.Errorf("models: job for session %s: %w", sessionID, notFound(err))
	}
	return &j, nil
}

// ErrSessionBusy refuses deleting a conversation while it is being
// answered or consolidated; it is also an ErrConflict.
var ErrSessionBusy = &memory.Error{Code: memory.EBUSY,
	Message: "This conversation is being answered or wrapped up right now. Try again in a moment."}

// ErrNoPendingErasure is CancelErasureRequest's ErrNotFound.
var ErrNoPendingErasure = &memory.Error{Code: memory.ENOTFOUND, Message: "There is no pending erasure request to cancel."}

// MaxSessionTitleChars bounds a conversation's title.
const MaxSessionTitleChars = 80

// RenameChatSession gives one of a user's conversations a new title,
// refusing one over MaxSessionTitleChars (ErrTitleTooLong).
func (s *Store) RenameChatSession(ctx context.Context, userID, id, title string) (*ChatSession, error) {
	if utf8.RuneCountInString(title) > MaxSessionTitleChars {
		return nil, ErrTitleTooLong
	}
	res := s.db.WithContext(ctx).Model(&ChatSession{}).Where("id = ? AND user_id = ?", id, userID).Update("title", title)
	if res.Error != nil {
		return nil, fmt.Errorf("models: rename chat session %s: %w", id, res.Error)
	}
	if res.RowsAffected == 0 {
		return nil, fmt.Errorf("models: rename chat session %s: %w", id, ErrNotFound)
	}
	return s.ChatSessionByID(ctx, id)
}

// DeleteChatSession deletes one of a user's conversations with everything
// that holds its words: its messages, its prompt snapshots, the notes it
// staged (with their history, scrubbed from audit payloads), its
// consolidation job and report. Long-term
// notes learned from it stay (the traveler deletes those on their own) and
// keep pointing at the conversation, which callers show as deleted. A
// conversation that is being answered or consolidated right now is refused
// with ErrConflict, so no worker writes into it while it goes.
func (s *Store) DeleteChatSession(ctx context.Context, userID, id string) error {
	err := s.write(ctx, func(tx *gorm.DB) error {
		var cs ChatSession
		if err := tx.Where("id = ? AND user_id = ?", id, userID).Take(&cs).Error; err != nil {
			return notFound(err)
		}
		if cs.Status == SessionClosing || (cs.AnsweringUntil != nil && cs.AnsweringUntil.After(s.now())) {
			return ErrSessionBusy
		}
		var staged []string
		if err := tx.Model(&Note{}).Where("session_id = ? AND user_id = ? AND kind = ?", id, userID, KindSession).Pluck("id", &staged).Error; err != nil {
			return err
		}
		if len(staged) > 0 {
			if err := tx.Where("note_id IN ?", staged).Delete(&NoteVersion{}).Error; err != nil {
				return err
			}
			if err := tx.Where("id IN ?", staged).Delete(&Note{}).Error; err != nil {
				return err
			}
			// Their text also sits in audit payloads, as DeleteNote scrubs.
			ids := map[string]bool{}
			for _, nid := range staged {
				ids[nid] = true
			}
			if err := s.redactNoteTx(tx, userID, ids); err != nil {
				return err
			}
		}
		for _, m := range []any{&Message{}, &TurnSnapshot{}, &ConsolidationReport{}, &ConsolidationJob{}} {
			if err := tx.Where("session_id = ? AND user_id = ?", id, userID).Delete(m).Error; err != nil {
				return err
			}
		}
		return tx.Where("id = ?", id).Delete(&ChatSession{}).Error
	})
	if err != nil {
		if errors.Is(err, ErrSessionBusy) {
			err = fmt.Errorf("%w (%w)", err, ErrConflict)
		}
		return fmt.Errorf("models: delete chat session %s: %w", id, err)
	}
	// The messages' words also leave the full-text index's pages.
	if err := s.optimizeSearch(ctx); err != nil {
		return fmt.Errorf("models: delete chat session %s: %w", id, err)
	}
	s.checkpoint(ctx)
	return nil
}

// CancelErasureRequest withdraws a user's pending erasure request; it
// returns ErrNotFound when there is none.
func (s *Store) CancelErasureRequest(ctx context.Context, userID string) error {
	res := s.db.WithContext(ctx).Where("user_id = ? AND status = ?", userID, ErasurePending).Delete(&ErasureRequest{})
	if res.Error != nil {
		return fmt.Errorf("models: cancel erasure request: %w", res.Error)
	}
	if res.RowsAffected == 0 {
		return fmt.Errorf("models: cancel erasure request: %w (%w)", ErrNoPendingErasure, ErrNotFound)
	}
	return nil
}

// OpenSessionNotes returns the notes the user's open conversations staged
// so far (not yet decided by a consolidation), oldest first.
func (s *Store) OpenSessionNotes(ctx context.Context, userID string) ([]Note, error) {
	var rows []Note
	err := s.db.WithContext(ctx).Where("user_id = ? AND kind = ? AND status = ?", userID, KindSession, StatusActive).
		Where("session_id IN (?)", s.db.Model(&ChatSession{}).Select("id").Where("user_id = ? AND status = ?", userID, SessionOpen)).
		Order("created_at, id").Find(&rows).Error
	if err != nil {
		return nil, fmt.Errorf("models: open session notes: %w", err)
	}
	return rows, nil
}

// NoteSource is where a note came from, as far as it can still be shown:
// the conversation (if it still exists) and the message it was said in.
type NoteSource struct {
	SessionID      string
	SessionTitle   string
	SessionStarted time.Time
	SessionGone    bool   // the note names a conversation that was deleted or expired
	Message        string // the traveler's message the note came from, "" if unknown or gone
	MessageAt      time.Time
}

// NoteSources looks up the conversation and message of each note that has
// them (keyed by note id), in two queries whatever the number of notes.
// Only the user's own conversations and user messages are read.
func (s *Store) NoteSources(ctx context.Context, userID string, notes []Note) (map[string]NoteSource, error) {
	var sids, mids []string
	for _, n := range notes {
		if n.SessionID != "" {
			sids = append(sids, n.SessionID)
		}
		if n.MessageID != "" {
			mids = append(mids, n.MessageID)
		}
	}
	out := map[string]NoteSource{}
	if len(sids) == 0 {
		return out, nil
	}
	var sessions []ChatSession
	if err := s.db.WithContext(ctx).Where("user_id = ? AND id IN ?", userID, sids).Find(&sessions).Error; err != nil {
		return nil, fmt.Errorf("models: note sources: %w", err)
	}
	byID := map[string]*ChatSession{}
	for i := range sessions {
		byID[sessions[i].ID] = &sessions[i]
	}
	msgs := map[string]*Message{}
	if len(mids) > 0 {
		var rows []Message
		if err := s.db.WithContext(ctx).Where("user_id = ? AND role = ? AND id IN ?", userID, "user", mids).Find(&rows).Error; err != nil {
			return nil, fmt.Errorf("models: note sources: %w", err)
		}
		for i := range rows {
			msgs[rows[i].ID] = &rows[i]
		}
	}
	for _, n := range notes {
		if n.SessionID == "" {
			continue
		}
		src := NoteSource{SessionID: n.SessionID}
		if cs, ok := byID[n.SessionID]; ok {
			src.SessionTitle, src.SessionStarted = cs.Title, cs.CreatedAt
		} else {
			src.SessionGone = true
		}
		if m, ok := msgs[n.MessageID]; ok && !src.SessionGone {
			src.Message, src.MessageAt = m.Content, m.CreatedAt
		}
		out[n.ID] = src
	}
	return out, nil
}
