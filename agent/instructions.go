package agent

import (
	"context"
	"fmt"

	"concierge/memory"
	"concierge/memory/prompt"
)

// TurnContext is what, besides the traveler's state, shapes the
// instructions of one model call.
type TurnContext struct {
	LatestMessage string        // the traveler's latest message; drives relevance
	Trimmed       bool          // earlier turns were trimmed away: inject the SESSION notes
	Summary       string        // the session's summary of the turns that left the window
	Tools         []memory.Tool // the tools this call offers; the instructions name exactly these
	Language      string        // the account's language (en, es, ru, or "" to follow each message)
}

// Instructions assembles the instructions of a model call for a traveler's
// state and the turn's context, with the agent's token counter, GLOBAL
// notes budget, ranking (Config.RecencyOnly) and clock. It is the one
// assembly: the turn loop calls it on every round, and the console's
// preview calls it so that staff see what the next turn will be sent.
func (a *Agent) Instructions(st memory.State, tc TurnContext) prompt.Instructions {
	names := make([]string, len(tc.Tools))
	for i, t := range tc.Tools {
		names[i] = t.Name
	}
	return prompt.BuildInstructions(st, prompt.InjectOptions{
		Counter: a.counter, GlobalBudget: a.cfg.GlobalBudget, Today: a.now().UTC().Format(memory.DateLayout),
		LatestMessage: tc.LatestMessage, Trimmed: tc.Trimmed, RecencyOnly: a.cfg.RecencyOnly, Summary: tc.Summary, Tools: names,
		Profiles: a.profiles, Language: tc.Language,
	})
}

// TokenEncoding names the tokenizer the agent counts tokens with
// (memory.EncodingFor its chat model).
func (a *Agent) TokenEncoding() string { return memory.EncodingFor(a.cfg.Model) }

// PreviewInstructions returns the traveler's state and the instructions the
// first turn of a new session would be sent now if the traveler opened with
// message: no session notes yet, nothing trimmed.
func (a *Agent) PreviewInstructions(ctx context.Context, userID, message string) (memory.State, prompt.Instructions, error) {
	profile, err := a.store.Profile(ctx, userID)
	if err != nil {
		return memory.State{}, prompt.Instructions{}, fmt.Errorf("preview for %s: %w", userID, err)
	}
	global, err := a.store.GlobalNotes(ctx, userID)
	if err != nil {
		return memory.State{}, prompt.Instructions{}, fmt.Errorf("preview for %s: %w", userID, err)
	}
	trips, open, err := a.store.TurnTrips(ctx, userID, memory.MaxTrips)
	if err != nil {
		return memory.State{}, prompt.Instructions{}, fmt.Errorf("preview for %s: %w", userID, err)
	}
	st := memory.NewState(profile, global, nil, trips)
	// A new conversation belongs to no trip yet, and sees the open ones.
	st.OpenTrips = open
	return st, a.Instructions(st, TurnContext{LatestMessage: message, Tools: withForget(roundTools(false, a.cfg.MaxRounds <= 1), global, nil),
		Language: a.accountLanguage(ctx, userID)}), nil
}

// accountLanguage is the language the traveler chose for their account, or
// "" when they chose none or the account cannot be read (the model then
// follows each message's language, else English).
func (a *Agent) accountLanguage(ctx context.Context, userID string) string {
	u, err := a.store.UserByID(ctx, userID)
	if err != nil || u == nil {
		return ""
	}
	return u.Language
}
