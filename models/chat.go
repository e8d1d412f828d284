package models

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"gorm.io/gorm"

	"concierge/memory"
)

// ErrSessionClosed is returned when a message is sent to a session that is
// closing or closed.
var ErrSessionClosed = errors.New("chat session is closed")

// CreateChatSession opens a new chat session for a traveler.
func (s *Store) CreateChatSession(ctx context.Context, userID string) (*ChatSession, error) {
	now := s.now()
	cs := &ChatSession{ID: s.newID(), UserID: userID, Status: SessionOpen, LastActivityAt: now, CreatedAt: now}
	if err := s.db.WithContext(ctx).Create(cs).Error; err != nil {
		return nil, fmt.Errorf("models: create chat session: %w", err)
	}
	return cs, nil
}

// ErrBusy is returned when another instance is answering the session.
var ErrBusy = errors.New("another message of this session is being answered")

// LeaseAnswer takes the session's answer lease until now+d, so that only
// one instance runs the model for it at a time. It fails with ErrBusy while
// another holder's lease runs. release gives the lease back.
func (s *Store) LeaseAnswer(ctx context.Context, sessionID string, d time.Duration) (release func(), err error) {
	now := s.now()
	res := s.db.WithContext(ctx).Model(&ChatSession{}).
		Where("id = ? AND (answering_until IS NULL OR answering_until < ?)", sessionID, now).
		Update("answering_until", now.Add(d))
	if res.Error != nil {
		return nil, fmt.Errorf("models: lease answer %s: %w", sessionID, res.Error)
	}
	if res.RowsAffected == 0 {
		return nil, ErrBusy
	}
	until := now.Add(d)
	return func() {
		// Only our own lease is cleared, even if it ran out and another
		// instance took the session meanwhile.
		_ = s.db.WithContext(context.WithoutCancel(ctx)).Model(&ChatSession{}).
			Where("id = ? AND answering_until = ?", sessionID, until).Update("answering_until", nil).Error
	}, nil
}

// ChatSessionByID looks up a chat session.
func (s *Store) ChatSessionByID(ctx context.Context, id string) (*ChatSession, error) {
	var cs ChatSession
	if err := s.db.WithContext(ctx).Where("id = ?", id).Take(&cs).Error; err != nil {
		return nil, fmt.Errorf("models: chat session %s: %w", id, notFound(err))
	}
	return &cs, nil
}

// ChatSessions lists a user's sessions, newest first, at most limit.
func (s *Store) ChatSessions(ctx context.Context, userID string, limit int) ([]ChatSession, error) {
	var out []ChatSession
	if err := s.db.WithContext(ctx).Where("user_id = ?", userID).Order("created_at DESC, id").Limit(limit).Find(&out).Error; err != nil {
		return nil, fmt.Errorf("models: chat sessions: %w", err)
	}
	return out, nil
}

// AppendMessage stores a message at the end of its session's transcript,
// giving it the next sequence number, and marks the session active. It
// refuses messages to a session that is no longer open.
func (s *Store) AppendMessage(ctx context.Context, m *Message) error {
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var cs ChatSession
		if err := tx.Where("id = ?", m.SessionID).Take(&cs).Error; err != nil {
			return notFound(err)
		}
		if cs.Status != SessionOpen {
			return ErrSessionClosed
		}
		var last int
		if err := tx.Model(&Message{}).Where("session_id = ?", m.SessionID).Select("COALESCE(MAX(seq), 0)").Scan(&last).Error; err != nil {
			return err
		}
		m.ID, m.Seq, m.UserID, m.CreatedAt = s.newID(), last+1, cs.UserID, s.now()
		if err := tx.Create(m).Error; err != nil {
			return err
		}
		upd := map[string]any{"last_activity_at": m.CreatedAt}
		if cs.Title == "" && m.Role == string(memory.RoleUser) {
			upd["title"] = titleFrom(m.Content)
		}
		return tx.Model(&ChatSession{}).Where("id = ?", m.SessionID).Updates(upd).Error
	})
	if errors.Is(err, gorm.ErrDuplicatedKey) {
		// Another instance appended to this session at the same moment.
		err = ErrConflict
	}
	if err != nil {
		return fmt.Errorf("models: append message to %s: %w", m.SessionID, err)
	}
	return nil
}

// titleFrom makes a short session title from the first message.
func titleFrom(content string) string {
	r := []rune(content)
	if len(r) > 60 {
		return string(r[:57]) + "…"
	}
	return string(r)
}

// Messages returns a session's transcript in order.
func (s *Store) Messages(ctx context.Context, sessionID string) ([]Message, error) {
	var out []Message
	if err := s.db.WithContext(ctx).Where("session_id = ?", sessionID).Order("seq").Find(&out).Error; err != nil {
		return nil, fmt.Errorf("models: messages: %w", err)
	}
	return out, nil
}

// Domain converts a stored message to the form the model is given.
func (m *Message) Domain() memory.Message {
	out := memory.Message{Role: memory.Role(m.Role), Content: m.Content, ToolCallID: m.ToolCallID, Turn: m.Turn}
	if m.ToolCalls != "" {
		_ = json.Unmarshal([]byte(m.ToolCalls), &out.ToolCalls)
	}
	return out
}

// EncodeToolCalls is how tool calls are stored on a message.
func EncodeToolCalls(calls []memory.ToolCall) string {
	if len(calls) == 0 {
		return ""
	}
	b, _ := json.Marshal(calls)
	return string(b)
}

// SaveSnapshot records exactly what the model was sent on one round of a turn.
func (s *Store) SaveSnapshot(ctx context.Context, snap *TurnSnapshot) error {
	snap.ID, snap.CreatedAt = s.newID(), s.now()
	if err := s.db.WithContext(ctx).Create(snap).Error; err != nil {
		return fmt.Errorf("models: save snapshot: %w", err)
	}
	return nil
}

// Snapshots returns a session's request snapshots by turn and round.
func (s *Store) Snapshots(ctx context.Context, sessionID string) ([]TurnSnapshot, error) {
	var out []TurnSnapshot
	if err := s.db.WithContext(ctx).Where("session_id = ?", sessionID).Order("turn, round").Find(&out).Error; err != nil {
		return nil, fmt.Errorf("models: snapshots: %w", err)
	}
	return out, nil
}

// RecordBlockedWrite counts a refused memory write by category only.
func (s *Store) RecordBlockedWrite(ctx context.Context, userID, sessionID, category string) error {
	bw := &BlockedWrite{ID: s.newID(), UserID: userID, SessionID: sessionID, Category: category, CreatedAt: s.now()}
	if err := s.db.WithContext(ctx).Create(bw).Error; err != nil {
		return fmt.Errorf("models: record blocked write: %w", err)
	}
	return nil
}

// IdleSessions lists open sessions whose last activity is before cutoff.
func (s *Store) IdleSessions(ctx context.Context, cutoff time.Time, limit int) ([]ChatSession, error) {
	var out []ChatSession
	err := s.db.WithContext(ctx).Where("status = ? AND last_activity_at < ?", SessionOpen, cutoff).
		Order("last_activity_at").Limit(limit).Find(&out).Error
	if err != nil {
		return nil, fmt.Errorf("models: idle sessions: %w", err)
	}
	return out, nil
}

// DeleteExpiredTranscripts removes messages and prompt snapshots created
// before cutoff in sessions that are no longer open (closed, or stuck
// closing behind a failed job), and reports how many rows went.
func (s *Store) DeleteExpiredTranscripts(ctx context.Context, cutoff time.Time) (int64, error) {
	var total int64
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		closed := tx.Model(&ChatSession{}).Select("id").Where("status IN ?", []string{SessionClosed, SessionClosing})
		r := tx.Where("created_at < ? AND session_id IN (?)", cutoff, closed).Delete(&Message{})
		if r.Error != nil {
			return r.Error
		}
		total += r.RowsAffected
		r = tx.Where("created_at < ? AND session_id IN (?)", cutoff, closed).Delete(&TurnSnapshot{})
		total += r.RowsAffected
		if r.Error != nil {
			return r.Error
		}
		// A session's title is its first message's opening words: it goes
		// with the transcript.
		return tx.Model(&ChatSession{}).Where("status IN ? AND created_at < ? AND title <> ''", []string{SessionClosed, SessionClosing}, cutoff).
			Update("title", "").Error
	})
	if err != nil {
		return 0, fmt.Errorf("models: delete expired transcripts: %w", err)
	}
	if total > 0 {
		if err := s.optimizeSearch(ctx); err != nil {
			return total, fmt.Errorf("models: delete expired transcripts: %w", err)
		}
		s.checkpoint(ctx)
	}
	return total, nil
}
