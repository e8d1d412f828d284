package agent

import (
	"context"
	"errors"
	"log/slog"
	"time"
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
