package models

import "context"

// SubmitHolding is SubmitUserMessage for tests of the store's own rules:
// a submission by the holder of lease, or (nil, without TakeLease) one that
// takes no lease, which production never makes.
func (s *Store) SubmitHolding(ctx context.Context, um UserMessage, lease *AnswerLease) (*Submitted, error) {
	return s.submit(ctx, um, lease)
}

// CloseIdle closes the connections idle in the store's pool, as a
// migration on PostgreSQL does after it ran.
func (s *Store) CloseIdle() { closeIdle(s.sqlDB) }
