package agent

import (
	"context"

	"concierge/memory"
	"concierge/models"
)

// Long conversations: once turns leave the model's window (memory.Trim),
// three things keep what they said within reach — the session notes are
// re-injected (memory.BuildInstructions), the model may call
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
		return []memory.Tool{memory.SaveNoteTool(), memory.SearchTool()}
	}
	return []memory.Tool{memory.SaveNoteTool()}
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
	query, err := memory.ParseSearchArgs(call.Arguments)
	if err != nil {
		return toolResult{Error: "bad_arguments", Message: "The arguments were not valid: " + err.Error() + "."}.String()
	}
	cands, err := a.store.SearchMessages(ctx, cs.ID, before, memory.SearchTerms(query), memory.SearchCandidates)
	if err != nil {
		a.log.Error("search conversation", "session_id", cs.ID, "err", err)
		return toolResult{Error: "unavailable", Message: "The conversation could not be searched right now."}.String()
	}
	frags := memory.RankFragments(query, cands, a.counter)
	a.log.Info("conversation searched", "session_id", cs.ID, "candidates", len(cands), "fragments", len(frags))
	return memory.SearchResult(frags)
}

// updateSummary applies the break-even rule after a turn: when the turns
// that left the window are worth condensing, it writes (or, after enough
// more left, rewrites) the session's summary — with the model as a short
// structured call when the provider offers one, else extractively. A
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
	past, err := a.store.PastConversationLengths(ctx, cs.UserID, pastConversations)
	if err != nil {
		a.log.Error("past conversation lengths", "user_id", cs.UserID, "err", err)
	}
	plan := memory.PlanSummary(dropped, cs.SummaryThrough, memory.ExpectedRemainingTurns(past, turn), a.counter)
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
		raw, err := c.CompleteJSON(ctx, memory.SummaryRequest(cs.Summary, fresh))
		if err == nil {
			text, err = memory.RenderModelSummary(raw, a.counter)
		}
		if err != nil {
			a.log.Warn("model summary failed; summarising extractively", "session_id", cs.ID, "err_kind", "summary")
		} else {
			engine = "model"
		}
	}
	if text == "" {
		text = memory.ExtractiveSummary(dropped, a.counter)
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
