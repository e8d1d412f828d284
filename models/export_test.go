package models

import "context"

// SubmitHolding is SubmitUserMessage for tests of the store's own rules:
// a submission by the holder of lease, or (nil, without TakeLease) one that
// takes no lease, which production never makes.
func (s *Store) SubmitHolding(ctx context.Context, um UserMessage, lease *AnswerLease) (*Submitted, error) {
	return s.submit(ctx, um, lease)
}
