package agent

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"go.opentelemetry.io/otel/trace"

	"concierge/memory"
	"concierge/memory/consolidate"
	"concierge/models"
)

// WorkerConfig tunes the background jobs.
type WorkerConfig struct {
	ID             string        // this instance's worker id, for job leases
	Workers        int           // consolidation jobs run at once
	Poll           time.Duration // how often to look for queued jobs
	Lease          time.Duration // how long a claimed job stays with a worker that stopped renewing it
	SessionIdle    time.Duration // close sessions idle this long (0: never)
	Retention      time.Duration // delete transcripts older than this (0: keep)
	SweepEvery     time.Duration // how often idle sessions and retention are checked
	TripGrace      time.Duration // an ended trip's notes stay this long after its end date (0: models.DefaultTripGrace)
	MaxGlobalNotes int
}

// DefaultWorkerConfig returns the background jobs' defaults.
func DefaultWorkerConfig() WorkerConfig {
	return WorkerConfig{ID: models.NewID(), Workers: 2, Poll: time.Second, Lease: 8 * time.Second,
		SessionIdle: 30 * time.Minute, Retention: 90 * 24 * time.Hour, SweepEvery: time.Minute,
		MaxGlobalNotes: memory.DefaultMaxGlobalNotes}
}

// Worker runs consolidation jobs, closes idle sessions and applies the
// retention period. Every step is safe when several instances run one.
type Worker struct {
	cfg       WorkerConfig
	store     *models.Store
	completer memory.Completer // nil: the rules engine only
	log       *slog.Logger
	now       func() time.Time
	tracer    trace.Tracer // nil: tracing off (see trace.go)

	wake chan struct{}
	wg   sync.WaitGroup

	mu      sync.Mutex
	waiters map[string][]chan struct{}
}

// NewWorker builds a Worker; completer may be nil.
func NewWorker(cfg WorkerConfig, store *models.Store, completer memory.Completer, log *slog.Logger) *Worker {
	return &Worker{cfg: cfg, store: store, completer: completer, log: log, now: time.Now,
		wake: make(chan struct{}, 1), waiters: map[string][]chan struct{}{}}
}

// Start runs the workers until ctx is done; Wait waits for them to stop.
func (w *Worker) Start(ctx context.Context) {
	for i := 0; i < max(w.cfg.Workers, 1); i++ {
		w.wg.Add(1)
		go func() {
			defer w.wg.Done()
			w.loop(ctx)
		}()
	}
	w.wg.Add(1)
	go func() {
		defer w.wg.Done()
		w.sweepLoop(ctx)
	}()
}

// Wait blocks until every goroutine Start began has returned.
func (w *Worker) Wait() { w.wg.Wait() }

// Notify wakes a worker to look for jobs now.
func (w *Worker) Notify() {
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

// Done returns a channel closed when this instance finishes job id, and a
// function the caller must call when it stops waiting (the job may finish
// on another instance, or before the call). Callers read the outcome from
// the store.
func (w *Worker) Done(jobID string) (<-chan struct{}, func()) {
	ch := make(chan struct{})
	w.mu.Lock()
	w.waiters[jobID] = append(w.waiters[jobID], ch)
	w.mu.Unlock()
	cancel := func() {
		w.mu.Lock()
		defer w.mu.Unlock()
		list := w.waiters[jobID]
		for i, c := range list {
			if c == ch {
				list = append(list[:i], list[i+1:]...)
				break
			}
		}
		if len(list) == 0 {
			delete(w.waiters, jobID)
		} else {
			w.waiters[jobID] = list
		}
	}
	return ch, cancel
}

// Waiting counts the registered waiters, for tests.
func (w *Worker) Waiting() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	n := 0
	for _, l := range w.waiters {
		n += len(l)
	}
	return n
}

// jobDone wakes whoever waits for the job.
func (w *Worker) jobDone(jobID string) {
	w.mu.Lock()
	for _, ch := range w.waiters[jobID] {
		close(ch)
	}
	delete(w.waiters, jobID)
	w.mu.Unlock()
}

func (w *Worker) loop(ctx context.Context) {
	t := time.NewTicker(w.cfg.Poll)
	defer t.Stop()
	for {
		for w.RunOnce(ctx) {
			if ctx.Err() != nil {
				return
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		case <-w.wake:
		}
	}
}

// optimisticTries is how often one claim computes a consolidation with no
// transaction open (the model may think for seconds) and finds the
// traveler's memory changed before it gives up being optimistic; the last
// try then computes with the rules engine inside the transaction that
// locks the traveler's memory, which cannot lose.
const optimisticTries = 3

// RunOnce claims and runs one job; it reports whether there was one.
func (w *Worker) RunOnce(ctx context.Context) bool {
	job, err := w.store.ClaimJob(ctx, w.cfg.ID, w.cfg.Lease)
	if err != nil {
		if !errors.Is(err, models.ErrNotFound) && ctx.Err() == nil {
			w.log.Error("claim consolidation job", "err", err)
		}
		return false
	}
	defer w.jobDone(job.ID)
	start := time.Now()
	ctx, endSpan := w.startJob(ctx, job)
	jctx, stop := w.heartbeat(ctx, job)
	var res consolidate.Result
	tries := 0
	defer func() { endSpan(res, tries, err) }()
	for {
		tries++
		if tries > optimisticTries {
			_, res, err = w.store.Notes(memory.Limits{}).ApplyConsolidationLocked(jctx, job, w.cfg.ID, func(global, session []memory.Note) consolidate.Result {
				return consolidate.ByRules(global, session, w.options())
			})
			break
		}
		var version int64
		res, version, err = w.consolidate(jctx, job)
		if err == nil {
			_, err = w.store.Notes(memory.Limits{}).ApplyConsolidation(jctx, job, w.cfg.ID, res, version)
		}
		if !errors.Is(err, models.ErrMemoryChanged) {
			break
		}
		// Another consolidation of this traveler, or an edit, landed while
		// we computed: compute again from the notes as they are now.
		w.log.Info("traveler's memory changed during consolidation; recomputing", "job_id", job.ID, "try", tries)
	}
	lost := stop()
	if err != nil {
		if errors.Is(err, models.ErrJobLost) || lost {
			w.log.Warn("consolidation job taken over by another worker", "job_id", job.ID)
			return true
		}
		if ctx.Err() != nil {
			// Shutting down: hand the job back now rather than leaving it
			// leased until the lease runs out.
			if rerr := w.store.ReleaseJob(context.WithoutCancel(ctx), job, w.cfg.ID); rerr != nil {
				w.log.Error("release consolidation job", "job_id", job.ID, "err", rerr)
			}
			w.log.Warn("consolidation job interrupted by shutdown", "job_id", job.ID)
			return true
		}
		w.log.Error("consolidation job failed", "job_id", job.ID, "attempt", job.Attempts, "err", err)
		if ferr := w.store.FailJob(context.WithoutCancel(ctx), job, w.cfg.ID, "consolidation failed; it will be retried"); ferr != nil {
			w.log.Error("record job failure", "job_id", job.ID, "err", ferr)
		}
		return true
	}
	w.log.InfoContext(ctx, "consolidated session", "job_id", job.ID, "session_id", job.SessionID, "user_id", job.UserID,
		"engine", res.Engine, "fallback", res.FallbackReason != "", "decisions", len(res.Decisions),
		"global_notes", len(res.Global), "tries", tries, "duration_ms", time.Since(start).Milliseconds())
	return true
}

// heartbeat renews job's lease every third of the lease while it runs, so
// a live job is never taken over and a dead worker's job is within one
// lease. The returned context ends when the lease is lost; stop ends the
// heartbeat and reports whether the lease was lost.
func (w *Worker) heartbeat(ctx context.Context, job *models.ConsolidationJob) (context.Context, func() bool) {
	return keepAlive(ctx, w.cfg.Lease, func(ctx context.Context) error {
		return w.store.RenewJob(ctx, job, w.cfg.ID, w.cfg.Lease)
	}, models.ErrJobLost, w.log, "job_id", job.ID)
}

// consolidate reads the traveler's memory version, then the notes, and
// computes the result with no transaction open (the model may take
// seconds). The version goes to ApplyConsolidation, which applies only if
// it is unchanged.
func (w *Worker) consolidate(ctx context.Context, job *models.ConsolidationJob) (consolidate.Result, int64, error) {
	version, err := w.store.MemoryVersion(ctx, job.UserID)
	if err != nil {
		return consolidate.Result{}, 0, err
	}
	global, err := w.store.GlobalNotes(ctx, job.UserID)
	if err != nil {
		return consolidate.Result{}, 0, err
	}
	session, err := w.store.SessionNotes(ctx, job.SessionID)
	if err != nil {
		return consolidate.Result{}, 0, err
	}
	if w.completer != nil && len(session) > 0 {
		return consolidate.WithModel(ctx, w.completer, global, session, w.options()), version, nil
	}
	return consolidate.ByRules(global, session, w.options()), version, nil
}

func (w *Worker) options() consolidate.Options {
	return consolidate.Options{Today: w.now().UTC().Format(memory.DateLayout), MaxGlobalNotes: w.cfg.MaxGlobalNotes, NewID: models.NewID}
}

func (w *Worker) sweepLoop(ctx context.Context) {
	t := time.NewTicker(w.cfg.SweepEvery)
	defer t.Stop()
	for {
		w.Sweep(ctx)
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// Sweep closes idle sessions, deletes expired transcripts and credentials,
// ends trips (EndTrips: planning and booked trips past their end become travelled,
// ended trips' notes are deleted), and deletes notes past their end date
// and notes forgotten in ended conversations.
//
// Idleness and retention are measured on the store's shared clock (the
// database's, on PostgreSQL), so an instance whose clock runs fast closes
// nothing early.
func (w *Worker) Sweep(ctx context.Context) {
	now := w.store.SharedNow()
	if w.cfg.SessionIdle > 0 {
		idle, err := w.store.IdleSessions(ctx, now.Add(-w.cfg.SessionIdle), 100)
		if err != nil && ctx.Err() == nil {
			w.log.Error("find idle sessions", "err", err)
		}
		for _, cs := range idle {
			if _, err := w.store.CloseSession(ctx, cs.ID, "idle"); err != nil {
				w.log.Error("close idle session", "session_id", cs.ID, "err", err)
				continue
			}
			w.log.Info("closed idle session", "session_id", cs.ID, "user_id", cs.UserID)
		}
		if len(idle) > 0 {
			w.Notify()
		}
	}
	if w.cfg.Retention > 0 {
		if n, err := w.store.DeleteExpiredTranscripts(ctx, now.Add(-w.cfg.Retention)); err != nil {
			if ctx.Err() == nil {
				w.log.Error("apply retention", "err", err)
			}
		} else if n > 0 {
			w.log.Info("deleted expired transcripts", "rows", n)
		}
	}
	grace := w.cfg.TripGrace
	if grace <= 0 {
		grace = models.DefaultTripGrace
	}
	// Trips end by calendar day, a week after their end date: the
	// worker's own clock is close enough, and each trip ends once whichever
	// instance gets there (EndTrips is idempotent).
	if n, err := w.store.Notes(memory.Limits{}).Trips().EndTrips(ctx, w.now(), grace, 100); err != nil {
		if ctx.Err() == nil {
			w.log.Error("end trips", "err", err)
		}
	} else if n > 0 {
		w.log.Info("ended trips", "trips", n)
	}
	if n, err := w.store.DeleteExpiredCredentials(ctx); err == nil && n > 0 {
		w.log.Info("deleted expired credentials", "rows", n)
	}
	w.sweepNotes(ctx)
}

// sweepNotes deletes the notes whose end date has passed (on the worker's
// clock, which dates consolidation too) and the notes forgotten in
// conversations that have ended (their Undo is over).
func (w *Worker) sweepNotes(ctx context.Context) {
	notes := w.store.Notes(memory.Limits{})
	if n, err := notes.DeleteExpired(ctx, w.now().UTC().Format(memory.DateLayout)); err != nil {
		if ctx.Err() == nil {
			w.log.Error("delete expired notes", "err", err)
		}
	} else if n > 0 {
		w.log.Info("deleted expired notes", "notes", n)
	}
	if n, err := notes.PurgeForgotten(ctx); err != nil {
		if ctx.Err() == nil {
			w.log.Error("delete forgotten notes", "err", err)
		}
	} else if n > 0 {
		w.log.Info("deleted forgotten notes", "notes", n)
	}
}
