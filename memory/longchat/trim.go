package longchat

import "concierge/memory"

// DefaultMaxUserTurns is how many user turns Trim keeps when
// TrimOptions.MaxUserTurns is not set.
const DefaultMaxUserTurns = 8

// messageOverhead approximates the tokens a chat message costs beyond its
// content (role and separators in the chat format).
const messageOverhead = 4

// TrimOptions parameterise Trim.
type TrimOptions struct {
	MaxUserTurns     int                 // user turns kept; 0 means DefaultMaxUserTurns
	TokenBudget      int                 // tokens for the whole history; 0 means no token limit
	ReserveForAnswer int                 // tokens of TokenBudget left free for the answer
	Counter          memory.TokenCounter // nil means the byte estimate
}

// Trim returns the history to send to the model and whether anything was cut.
// A turn is a user message and everything after it up to the next user
// message. Trim keeps the last MaxUserTurns turns, then drops whole turns,
// oldest first, until the history fits TokenBudget-ReserveForAnswer; the
// latest turn is always kept, even over budget. memory.Tool results are never
// separated from the assistant message that called them: results without a
// call, and calls without results, are dropped defensively, so the history
// never starts with a tool message. The input is not modified.
func Trim(msgs []memory.Message, opt TrimOptions) (kept []memory.Message, trimmed bool) {
	maxTurns := opt.MaxUserTurns
	if maxTurns <= 0 {
		maxTurns = DefaultMaxUserTurns
	}
	clean, repaired := pairToolCalls(msgs)

	// starts[i] is where turn i begins; a preamble before the first user
	// message (a greeting) counts as turn 0 without a user message.
	var starts []int
	userTurns := 0
	for i, m := range clean {
		if m.Role == memory.RoleUser {
			starts = append(starts, i)
			userTurns++
		} else if i == 0 {
			starts = append(starts, 0)
		}
	}
	first := 0 // index into starts of the oldest kept turn
	if userTurns > maxTurns {
		first = len(starts) - maxTurns
	}

	if opt.TokenBudget > 0 && len(starts) > 0 {
		limit := opt.TokenBudget - opt.ReserveForAnswer
		counter := memory.CounterOr(opt.Counter)
		// Walk back from the newest turn, so only the turns that may be
		// kept are ever counted.
		total := 0
		for t := len(starts) - 1; t >= first; t-- {
			end := len(clean)
			if t+1 < len(starts) {
				end = starts[t+1]
			}
			cost := 0
			for _, m := range clean[starts[t]:end] {
				cost += messageCost(m, counter)
			}
			if t < len(starts)-1 && total+cost > limit {
				first = t + 1
				break
			}
			total += cost
		}
	}
	if len(starts) > 0 {
		kept = clean[starts[first]:]
	}
	if len(kept) == 0 {
		kept = nil
	}
	return kept, repaired || len(kept) < len(clean)
}

// messageCost is the token cost of one message: content, tool calls and overhead.
func messageCost(m memory.Message, c memory.TokenCounter) int {
	n := messageOverhead + c.Count(m.Content)
	for _, tc := range m.ToolCalls {
		n += c.Count(tc.Name) + c.Count(tc.Arguments) + messageOverhead
	}
	return n
}

// pairToolCalls returns msgs where every tool result directly follows (with
// its siblings) the assistant message that called it and every call has a
// result. Unmatched results are dropped; unanswered calls are removed from
// their message, and the message too when nothing else remains. It copies
// only when it has to change something, and reports whether it did.
func pairToolCalls(msgs []memory.Message) ([]memory.Message, bool) {
	if toolCallsPaired(msgs) {
		return msgs, false
	}
	changed := false
	out := make([]memory.Message, 0, len(msgs))
	for i := 0; i < len(msgs); i++ {
		m := msgs[i]
		if m.Role == memory.RoleTool {
			changed = true
			continue // not reached through a call: an orphan
		}
		if m.Role != memory.RoleAssistant || len(m.ToolCalls) == 0 {
			out = append(out, m)
			continue
		}
		// The results that follow this call, first answer per id wins.
		calls := map[string]bool{}
		for _, tc := range m.ToolCalls {
			calls[tc.ID] = true
		}
		answered := map[string]bool{}
		var results []memory.Message
		j := i + 1
		for ; j < len(msgs) && msgs[j].Role == memory.RoleTool; j++ {
			id := msgs[j].ToolCallID
			if calls[id] && !answered[id] {
				answered[id] = true
				results = append(results, msgs[j])
			}
		}
		var keptCalls []memory.ToolCall
		for _, tc := range m.ToolCalls {
			if answered[tc.ID] {
				keptCalls = append(keptCalls, tc)
				answered[tc.ID] = false // a duplicated call id keeps one call
			}
		}
		if len(keptCalls) != len(m.ToolCalls) || len(results) != j-i-1 {
			changed = true
		}
		if len(keptCalls) > 0 || m.Content != "" {
			m.ToolCalls = keptCalls
			out = append(out, m)
		}
		if len(keptCalls) > 0 {
			out = append(out, results...)
		}
		i = j - 1
	}
	return out, changed
}

// toolCallsPaired is the fast check that msgs needs no repair.
func toolCallsPaired(msgs []memory.Message) bool {
	for i := 0; i < len(msgs); i++ {
		m := msgs[i]
		if m.Role == memory.RoleTool {
			return false
		}
		if m.Role != memory.RoleAssistant || len(m.ToolCalls) == 0 {
			continue
		}
		j := i + 1
		for ; j < len(msgs) && msgs[j].Role == memory.RoleTool; j++ {
		}
		results := msgs[i+1 : j]
		if len(results) != len(m.ToolCalls) {
			return false
		}
		for k, tc := range m.ToolCalls {
			if tc.ID == "" || results[k].ToolCallID != tc.ID {
				return false // also catches duplicated ids and out-of-order results
			}
		}
		i = j - 1
	}
	return true
}
