package agent

import (
	"context"
	"errors"
	"log/slog"
	"math/rand/v2"
	"time"

	"concierge/models"
)

// keepAlive renews a lease every third of its length while work runs under
// it, for answer leases and job leases alike: a live holder is never taken
// over, and a dead one's lease runs out within one length. renew returns
// lost (an error errors.Is matches) when another holder took the lease:
// the returned context is then cancelled with lost as its cause, so the
// work stops; other renewal failures are logged and retried on the next
// tick (writes stay fenced by the lease token meanwhile). stop ends the
// heartbeat and reports whether the lease was lost.
func keepAlive(ctx context.Context, length time.Duration, renew func(context.Context) error, lost error,
	log *slog.Logger, attrs ...any) (context.Context, func() bool) {
	hctx, cancel := context.WithCancelCause(ctx)
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		t := time.NewTicker(max(length/3, 10*time.Millisecond))
		defer t.Stop()
		for {
			select {
			case <-hctx.Done():
				return
			case <-t.C:
			}
			err := renew(hctx)
			if errors.Is(err, lost) {
				log.Warn("lease taken over; stopping the work", append(attrs, "err_kind", "lease_lost")...)
				cancel(lost)
				return
			}
			if err != nil && hctx.Err() == nil {
				log.Warn("renew lease", append(attrs, "err", err)...)
			}
		}
	}()
	return hctx, func() bool {
		wasLost := errors.Is(context.Cause(hctx), lost)
		cancel(nil)
		<-stopped
		return wasLost
	}
}

type sessionLock struct {
	ch   chan struct{} // holds one token while a turn of the session runs here
	refs int
}

// lock serialises the turns of one session within this process, waiting at
// most wait (and while ctx lives); it fails with models.ErrBusy on timeout.
func (a *Agent) lock(ctx context.Context, sessionID string, wait time.Duration) (func(), error) {
	a.mu.Lock()
	l := a.locks[sessionID]
	if l == nil {
		l = &sessionLock{ch: make(chan struct{}, 1)}
		a.locks[sessionID] = l
	}
	l.refs++
	a.mu.Unlock()
	done := func() {
		a.mu.Lock()
		if l.refs--; l.refs == 0 {
			delete(a.locks, sessionID)
		}
		a.mu.Unlock()
	}
	timer := time.NewTimer(wait)
	defer timer.Stop()
	select {
	case l.ch <- struct{}{}:
		return func() { <-l.ch; done() }, nil
	case <-timer.C:
		done()
		return nil, models.ErrBusy
	case <-ctx.Done():
		done()
		return nil, ctx.Err()
	}
}

// errLeaseLost is the cause of a turn's context ending because another
// instance took the session's lease over.
var errLeaseLost = errors.New("answer lease lost")

// heldLease is an answer lease this process holds, renewed by a heartbeat
// until released. ctx ends if the lease is lost, so the turn stops.
type heldLease struct {
	lease  *models.AnswerLease
	ctx    context.Context
	parent context.Context // ctx's parent, alive after the heartbeat stops
	stop   func() bool     // ends the heartbeat (and ctx)
	// released is set once the lease is given back with the turn's last
	// write (CommitRound with Release), so release has nothing to do.
	released bool
	// away is set when the database refused a round as unavailable: giving
	// the lease back would wait out a second deadline before the traveler
	// is answered, and the lease expires on its own (AnswerLease).
	away bool
	a    *Agent
}

// release ends the heartbeat and gives the lease back unless the turn's
// last write already did; someone else's lease is left alone.
func (h *heldLease) release() {
	h.stop()
	if h.released {
		return
	}
	if h.away {
		h.a.log.Warn("answer lease left to expire", "session_id", h.lease.SessionID)
		return
	}
	if err := h.a.store.ReleaseAnswerLease(h.parent, h.lease); err != nil {
		h.a.log.Warn("release answer lease", "session_id", h.lease.SessionID, "err", err)
	}
}

// commit stores one round of the turn under the lease: with the lease
// renewed, or, for the turn's last round (r.Release), given back in the
// same transaction, after the heartbeat has stopped so that it cannot race
// the release.
func (h *heldLease) commit(r models.Round) error {
	if !r.Release {
		r.Renew = h.a.cfg.AnswerLease
		err := h.a.notes.CommitRound(h.ctx, h.lease, r)
		h.away = h.away || models.IsUnavailable(err)
		return err
	}
	if h.stop() {
		return errLeaseLost
	}
	if err := h.a.notes.CommitRound(h.parent, h.lease, r); err != nil {
		h.away = h.away || models.IsUnavailable(err)
		return err
	}
	h.released = true
	return nil
}

// keep starts the heartbeat of a lease just taken: every third of
// AnswerLease the lease is renewed; if the renewal finds the lease taken
// over, the turn's context is cancelled (and every write is fenced by the
// lease token anyway), so live work is never doubled and a dead holder's
// lease is taken over within AnswerLease.
func (a *Agent) keep(ctx context.Context, l *models.AnswerLease) *heldLease {
	hctx, stop := keepAlive(ctx, a.cfg.AnswerLease, func(ctx context.Context) error {
		err := a.store.RenewAnswerLease(ctx, l, a.cfg.AnswerLease)
		if errors.Is(err, models.ErrLeaseLost) {
			return errLeaseLost
		}
		return err
	}, errLeaseLost, a.log, "session_id", l.SessionID)
	return &heldLease{lease: l, ctx: hctx, parent: ctx, stop: stop, a: a}
}

// whileBusy runs try until it stops failing with models.ErrBusy (another
// instance holds the session), for at most wait; the last error stands.
func whileBusy(ctx context.Context, wait time.Duration, try func() error) error {
	deadline := time.Now().Add(wait)
	for {
		err := try()
		left := time.Until(deadline)
		if !errors.Is(err, models.ErrBusy) || left <= 0 {
			return err
		}
		// Poll with jitter so waiters on several instances spread out.
		pause := min(left, 40*time.Millisecond+time.Duration(rand.Int64N(int64(80*time.Millisecond))))
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(pause):
		}
	}
}
