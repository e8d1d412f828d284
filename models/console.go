package models

import (
	"context"
	"fmt"
)

// ConsolidationJobs lists a user's consolidation jobs, newest first.
func (s *Store) ConsolidationJobs(ctx context.Context, userID string, limit int) ([]ConsolidationJob, error) {
	var out []ConsolidationJob
	if err := s.db.WithContext(ctx).Where("user_id = ?", userID).Order("created_at DESC, id").Limit(limit).Find(&out).Error; err != nil {
		return nil, fmt.Errorf("models: consolidation jobs: %w", err)
	}
	return out, nil
}

// UserNames maps account ids to names, for showing who did what; unknown
// ids (erased accounts, processes) are left out.
func (s *Store) UserNames(ctx context.Context, ids []string) (map[string]string, error) {
	out := map[string]string{}
	if len(ids) == 0 {
		return out, nil
	}
	var rows []User
	if err := s.db.WithContext(ctx).Select("id, name").Where("id IN ?", ids).Find(&rows).Error; err != nil {
		return nil, fmt.Errorf("models: user names: %w", err)
	}
	for _, u := range rows {
		out[u.ID] = u.Name
	}
	return out, nil
}

// TurnSnapshots returns the request snapshots of one turn of a session, by round.
func (s *Store) TurnSnapshots(ctx context.Context, sessionID string, turn int) ([]TurnSnapshot, error) {
	var out []TurnSnapshot
	if err := s.db.WithContext(ctx).Where("session_id = ? AND turn = ?", sessionID, turn).Order("round").Find(&out).Error; err != nil {
		return nil, fmt.Errorf("models: turn snapshots: %w", err)
	}
	return out, s.wholeInstructions(ctx, out)
}
