package agent

import (
	"context"
)

// The entry points below are for tests only: production sends go through
// Runner.Submit (Agent.Store, then Pending.Answer on the runner's turn).
// They take the same steps in the caller's goroutine.

// Turn runs one chat turn for the session's owner (Send without a key).
func (a *Agent) Turn(ctx context.Context, sessionID, content string, onDelta func(string)) (*TurnResult, error) {
	return a.Send(ctx, Post{SessionID: sessionID, Content: content, OnDelta: onDelta})
}

// Send stores the message and answers it in this goroutine: the steps of
// Runner.Send without the runner.
func (a *Agent) Send(ctx context.Context, p Post) (*TurnResult, error) {
	pd, err := a.Store(ctx, p)
	if err != nil {
		return nil, err
	}
	return pd.Answer(p.OnDelta)
}

// Submit stores a user message without answering it (Store, then Release).
func (a *Agent) Submit(ctx context.Context, sessionID, content string) (int, error) {
	pd, err := a.Store(ctx, Post{SessionID: sessionID, Content: content})
	if err != nil {
		return 0, err
	}
	pd.Release()
	return pd.Turn(), nil
}
