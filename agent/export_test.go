package agent

import (
	"context"
	"time"

	"concierge/models"
)

// The entry points below are for tests only: production sends go through
// Runner.Submit (Agent.Store, then the runner's turn calls AnswerPending).
// Send is the older path that stores the message and takes the answer
// lease in one transaction; the tests of that store path and of
// cross-instance idempotency use it, and Turn is Send without a key.

// Turn runs one chat turn for the session's owner (Send without a key).
func (a *Agent) Turn(ctx context.Context, sessionID, content string, onDelta func(string)) (*TurnResult, error) {
	return a.Send(ctx, Post{SessionID: sessionID, Content: content, OnDelta: onDelta})
}

// Send runs one chat turn: it waits (up to AnswerWait) for the session's
// other turns, here or on another instance, then stores the user's message
// before anything else, taking the session's answer lease in the same
// transaction, and answers it. A failure later loses nothing; a retry
// (same key, or same text without one) answers the stored message instead
// of storing it twice. When the wait runs out it fails with
// memory.EANSWERING (and the stored message's turn) if the message is
// stored and being answered elsewhere, and with models.ErrBusy
// (memory.ENOTSTORED) if nothing was written.
func (a *Agent) Send(ctx context.Context, p Post) (*TurnResult, error) {
	start := time.Now()
	unlock, err := a.lock(ctx, p.SessionID, a.cfg.AnswerWait)
	if err != nil {
		return a.notAnswered(ctx, p, err)
	}
	defer unlock()
	var sub *models.Submitted
	err = whileBusy(ctx, a.cfg.AnswerWait-time.Since(start), func() (err error) {
		sub, err = a.store.SubmitUserMessage(ctx, models.UserMessage{SessionID: p.SessionID, Content: p.Content,
			IdempotencyKey: p.IdempotencyKey, TakeLease: a.cfg.AnswerLease})
		return err
	})
	if err != nil {
		return a.notAnswered(ctx, p, err)
	}
	h := a.keep(ctx, sub.Lease)
	defer h.release()
	if sub.Existed {
		if res, ok := a.storedAnswer(ctx, sub.Message); ok {
			return res, nil
		}
	}
	return a.answer(h, sub.Session, sub.Message.Turn, p.OnDelta, start)
}

// Submit stores a user message without calling the model (Store without a
// key), for clients that answer it separately.
func (a *Agent) Submit(ctx context.Context, sessionID, content string) (int, error) {
	return a.Store(ctx, Post{SessionID: sessionID, Content: content})
}
