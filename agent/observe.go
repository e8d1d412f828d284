package agent

import "time"

// Observer receives the timing of every turn the agent ran: the time spent
// waiting on the model and the rest of the turn (our server time), and
// whether it produced an answer. It must be safe for concurrent use.
type Observer interface {
	ObserveTurn(model, server time.Duration, answered bool)
}

// SetObserver makes o receive every turn's timing; call it before the
// first turn.
func (a *Agent) SetObserver(o Observer) { a.observer = o }

// observe reports one turn to the observer, if any.
func (a *Agent) observe(start time.Time, model time.Duration, answered bool) {
	if a.observer == nil {
		return
	}
	total := time.Since(start)
	a.observer.ObserveTurn(model, max(total-model, 0), answered)
}
