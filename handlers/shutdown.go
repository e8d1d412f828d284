package handlers

import (
	"context"
	"errors"
	"sync/atomic"

	"concierge/agent"
	"concierge/memory"
)

// errAbandoned is the cause of a request context that shutdown gave up on.
var errAbandoned = errors.New("handlers: shutdown gave up waiting for this answer")

// Abandon tells every request still waiting for a turn that shutdown has
// given up on it: each answers at once — 409 answer_in_progress with the
// turn where its message was stored, 503 restarting where not, and a
// stream its last event with Retry — instead of being cut off. Call it when
// draining times out, before closing the connections.
func (s *Server) Abandon() { s.abandonOnce() }

// untilAbandoned derives a context that ends when ctx does or when the
// server abandons its requests.
func (s *Server) untilAbandoned(ctx context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancelCause(ctx)
	stop := context.AfterFunc(s.abandoned, func() { cancel(errAbandoned) })
	return ctx, func() { stop(); cancel(nil) }
}

// gaveUp reports whether a turn's err means shutdown gave up on it: the
// request was abandoned, or the runner cancelled the turn while draining.
func (s *Server) gaveUp(ctx context.Context, err error) bool {
	if context.Cause(ctx) == errAbandoned {
		return true
	}
	select {
	case <-s.turns.Stopping():
		return errors.Is(err, context.Canceled) && ctx.Err() == nil
	default:
		return false
	}
}

// restartingError is what a request shutdown gave up on answers.
func restartingError(turn int) error {
	if turn > 0 {
		return &memory.Error{Code: memory.EANSWERING, Turn: turn,
			Message: "Your message is stored; Concierge is restarting before it could answer. Send it again with the same Idempotency-Key in a moment to get its answer."}
	}
	return agent.ErrDraining
}

// storedTurn remembers the turn a request's message was stored as (0: not
// stored yet), written by the turn and read by the request.
type storedTurn struct{ turn atomic.Int64 }

func (st *storedTurn) set(turn int) { st.turn.Store(int64(turn)) }

func (st *storedTurn) get() int {
	if st == nil {
		return 0
	}
	return int(st.turn.Load())
}
