// Package offline is Concierge's built-in model: a deterministic engine behind
// the agent.Provider interface that runs when no language model is configured.
//
// It is data plus a small engine. rules.yaml holds the capture rules (a
// pattern over first-person statements, a note template, keywords, a
// default scope), the scope markers and the trip slots; replies_<lang>.yaml
// what it says and recognises in each language, gazetteer.yaml the places
// it can name; capture.go, read.go and reply.go apply them. Like a real model it sees
// only what it is sent — the instructions, the trimmed messages and the
// tools — and answers with tool calls or text. Every note it proposes goes
// through memory.CheckNote first. It keeps no state between calls, uses no
// network and no randomness.
package offline

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"concierge/agent"
	"concierge/memory"
	"concierge/memory/longchat"
)

// Model is the offline model. It is safe for concurrent use.
type Model struct {
	counter memory.TokenCounter
	table   *table
}

// New returns the offline model; counter prices prompts and answers in tokens.
// A nil counter falls back to memory.EstimateTokens.
func New(counter memory.TokenCounter) *Model {
	t, err := compiled()
	if err != nil {
		panic(err) // the table is embedded: a test loads it on every build
	}
	return &Model{counter: counter, table: t}
}

// compiled is the embedded table, compiled and its gate trained once a
// process: every model shares it (it is read-only but for its memo).
var compiled = sync.OnceValues(func() (*table, error) { return loadTable(rulesYAML) })

// Name returns "offline".
func (m *Model) Name() string { return "offline" }

var _ agent.Provider = (*Model)(nil)

// Complete answers one model call. When the latest user message states
// something worth keeping and save_memory_note is on offer, the answer is
// one tool call per note and no text; when the traveler asks about
// something said earlier that is out of sight and search_conversation is on
// offer, it is that call; after tool results it says what happened and
// answers; otherwise it answers with text.
func (m *Model) Complete(ctx context.Context, req agent.Request, onDelta func(string)) (agent.Response, error) {
	if err := ctx.Err(); err != nil {
		return agent.Response{}, fmt.Errorf("offline model: %w", err)
	}
	t := m.table
	v := t.read(req)
	var resp agent.Response
	switch {
	case v.unsupported: // a script it does not read: nothing is guessed from it
		resp.Content = t.reply(v, capture{}, nil)
	default:
		m.answer(t, v, req, &resp)
	}
	if resp.Content != "" && onDelta != nil {
		for _, chunk := range strings.SplitAfter(resp.Content, " ") {
			if err := ctx.Err(); err != nil {
				return agent.Response{}, fmt.Errorf("offline model: %w", err)
			}
			onDelta(chunk)
		}
	}
	if err := ctx.Err(); err != nil {
		return agent.Response{}, fmt.Errorf("offline model: %w", err)
	}
	resp.Usage = m.usage(req, resp)
	return resp, nil
}

// answer fills resp with this call's tool calls or text.
func (m *Model) answer(t *table, v *view, req agent.Request, resp *agent.Response) {
	switch v.lastRole {
	case memory.RoleTool:
		resp.Content = t.afterTools(v)
	case memory.RoleUser:
		if calls := t.steer(v); len(calls) > 0 {
			for _, args := range calls {
				resp.ToolCalls = append(resp.ToolCalls, v.newCall(len(resp.ToolCalls), memory.ForgetToolName, args))
			}
			break
		}
		c := t.captureIn(v.latest, v.account, v.knownTexts())
		query, found := t.searchQuery(v)
		var tripArgs map[string]any
		if !c.instruction { // a message the guard refuses as an instruction moves no trip either
			tripArgs = t.tripArgs(v)
		}
		switch {
		case tripArgs != nil || v.tools[memory.SaveNoteToolName] && len(c.notes) > 0:
			if tripArgs != nil { // first, so this turn's trip notes land in the trip
				resp.ToolCalls = append(resp.ToolCalls, v.newCall(0, memory.UpdateTripToolName, tripArgs))
			}
			end := endOf(v.latest, req.Instructions)
			for _, n := range c.notes {
				if v.tools[memory.SaveNoteToolName] {
					n.ExpiresOn = end
					resp.ToolCalls = append(resp.ToolCalls, v.newCall(len(resp.ToolCalls), memory.SaveNoteToolName, n))
				}
			}
		case query != "" && found == nil && v.tools[memory.SearchToolName]:
			resp.ToolCalls = append(resp.ToolCalls, v.newCall(0, memory.SearchToolName, map[string]string{"query": query}))
		case query != "":
			resp.Content = t.answerEarlier(v, frontFragments(found), query)
		default:
			resp.Content = t.reply(v, c, nil)
		}
	default:
		resp.Content = t.reply(v, capture{}, nil)
	}
}

// newCall builds the i-th tool call of this answer.
func (v *view) newCall(i int, name string, args any) memory.ToolCall {
	raw, _ := json.Marshal(args) // plain structs and maps of strings always marshal
	return memory.ToolCall{ID: fmt.Sprintf("call_%d", v.priorCalls+i+1), Name: name, Arguments: string(raw)}
}

func (v *view) picker(t *table) func([]string, map[string]string) string {
	return func(variants []string, extra map[string]string) string {
		return t.pick(variants, v, nil, extra)
	}
}

func frontFragments(m *memory.Message) []longchat.Fragment {
	if m == nil {
		return nil
	}
	return []longchat.Fragment{{Turn: m.Turn, Role: m.Role, Text: m.Content}}
}

// afterTools answers once the server has run this turn's tool calls: what
// was saved or refused, then the answer itself.
func (t *table) afterTools(v *view) string {
	if s, ok := t.afterForget(v); ok {
		return s
	}
	var saved, forTrip, ack []string
	refusedCount := 0
	for _, c := range v.thisTurn {
		switch c.tc.Name {
		case memory.SaveNoteToolName:
			args, err := memory.ParseSaveNoteArgs(c.tc.Arguments)
			switch {
			case err != nil:
			case refused(c.result):
				refusedCount++
			case args.Scope == memory.ScopeThisTrip:
				forTrip = append(forTrip, t.sayNote(v.vc, withoutTripSuffix(args.Text)))
			default:
				saved = append(saved, t.sayNote(v.vc, args.Text))
			}
		case memory.SearchToolName:
			var q struct{ Query string }
			_ = json.Unmarshal([]byte(c.tc.Arguments), &q) // a bad query only weakens the ranking
			return t.answerEarlier(v, fragments(c.result), q.Query)
		}
	}
	r, pick := v.vc.Replies, v.picker(t)
	// A note in the traveler's own words without a person ("nut allergy,
	// tree nuts and peanuts both") is not said after "that".
	var told, asIs []string
	for _, f := range saved {
		if v.vc.lang != langEN || strings.HasPrefix(f, "you") {
			told = append(told, f)
		} else {
			asIs = append(asIs, capitalise(f))
		}
	}
	if len(told) > 0 {
		ack = append(ack, pick(r["saved"], map[string]string{"facts": v.vc.joinAnd(told)}))
	}
	if len(asIs) > 0 {
		key := "saved_as"
		if len(told) > 0 {
			key = "saved_as_also" // one "Got it" a reply
		}
		ack = append(ack, pick(r[key], map[string]string{"facts": strings.Join(asIs, "; ")}))
	}
	if len(forTrip) > 0 {
		ack = append(ack, pick(r["saved_trip"], map[string]string{"facts": v.vc.joinAnd(forTrip)}))
	}
	if refusedCount > 0 {
		ack = append(ack, pick(r["refused"], nil))
	}
	c := t.captureIn(v.latest, v.account, v.knownTexts())
	return t.reply(v, c, ack)
}

// usage counts the prompt part by part, so a memoising counter prices the
// messages it has already seen at the cost of a lookup.
func (m *Model) usage(req agent.Request, resp agent.Response) agent.Usage {
	prompt := m.count(req.Instructions)
	for _, msg := range req.Messages {
		prompt += m.count(msg.Content)
		for _, tc := range msg.ToolCalls {
			prompt += m.count(tc.Arguments)
		}
	}
	completion := m.count(resp.Content)
	for _, tc := range resp.ToolCalls {
		completion += m.count(tc.Arguments)
	}
	return agent.Usage{PromptTokens: prompt, CompletionTokens: completion}
}

func (m *Model) count(s string) int {
	if m.counter != nil {
		return m.counter.Count(s)
	}
	return memory.EstimateTokens(s)
}
