package agent

import (
	"cmp"
	"context"
	"errors"
	"log/slog"
	"strconv"
	"sync"
	"time"

	"go.opentelemetry.io/otel/trace"

	"concierge/memory"
	"concierge/models"
)

// The defaults of RunnerConfig.
const (
	DefaultModelConcurrency = 512
	DefaultTurnTimeout      = 4 * time.Minute
	DefaultRetryAfter       = 5 * time.Second
	DefaultKeepFailure      = 5 * time.Minute
)

// RunnerConfig tunes the Runner. Zero values mean the defaults.
type RunnerConfig struct {
	// Concurrency is how many turns run the model at once.
	Concurrency int
	// Queue is how many more turns may wait for one of those places;
	// beyond it new turns are refused with ErrOverloaded. 0 means
	// 2 × Concurrency; a negative value means no waiting at all.
	Queue int
	// Timeout bounds one turn, every model round and write included. It
	// is the only limit besides shutdown: a turn never stops because the
	// client that asked for it went away.
	Timeout time.Duration
	// RetryAfter is how long a refused client is asked to wait.
	RetryAfter time.Duration
	// KeepFailure is how long a failed answer is shown to whoever opens its
	// stream, before opening it starts a new try by itself (Retry always
	// does).
	KeepFailure time.Duration
}

// ErrOverloaded is returned when the model's queue is full; nothing was
// stored or started, and the client should come back after RetryAfter.
var ErrOverloaded = errors.New("agent: too many turns are waiting for the model")

// ErrDraining is returned once the runner has stopped taking new turns
// because the server is shutting down.
var ErrDraining = errors.New("agent: shutting down, no new turns are taken")

// Runner runs answers detached from the requests that ask for them. Once a
// user message is stored the server owns producing its answer: the turn
// runs on a context of the runner's that ends only at the turn timeout or
// at shutdown, and it stores the answer, tool results and snapshot whether
// or not anyone still listens. Requests only watch: any number of streams
// can follow one turn, and a session has at most one answer running in
// this process (the answer lease in the database takes care of the others).
type Runner struct {
	cfg   RunnerConfig
	agent *Agent
	log   *slog.Logger
	base  context.Context
	abort context.CancelFunc
	slots chan struct{}
	runID string

	mu        sync.Mutex
	admitted  int // turns holding or waiting for a slot, reserved tickets included
	closing   bool
	stopping  chan struct{}
	turns     map[string]*Turn // by session: the running turn, or a recent failure
	recent    map[string]*Turn // by session: the last turn that answered, for a while
	seq       uint64
	lastSweep time.Time
	wg        sync.WaitGroup
}

// NewRunner returns a runner for the agent's turns.
func NewRunner(cfg RunnerConfig, a *Agent, log *slog.Logger) *Runner {
	cfg.Concurrency = cmp.Or(max(cfg.Concurrency, 0), DefaultModelConcurrency)
	switch {
	case cfg.Queue == 0:
		cfg.Queue = 2 * cfg.Concurrency
	case cfg.Queue < 0:
		cfg.Queue = 0
	}
	cfg.Timeout = cmp.Or(cfg.Timeout, DefaultTurnTimeout)
	cfg.RetryAfter = cmp.Or(cfg.RetryAfter, DefaultRetryAfter)
	cfg.KeepFailure = cmp.Or(cfg.KeepFailure, DefaultKeepFailure)
	base, abort := context.WithCancel(context.Background())
	return &Runner{cfg: cfg, agent: a, log: log, base: base, abort: abort, slots: make(chan struct{}, cfg.Concurrency),
		runID: strconv.FormatInt(time.Now().UnixNano(), 36), stopping: make(chan struct{}), turns: map[string]*Turn{}, recent: map[string]*Turn{}}
}

// RetryAfter is how long a client refused with ErrOverloaded or
// ErrDraining should wait before it tries again.
func (r *Runner) RetryAfter() time.Duration { return r.cfg.RetryAfter }

// Timeout is the longest a turn may run.
func (r *Runner) Timeout() time.Duration { return r.cfg.Timeout }

// Stopping is closed when the runner stops taking new turns.
func (r *Runner) Stopping() <-chan struct{} { return r.stopping }

func (r *Runner) admitLocked() error {
	if r.closing {
		return ErrDraining
	}
	if r.admitted >= r.cfg.Concurrency+r.cfg.Queue {
		return ErrOverloaded
	}
	r.admitted++
	r.wg.Add(1)
	return nil
}

func (r *Runner) leaveLocked() {
	r.admitted--
	r.wg.Done()
}

// Join returns the turn answering the session's pending message: the one
// running, else a failure kept from the last try (so that a stream opened
// after a failure shows it with Retry instead of calling the model again on
// its own), else a new turn. A new turn for a message that is answered
// already ends at once with ErrNothingToAnswer; it never calls the model.
func (r *Runner) Join(sessionID string) (*Turn, error) {
	return r.answer(sessionID, false)
}

// Retry is Join for the Retry button: a kept failure is dropped and the
// message is tried again.
func (r *Runner) Retry(sessionID string) (*Turn, error) {
	return r.answer(sessionID, true)
}

func (r *Runner) answer(sessionID string, retry bool) (*Turn, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if cur := r.turns[sessionID]; cur != nil {
		// A finished turn is handed back only as a kept failure: one that
		// succeeded answered an older message, and the pending one (stored
		// while it finished, before its cleanup ran) needs a turn of its own.
		if !cur.over() || (!retry && kept(cur.err) && time.Since(cur.ended) < r.cfg.KeepFailure) {
			return cur, nil
		}
	}
	if err := r.admitLocked(); err != nil {
		return nil, err
	}
	return r.runLocked(sessionID), nil
}

// runLocked starts a turn for the session's pending message on an
// admitted place.
func (r *Runner) runLocked(sessionID string) *Turn {
	ctx, cancel := context.WithTimeout(r.base, r.cfg.Timeout)
	t := r.newTurnLocked(sessionID)
	ctx, t.span = r.agent.startTurn(ctx, sessionID, trace.SpanContext{})
	go r.run(ctx, cancel, sessionID, t, func(ctx context.Context) (*TurnResult, error) {
		return r.agent.AnswerPending(ctx, sessionID, t.append)
	}, nil)
	return t
}

// newTurnLocked registers a new turn as the session's.
func (r *Runner) newTurnLocked(sessionID string) *Turn {
	r.seq++
	t := &Turn{id: r.runID + "-" + strconv.FormatUint(r.seq, 36), wake: make(chan struct{}), done: make(chan struct{})}
	r.turns[sessionID] = t
	r.sweepLocked()
	return t
}

// run produces t's answer with answer once a model slot is free, on ctx
// (cancel ends it), and gives the admitted place back; if ctx ends first,
// giveUp (when set) lets go of what the turn holds.
func (r *Runner) run(ctx context.Context, cancel context.CancelFunc, sessionID string, t *Turn,
	answer func(ctx context.Context) (*TurnResult, error), giveUp func()) {
	defer func() {
		r.mu.Lock()
		defer r.mu.Unlock()
		r.leaveLocked()
		if r.turns[sessionID] == t && !kept(t.err) {
			delete(r.turns, sessionID)
		}
		if t.err == nil {
			r.recent[sessionID] = t
		}
	}()
	defer cancel()
	select {
	case r.slots <- struct{}{}:
		defer func() { <-r.slots }()
		res, err := answer(ctx)
		t.finish(res, err)
	case <-ctx.Done():
		if giveUp != nil {
			giveUp()
		}
		t.finish(nil, ctx.Err())
	}
}

// kept says which failures are shown to later watchers rather than tried
// again: the model's, our own and the turn's timeout — not "answered
// already", "ended", "another instance answers" (or took the turn over) or
// a shutdown. It reads FailureKind, the one classification of a turn's
// failure.
func kept(err error) bool {
	switch FailureKind(err) {
	case "", FailAnswered, FailSessionClosed, FailBusy, FailCanceled:
		return false
	}
	return true
}

// sweepLocked drops kept failures that are old enough, at most once a minute.
func (r *Runner) sweepLocked() {
	now := time.Now()
	if now.Sub(r.lastSweep) < time.Minute {
		return
	}
	r.lastSweep = now
	for id, t := range r.turns {
		if t.over() && now.Sub(t.ended) >= r.cfg.KeepFailure {
			delete(r.turns, id)
		}
	}
	for id, t := range r.recent {
		if now.Sub(t.ended) >= r.cfg.KeepFailure {
			delete(r.recent, id)
		}
	}
}

// Recent returns the result of the session's last answered turn in this
// process, if it ended lately: what the transcript does not keep (the
// refusal categories of blocked notes) for a stream that comes after it.
func (r *Runner) Recent(sessionID string) *TurnResult {
	r.mu.Lock()
	defer r.mu.Unlock()
	t := r.recent[sessionID]
	if t == nil || time.Since(t.ended) >= r.cfg.KeepFailure {
		return nil
	}
	return t.res
}

// Submit is how a message enters a turn, for the page and the API alike:
// it takes a place in the model's queue (or fails with ErrOverloaded or
// ErrDraining, storing nothing), stores the message with the session's
// answer lease (Agent.Store) and starts the turn that answers exactly that
// message, registered as the session's, so that streams join it. It
// returns the message's turn number and that *Turn. The turn runs on the
// runner's context from the store on: a caller that leaves changes
// nothing.
func (r *Runner) Submit(p Post) (int, *Turn, error) {
	r.mu.Lock()
	err := r.admitLocked()
	r.mu.Unlock()
	if err != nil {
		return 0, nil, err
	}
	ctx, cancel := context.WithTimeout(r.base, r.cfg.Timeout)
	ctx, span := r.agent.startTurn(ctx, p.SessionID, p.Trace)
	pd, err := r.agent.Store(ctx, p)
	if err == nil && pd.Answered() != nil {
		// A retry of a message answered already: its stored answer.
		t := &Turn{id: r.runID + "-stored", wake: make(chan struct{}), done: make(chan struct{}), span: span}
		t.finish(pd.Answered(), nil)
		cancel()
		r.mu.Lock()
		r.leaveLocked()
		r.mu.Unlock()
		return pd.Turn(), t, nil
	}
	if err != nil {
		endTurn(span, nil, err)
		cancel()
		r.mu.Lock()
		r.leaveLocked()
		r.mu.Unlock()
		return 0, nil, err
	}
	r.mu.Lock()
	t := r.newTurnLocked(p.SessionID)
	t.span = span
	r.mu.Unlock()
	go r.run(ctx, cancel, p.SessionID, t, func(context.Context) (*TurnResult, error) { return pd.Answer(t.append) }, pd.Release)
	return pd.Turn(), t, nil
}

// Send is Submit, then waits for the turn's result while ctx lasts; if the
// caller goes away, the turn still finishes and is stored.
func (r *Runner) Send(ctx context.Context, p Post) (*TurnResult, error) {
	_, t, err := r.Submit(p)
	if err != nil {
		return nil, err
	}
	select {
	case <-t.Done():
		res, err := t.Result()
		// The message is stored: a database that went away since took
		// only its answer.
		return res, models.MarkStored(err, models.StoredYes)
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Drain stops taking new turns and waits for the running ones (and those
// whose message is stored and place reserved) to finish, until ctx ends.
// Then it cancels what still runs, waits a moment for it to stop and
// returns ctx's error; those messages stay stored, waiting for an answer.
func (r *Runner) Drain(ctx context.Context) error {
	r.mu.Lock()
	if !r.closing {
		r.closing = true
		close(r.stopping)
	}
	running := r.admitted
	r.mu.Unlock()
	done := waited(&r.wg)
	select {
	case <-done:
		return nil
	case <-ctx.Done():
	}
	r.log.Warn("shutdown timeout: cancelling running turns", "running", running)
	r.abort()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
	}
	return ctx.Err()
}

// Turn is one answer being produced. Its text grows as the model streams
// it; watchers read it from any offset, so a stream can start late or
// resume after a reconnect without repeating anything.
type Turn struct {
	id   string
	done chan struct{}

	mu    sync.Mutex
	text  []byte
	wake  chan struct{} // closed and replaced whenever text grows or the turn ends
	res   *TurnResult
	err   error
	ended time.Time
	span  trace.Span // the turn's span, ended with it; nil when tracing is off
}

// ID names this run of the turn, unique across runs and restarts, for
// event ids.
func (t *Turn) ID() string { return t.id }

// Done is closed when the turn has ended.
func (t *Turn) Done() <-chan struct{} { return t.done }

// Result is the turn's outcome once Done is closed.
func (t *Turn) Result() (*TurnResult, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.res, t.err
}

// Next waits until the turn has text beyond offset or ends, and returns
// that text and the offset after it; ended is true (and chunk empty) once
// the turn has ended and everything was read. It returns ctx's error when
// ctx ends first. Offsets count bytes and only ever fall between deltas.
func (t *Turn) Next(ctx context.Context, offset int) (chunk string, next int, ended bool, err error) {
	for {
		t.mu.Lock()
		if offset < 0 || offset > len(t.text) {
			offset = 0
		}
		if len(t.text) > offset {
			chunk, next = string(t.text[offset:]), len(t.text)
			t.mu.Unlock()
			return chunk, next, false, nil
		}
		if !t.ended.IsZero() {
			t.mu.Unlock()
			return "", offset, true, nil
		}
		wake := t.wake
		t.mu.Unlock()
		select {
		case <-wake:
		case <-ctx.Done():
			return "", offset, false, ctx.Err()
		}
	}
}

// Len is how much text the turn has produced so far.
func (t *Turn) Len() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.text)
}

func (t *Turn) append(delta string) {
	if delta == "" {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.text = append(t.text, delta...)
	close(t.wake)
	t.wake = make(chan struct{})
}

func (t *Turn) finish(res *TurnResult, err error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.res, t.err, t.ended = res, err, time.Now()
	endTurn(t.span, res, err)
	close(t.wake)
	close(t.done)
}

func (t *Turn) over() bool {
	select {
	case <-t.done:
		return true
	default:
		return false
	}
}

// The words FailureKind names a turn's failure with.
const (
	FailModel         = "model"          // the model call failed
	FailStore         = "store"          // a database read or write failed
	FailBusy          = "busy"           // another instance holds (or took over) the answer lease
	FailSessionClosed = "session_closed" // the conversation ended
	FailAnswered      = "answered"       // the message has its answer already
	FailTimeout       = "timeout"        // the turn's own limit
	FailCanceled      = "canceled"       // shutdown
	FailOverloaded    = "overloaded"     // the model's queue is full
	FailDraining      = "draining"       // the runner takes no new turns
)

// FailureKind is the one classification of a turn's failure, for the
// runner (which failures it keeps for later watchers), the logs and
// metrics (a stable word, never the error's text) and the answer stream
// (what it shows): one of the Fail* words, "" for nil.
func FailureKind(err error) string {
	var me *ModelError
	switch {
	case err == nil:
		return ""
	case errors.Is(err, ErrOverloaded):
		return FailOverloaded
	case errors.Is(err, ErrDraining):
		return FailDraining
	case errors.Is(err, models.ErrBusy), errors.Is(err, models.ErrConflict), memory.ErrorCode(err) == memory.EANSWERING:
		return FailBusy
	case errors.Is(err, models.ErrSessionClosed):
		return FailSessionClosed
	case errors.Is(err, ErrNothingToAnswer):
		return FailAnswered
	case errors.Is(err, context.DeadlineExceeded):
		return FailTimeout
	case errors.Is(err, context.Canceled):
		// Also a model call that a timeout or shutdown cut short: the
		// turn's limit or the restart, not the model, is what to tell.
		return FailCanceled
	case errors.As(err, &me):
		return FailModel
	}
	// The turn loop's other steps are the store's reads and writes; the
	// guardrails never fail a turn (a refused note is a tool result).
	return FailStore
}

// waited is closed once wg's count is zero.
func waited(wg *sync.WaitGroup) <-chan struct{} {
	done := make(chan struct{})
	go func() {
		wg.Wait()
		close(done)
	}()
	return done
}
