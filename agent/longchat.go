package agent

import (
	"context"
	"time"

	"concierge/memory"
	"concierge/memory/longchat"
	"concierge/models"
)

// Long conversations: once turns leave the model's window (longchat.Trim),
// three things keep what they said within reach — the session notes are
// re-injected (prompt.BuildInstructions), the model may call
// search_conversation to quote the trimmed turns verbatim, and a summary of
// them is kept when the break-even rule says it pays for itself.

// pastConversations is how many of the traveler's closed conversations
// estimate how long this one will go on.
const pastConversations = 20

// roundTools are the tools of one model round: save_memory_note, and
// search_conversation once something was trimmed; none on the last round,
// which must answer in words.
func roundTools(trimmed, last bool) []memory.Tool {
	if last {
		return nil
	}
	if trimmed {
		return []memory.Tool{memory.SaveNoteTool(), memory.UpdateTripTool(), longchat.SearchTool()}
	}
	return []memory.Tool{memory.SaveNoteTool(), memory.UpdateTripTool()}
}

// windowStart is the first turn the model still sees.
func windowStart(kept []memory.Message) int {
	if len(kept) == 0 {
		return 0
	}
	return kept[0].Turn
}

// searchConversation answers one search_conversation call from the trimmed
// part of this session only: turns before the window's first turn.
func (a *Agent) searchConversation(ctx context.Context, cs *models.ChatSession, before int, call memory.ToolCall) string {
	query, err := longchat.ParseSearchArgs(call.Arguments)
	if err != nil {
		return toolResult{Error: "bad_arguments", Message: "The arguments were not valid: " + err.Error() + "."}.String()
	}
	cands, err := a.store.SearchMessages(ctx, cs.ID, before, longchat.SearchTerms(query), longchat.SearchCandidates)
	if err != nil {
		a.log.Error("search conversation", "session_id", cs.ID, "err", err)
		return toolResult{Error: "unavailable", Message: "The conversation could not be searched right now."}.String()
	}
	frags := longchat.RankFragments(query, cands, a.counter)
	a.log.Info("conversation searched", "session_id", cs.ID, "candidates", len(cands), "fragments", len(frags))
	return longchat.SearchResult(frags)
}

// updateSummary applies the break-even rule after a turn: when the turns
// that left the window are worth condensing, it writes (or, after enough
// more left, rewrites) the session's summary — with the model as a short
// structured call when the provider offers one, else extractively. A
// summaryTimeout bounds writing one summary, a model call included.
const summaryTimeout = 60 * time.Second

// summarizeLater writes the session's summary of the turns that left the
// window (updateSummary) in the background, once the turn's answer is
// stored and its lease given back: the traveler waits for the model's
// answer, never for a second model call that only prepares later turns.
// One summary per session is written at a time; a turn that finds one
// being written leaves the next to a later turn. SaveSummary never lets an
// older summary replace a newer one.
func (a *Agent) summarizeLater(cs *models.ChatSession, history, kept []memory.Message, turn int) {
	a.mu.Lock()
	if a.summarizing[cs.ID] {
		a.mu.Unlock()
		return
	}
	a.summarizing[cs.ID] = true
	a.mu.Unlock()
	c := *cs // the turn's copy of the session stays the turn's
	a.bg.Go(func() {
		defer func() {
			a.mu.Lock()
			delete(a.summarizing, c.ID)
			a.mu.Unlock()
		}()
		ctx, cancel := context.WithTimeout(context.Background(), summaryTimeout)
		defer cancel()
		a.updateSummary(ctx, &c, history, kept, turn)
	})
}

// WaitBackground waits for the summaries being written in the background,
// at most until ctx ends (shutdown; tests). A summary cut short is written
// by a later turn.
func (a *Agent) WaitBackground(ctx context.Context) error {
	select {
	case <-waited(&a.bg):
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// failure only costs the summary; the turn is already answered.
func (a *Agent) updateSummary(ctx context.Context, cs *models.ChatSession, history, kept []memory.Message, turn int) {
	start := windowStart(kept)
	var dropped []memory.Message
	for _, m := range history {
		if m.Turn < start {
			dropped = append(dropped, m)
		}
	}
	if len(dropped) == 0 {
		return
	}
	// The turn read the session before a summary written in the background
	// since may have landed: plan from the stored one.
	if fresh, err := a.store.ChatSessionByID(ctx, cs.ID); err == nil {
		cs.Summary, cs.SummaryThrough, cs.SummaryTokens = fresh.Summary, fresh.SummaryThrough, fresh.SummaryTokens
	}
	past, err := a.store.PastConversationLengths(ctx, cs.UserID, pastConversations)
	if err != nil {
		a.log.Error("past conversation lengths", "user_id", cs.UserID, "err", err)
	}
	plan := longchat.PlanSummary(dropped, cs.SummaryThrough, longchat.ExpectedRemainingTurns(past, turn), a.counter)
	if !plan.Write {
		return
	}
	text, engine := "", "extractive"
	if c, ok := a.provider.(memory.Completer); ok {
		var fresh []memory.Message
		for _, m := range dropped {
			if m.Turn > cs.SummaryThrough {
				fresh = append(fresh, m)
			}
		}
		raw, err := c.CompleteJSON(ctx, longchat.SummaryRequest(cs.Summary, fresh))
		if err == nil {
			text, err = longchat.RenderModelSummary(raw, a.counter)
		}
		if err != nil {
			a.log.Warn("model summary failed; summarising extractively", "session_id", cs.ID, "err_kind", "summary")
		} else {
			engine = "model"
		}
	}
	if text == "" {
		text = longchat.ExtractiveSummary(dropped, a.counter)
	}
	if text == "" {
		return
	}
	tokens := a.counter.Count(text)
	if err := a.store.SaveSummary(ctx, cs.ID, text, plan.Through, tokens); err != nil {
		a.log.Error("save summary", "session_id", cs.ID, "err", err)
		return
	}
	cs.Summary, cs.SummaryThrough, cs.SummaryTokens = text, plan.Through, tokens
	a.log.Info("conversation summarised", "session_id", cs.ID, "through_turn", plan.Through, "tokens", tokens, "engine", engine)
}
