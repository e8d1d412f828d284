package agent_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"concierge/agent"
	"concierge/memory"
	"concierge/models"
)

// gated is a model that streams a word, then waits for release (or its
// context) before it answers; calls counts the calls it got.
type gated struct {
	release chan struct{}
	calls   atomic.Int32
	fail    error
}

func newGated() *gated { return &gated{release: make(chan struct{})} }

func (g *gated) Name() string { return "gated" }

func (g *gated) Complete(ctx context.Context, _ agent.Request, onDelta func(string)) (agent.Response, error) {
	g.calls.Add(1)
	if onDelta != nil {
		onDelta("Hello ")
	}
	select {
	case <-g.release:
	case <-ctx.Done():
		return agent.Response{}, ctx.Err()
	}
	if g.fail != nil {
		return agent.Response{}, g.fail
	}
	if onDelta != nil {
		onDelta("traveler.")
	}
	return agent.Response{Content: "Hello traveler."}, nil
}

func newRunner(t *testing.T, store *models.Store, p agent.Provider, cfg agent.RunnerConfig) *agent.Runner {
	t.Helper()
	r := agent.NewRunner(cfg, agent.New(agent.DefaultConfig("gpt-4o-mini"), store, p, quietLog()), quietLog())
	t.Cleanup(func() {
		c, cancel := context.WithTimeout(ctx, time.Second)
		defer cancel()
		_ = r.Drain(c)
	})
	return r
}

// TestRunnerOneTurnManyWatchers: watchers of a session share one turn and
// one model call, each reads the whole text from wherever it starts, and a
// turn for an answered message ends without calling the model.
func TestRunnerOneTurnManyWatchers(t *testing.T) {
	store, _, sid := seeded(t)
	model := newGated()
	r := newRunner(t, store, model, agent.RunnerConfig{})
	_, first, err := r.Submit(agent.Post{SessionID: sid, Content: "Hi"})
	if err != nil {
		t.Fatal(err)
	}
	if chunk, next, _, err := first.Next(ctx, 0); err != nil || chunk != "Hello " || next != 6 {
		t.Fatalf("first piece %q %d %v", chunk, next, err)
	}
	second, err := r.Join(sid)
	if err != nil || second != first {
		t.Fatalf("a second watcher got another turn (%v)", err)
	}
	close(model.release)
	<-first.Done()
	var text string
	for off := 0; ; {
		chunk, next, ended, err := second.Next(ctx, off)
		if err != nil {
			t.Fatal(err)
		}
		if ended {
			break
		}
		text, off = text+chunk, next
	}
	if text != "Hello traveler." {
		t.Errorf("watcher read %q", text)
	}
	if res, err := first.Result(); err != nil || res.Reply != "Hello traveler." {
		t.Errorf("result %+v %v", res, err)
	}
	again, err := r.Join(sid)
	if err != nil {
		t.Fatal(err)
	}
	<-again.Done()
	if _, err := again.Result(); !errors.Is(err, agent.ErrNothingToAnswer) {
		t.Errorf("after the answer: %v, want ErrNothingToAnswer", err)
	}
	if n := model.calls.Load(); n != 1 {
		t.Errorf("%d model calls, want 1", n)
	}
}

// TestRunnerKeepsFailuresUntilRetry: a failed turn is shown to whoever
// comes next; only Retry calls the model again.
func TestRunnerKeepsFailuresUntilRetry(t *testing.T) {
	store, _, sid := seeded(t)
	model := newGated()
	model.fail = errors.New("upstream 500")
	close(model.release)
	r := newRunner(t, store, model, agent.RunnerConfig{})
	if _, err := agent.New(agent.DefaultConfig("gpt-4o-mini"), store, model, quietLog()).Submit(ctx, sid, "Hi"); err != nil {
		t.Fatal(err)
	}
	failed, _ := r.Join(sid)
	<-failed.Done()
	var me *agent.ModelError
	if _, err := failed.Result(); !errors.As(err, &me) {
		t.Fatalf("result %v, want a model error", err)
	}
	if again, _ := r.Join(sid); again != failed {
		t.Error("opening again after a failure started a new try")
	}
	model.fail = nil
	retried, err := r.Retry(sid)
	if err != nil {
		t.Fatal(err)
	}
	<-retried.Done()
	if res, err := retried.Result(); err != nil || res.Reply != "Hello traveler." {
		t.Errorf("retry: %+v %v", res, err)
	}
	if n := model.calls.Load(); n != 2 {
		t.Errorf("%d model calls, want 2", n)
	}
}

// TestRunnerQueueAndDrain: places beyond concurrency plus queue are refused;
// Drain stops taking turns, waits for the running one, and after its
// timeout cancels what is left, whose message stays for a later answer.
func TestRunnerQueueAndDrain(t *testing.T) {
	store, uid, sid := seeded(t)
	model := newGated()
	r := newRunner(t, store, model, agent.RunnerConfig{Concurrency: 1, Queue: 1})
	other, err := store.CreateChatSession(ctx, uid)
	if err != nil {
		t.Fatal(err)
	}
	_, running, errA := r.Submit(agent.Post{SessionID: sid, Content: "Hi"})
	_, queued, errB := r.Submit(agent.Post{SessionID: other.ID, Content: "Hi"})
	if errA != nil || errB != nil {
		t.Fatalf("two places: %v %v", errA, errB)
	}
	if _, _, err := r.Submit(agent.Post{SessionID: other.ID, Content: "Hello?"}); !errors.Is(err, agent.ErrOverloaded) {
		t.Errorf("third place: %v, want ErrOverloaded", err)
	}
	ag := agent.New(agent.DefaultConfig("gpt-4o-mini"), store, model, quietLog())
	// The two turns race for the one model slot: the one that streams is
	// the running one, whichever the scheduler let in first.
	for deadline := time.Now().Add(10 * time.Second); running.Len() == 0; time.Sleep(time.Millisecond) {
		if queued.Len() > 0 {
			running, queued = queued, running
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("neither turn reached the model")
		}
	}

	short, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
	defer cancel()
	if err := r.Drain(short); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("drain with a stuck turn: %v, want its deadline", err)
	}
	select {
	case <-r.Stopping():
	default:
		t.Error("Stopping is not closed after Drain")
	}
	if _, _, err := r.Submit(agent.Post{SessionID: other.ID, Content: "Hello?"}); !errors.Is(err, agent.ErrDraining) {
		t.Errorf("a place while draining: %v, want ErrDraining", err)
	}
	<-running.Done()
	if _, err := running.Result(); !errors.Is(err, context.Canceled) {
		t.Errorf("cut turn: %v, want canceled", err)
	}
	<-queued.Done()
	if _, err := queued.Result(); !errors.Is(err, context.Canceled) {
		t.Errorf("queued turn: %v, want canceled", err)
	}
	// The message was kept: another instance answers it.
	close(model.release)
	if res, err := ag.AnswerPending(ctx, sid, nil); err != nil || res.Reply != "Hello traveler." {
		t.Errorf("answer after the cut: %+v %v", res, err)
	}
}

// TestRunnerSendOutlivesItsCaller: a message sent with Send is answered and
// stored after the caller's context ends.
func TestRunnerSendOutlivesItsCaller(t *testing.T) {
	store, _, sid := seeded(t)
	model := newGated()
	r := newRunner(t, store, model, agent.RunnerConfig{})
	caller, leave := context.WithCancel(ctx)
	errs := make(chan error, 1)
	go func() {
		_, err := r.Send(caller, agent.Post{SessionID: sid, Content: "Hi"})
		errs <- err
	}()
	for model.calls.Load() == 0 {
		time.Sleep(time.Millisecond)
	}
	leave()
	if err := <-errs; !errors.Is(err, context.Canceled) {
		t.Errorf("Send after its caller left: %v", err)
	}
	close(model.release)
	drain, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if err := r.Drain(drain); err != nil {
		t.Fatal(err)
	}
	msgs, _ := store.Messages(ctx, sid)
	if len(msgs) != 2 || msgs[1].Content != "Hello traveler." {
		t.Errorf("transcript after the caller left: %d messages", len(msgs))
	}
}

func TestFailureKind(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want string
	}{
		{&agent.ModelError{Err: errors.New("x")}, "model"},
		{models.ErrBusy, "busy"},
		{&memory.Error{Code: memory.EANSWERING, Message: "elsewhere"}, "busy"},
		{models.ErrSessionClosed, "session_closed"},
		{context.DeadlineExceeded, "timeout"},
		{context.Canceled, "canceled"},
		{agent.ErrOverloaded, "overloaded"},
		{errors.New("models: append message: disk I/O error"), "store"},
	} {
		if got := agent.FailureKind(tc.err); got != tc.want {
			t.Errorf("FailureKind(%v) = %q, want %q", tc.err, got, tc.want)
		}
	}
}
