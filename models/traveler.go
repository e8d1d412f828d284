package models

import (
	"context"
	"fmt"
)

// NotesFromSession returns every note a chat session produced, whatever
// became of it since (active, consumed, promoted to a global note), in the
// order they were made. Deleted notes are gone and so are not returned.
func (s *Store) NotesFromSession(ctx context.Context, sessionID string) ([]Note, error) {
	var rows []Note
	if err := s.db.WithContext(ctx).Where("session_id = ?", sessionID).Order("created_at, id").Find(&rows).Error; err != nil {
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

// DeleteGlobalNotes hard-deletes every global note of a user, superseded
// ones included, each through DeleteNote (so history, audit payloads and
// reports are scrubbed the same way). It returns how many went.
func (s *Store) DeleteGlobalNotes(ctx context.Context, userID string, actor Actor, reason string) (int, error) {
	var ids []string
	if err := s.db.WithContext(ctx).Model(&Note{}).Where("user_id = ? AND kind = ?", userID, KindGlobal).
		Order("created_at, id").Pluck("id", &ids).Error; err != nil {
		return 0, fmt.Errorf("models: delete global notes: %w", err)
	}
	for i, id := range ids {
		if err := s.DeleteNote(ctx, userID, id, actor, reason); err != nil {
			return i, err
		}
	}
	return len(ids), nil
}
