package agent

import (
	"context"
	"fmt"

	"concierge/memory"
)

// Instructions assembles the instructions of a model call for a traveler's
// state: the agent's token counter, GLOBAL notes budget and clock, the
// traveler's latest message (it drives relevance) and whether earlier turns
// were trimmed away (then the SESSION notes are injected), ranking notes as
// the agent's configuration says (Config.RecencyOnly). It is the one
// assembly: the turn loop calls it on every round, and the console's
// preview calls it so that staff see what the next turn will be sent.
func (a *Agent) Instructions(st memory.State, latestMessage string, trimmed bool) memory.Instructions {
	return memory.BuildInstructions(st, memory.InjectOptions{
		Counter: a.counter, GlobalBudget: a.cfg.GlobalBudget, Today: a.now().UTC().Format(memory.DateLayout),
		LatestMessage: latestMessage, Trimmed: trimmed, RecencyOnly: a.cfg.RecencyOnly,
	})
}

// TokenEncoding names the tokenizer the agent counts tokens with
// (memory.EncodingFor its chat model).
func (a *Agent) TokenEncoding() string { return memory.EncodingFor(a.cfg.Model) }

// PreviewInstructions returns the traveler's state and the instructions the
// first turn of a new session would be sent now if the traveler opened with
// message: no session notes yet, nothing trimmed.
func (a *Agent) PreviewInstructions(ctx context.Context, userID, message string) (memory.State, memory.Instructions, error) {
	profile, err := a.store.Profile(ctx, userID)
	if err != nil {
		return memory.State{}, memory.Instructions{}, fmt.Errorf("preview for %s: %w", userID, err)
	}
	global, err := a.store.GlobalNotes(ctx, userID)
	if err != nil {
		return memory.State{}, memory.Instructions{}, fmt.Errorf("preview for %s: %w", userID, err)
	}
	trips, err := a.store.Trips(ctx, userID, memory.MaxTrips)
	if err != nil {
		return memory.State{}, memory.Instructions{}, fmt.Errorf("preview for %s: %w", userID, err)
	}
	st := memory.NewState(profile, global, nil, trips)
	return st, a.Instructions(st, message, false), nil
}
