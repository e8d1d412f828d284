package models

import (
	"context"
	"fmt"
	"time"
)

// ErasureDueSoon is how close to its due date a pending request is
// highlighted as due soon.
const ErasureDueSoon = 7 * 24 * time.Hour

// Urgency of a pending erasure request against its due date.
const (
	ErasureOnTime  = ""
	ErasureDueNear = "due_soon"
	ErasureOverdue = "overdue"
)

// DueAt is when the request must be executed, given how long requests may
// wait (handlers.Config.ErasureDue).
func (r *ErasureRequest) DueAt(within time.Duration) time.Time { return r.CreatedAt.Add(within) }

// Urgency says at now whether a pending request is overdue, due within
// ErasureDueSoon, or on time; a request already executed is on time.
func (r *ErasureRequest) Urgency(now time.Time, within time.Duration) string {
	if r.Status != ErasurePending {
		return ErasureOnTime
	}
	due := r.DueAt(within)
	switch {
	case !now.Before(due):
		return ErasureOverdue
	case due.Sub(now) <= ErasureDueSoon:
		return ErasureDueNear
	}
	return ErasureOnTime
}

// Clock is the store's clock (injectable in tests), for pages that compare
// stored times with it.
func (s *Store) Clock() time.Time { return s.now() }

// ErasureReceipts lists executed erasure requests, oldest first: what an
// auditor's export holds, without personal content.
func (s *Store) ErasureReceipts(ctx context.Context) ([]ErasureRequest, error) {
	var out []ErasureRequest
	if err := s.db.WithContext(ctx).Where("status = ?", ErasureDone).Order("completed_at, id").Find(&out).Error; err != nil {
		return nil, fmt.Errorf("models: erasure receipts: %w", err)
	}
	return out, nil
}
