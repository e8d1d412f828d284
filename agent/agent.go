// Package agent runs Concierge's chat turns end to end — store the message,
// assemble the memory state and instructions, call the model with the
// save_memory_note tool, check and apply its calls, store the answer and the
// exact request — and the background consolidation of closed sessions.
package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"time"

	"concierge/memory"
	"concierge/models"
)

// Config tunes the turn loop.
type Config struct {
	Model            string // chat model name, passed to the provider and the tokenizer
	MaxRounds        int    // model calls per turn at most (tool rounds + final answer)
	MaxUserTurns     int    // short-term memory: user turns kept in the history
	HistoryBudget    int    // tokens for the history, answer reserve included
	ReserveForAnswer int    // tokens kept free for the answer
	GlobalBudget     int    // tokens for GLOBAL notes in the instructions
	Limits           memory.Limits
	AnswerLease      time.Duration // how long one instance may hold a session while answering
	RecencyOnly      bool          // rank long-term notes by recency alone (the evaluation's baseline strategy)
	// Reviewer, when set, is the guard's model layer: it reviews the notes
	// the rules passed (memory.NoteClassifier); nil means rules only.
	Reviewer NoteReviewer
}

// DefaultConfig returns the turn loop's defaults.
func DefaultConfig(model string) Config {
	return Config{
		Model: model, MaxRounds: 4, MaxUserTurns: memory.DefaultMaxUserTurns,
		HistoryBudget: 12000, ReserveForAnswer: 1500, GlobalBudget: memory.DefaultGlobalBudget,
		AnswerLease: 3 * time.Minute,
		Limits:      memory.Limits{MaxSessionNotes: memory.DefaultMaxSessionNotes, MaxGlobalNotes: memory.DefaultMaxGlobalNotes},
	}
}

// Agent runs chat turns. It is safe for concurrent use; turns of one session
// run one at a time.
type Agent struct {
	cfg      Config
	store    *models.Store
	provider Provider
	counter  memory.TokenCounter
	log      *slog.Logger
	now      func() time.Time
	observer Observer

	mu    sync.Mutex
	locks map[string]*sessionLock
}

type sessionLock struct {
	mu   sync.Mutex
	refs int
}

// New builds an Agent.
func New(cfg Config, store *models.Store, provider Provider, log *slog.Logger) *Agent {
	return &Agent{cfg: cfg, store: store, provider: provider, counter: memory.NewTokenCounter(cfg.Model),
		log: log, now: time.Now, locks: map[string]*sessionLock{}}
}

// ProviderName names the model behind the agent.
func (a *Agent) ProviderName() string { return a.provider.Name() }

// lock serialises the turns of one session within this process.
func (a *Agent) lock(sessionID string) func() {
	a.mu.Lock()
	l := a.locks[sessionID]
	if l == nil {
		l = &sessionLock{}
		a.locks[sessionID] = l
	}
	l.refs++
	a.mu.Unlock()
	l.mu.Lock()
	return func() {
		l.mu.Unlock()
		a.mu.Lock()
		if l.refs--; l.refs == 0 {
			delete(a.locks, sessionID)
		}
		a.mu.Unlock()
	}
}

// TurnResult is what one turn produced.
type TurnResult struct {
	Reply   string
	Turn    int
	Saved   []memory.Note
	Blocked []string // refusal categories, never the refused text
	Usage   Usage
	// ModelTime is how long the turn waited on the model, all rounds.
	ModelTime time.Duration
}

// ModelError is a failure of the model during a turn. The user's message is
// already stored; the turn can be retried.
type ModelError struct {
	Err error
}

func (e *ModelError) Error() string { return "model call failed: " + e.Err.Error() }
func (e *ModelError) Unwrap() error { return e.Err }

// Turn runs one chat turn for the session's owner: Submit, then Answer. The
// user's message is stored before anything else, so a failure later loses
// nothing; sending the same text again after a failed turn retries it
// instead of storing it twice. onDelta, when not nil, receives the answer's
// text as it is generated.
func (a *Agent) Turn(ctx context.Context, sessionID, content string, onDelta func(string)) (*TurnResult, error) {
	unlock := a.lock(sessionID)
	defer unlock()
	if _, err := a.submit(ctx, sessionID, content); err != nil {
		return nil, err
	}
	return a.answer(ctx, sessionID, onDelta)
}

// Submit stores a user message without calling the model, for clients that
// answer it separately (the browser streams the answer over its own
// request). A message identical to an unanswered last one is not stored
// twice. It returns the message's turn number.
func (a *Agent) Submit(ctx context.Context, sessionID, content string) (int, error) {
	unlock := a.lock(sessionID)
	defer unlock()
	m, err := a.submit(ctx, sessionID, content)
	if err != nil {
		return 0, err
	}
	return m.Turn, nil
}

// Answer runs the model for the session's last user message if it has no
// answer yet; it is how a failed turn is retried. It returns ErrNothingToAnswer
// when the last turn is already answered.
func (a *Agent) Answer(ctx context.Context, sessionID string, onDelta func(string)) (*TurnResult, error) {
	unlock := a.lock(sessionID)
	defer unlock()
	return a.answer(ctx, sessionID, onDelta)
}

// ErrNothingToAnswer is returned by Answer when no user message awaits an answer.
var ErrNothingToAnswer = errors.New("no user message awaits an answer")

// openSession loads a session that still takes messages, and its transcript.
func (a *Agent) openSession(ctx context.Context, sessionID string) (*models.ChatSession, []models.Message, error) {
	cs, err := a.store.ChatSessionByID(ctx, sessionID)
	if err != nil {
		return nil, nil, err
	}
	if cs.Status != models.SessionOpen {
		return nil, nil, models.ErrSessionClosed
	}
	history, err := a.store.Messages(ctx, sessionID)
	if err != nil {
		return nil, nil, err
	}
	return cs, history, nil
}

func (a *Agent) submit(ctx context.Context, sessionID, content string) (*models.Message, error) {
	_, history, err := a.openSession(ctx, sessionID)
	if err != nil {
		return nil, err
	}
	if pending, _ := pendingUser(history); pending != nil && pending.Content == content {
		return pending, nil
	}
	m := &models.Message{SessionID: sessionID, Role: string(memory.RoleUser), Content: content, Turn: lastTurn(history) + 1}
	if err := a.store.AppendMessage(ctx, m); err != nil {
		return nil, err
	}
	return m, nil
}

func (a *Agent) answer(ctx context.Context, sessionID string, onDelta func(string)) (*TurnResult, error) {
	cs, history, err := a.openSession(ctx, sessionID)
	if err != nil {
		return nil, err
	}
	userMsg, _ := pendingUser(history)
	if userMsg == nil {
		return nil, ErrNothingToAnswer
	}
	// The in-process lock orders turns here; the lease in the database keeps
	// another instance from answering the same message at the same time.
	release, err := a.store.LeaseAnswer(ctx, sessionID, a.cfg.AnswerLease)
	if err != nil {
		return nil, err
	}
	defer release()
	start := time.Now()
	res, err := a.run(ctx, cs, userMsg, history, onDelta)
	var modelTime time.Duration
	if res != nil {
		modelTime = res.ModelTime
	}
	a.observe(start, modelTime, err == nil)
	if err != nil {
		a.log.Warn("turn failed", "session_id", sessionID, "turn", userMsg.Turn, "err_kind", fmt.Sprintf("%T", errors.Unwrap(err)))
		return nil, err
	}
	a.log.Info("turn", "session_id", sessionID, "user_id", cs.UserID, "turn", res.Turn, "saved", len(res.Saved),
		"blocked", len(res.Blocked), "prompt_tokens", res.Usage.PromptTokens, "completion_tokens", res.Usage.CompletionTokens)
	return res, nil
}

// pendingUser returns the transcript's last user message, and its index,
// when it never got a final answer (at most some tool rounds).
func pendingUser(history []models.Message) (*models.Message, int) {
	for i := len(history) - 1; i >= 0; i-- {
		m := history[i]
		if m.Role == string(memory.RoleUser) {
			return &m, i
		}
		if m.Role == string(memory.RoleAssistant) && m.ToolCalls == "" {
			return nil, -1 // answered
		}
	}
	return nil, -1
}

func lastTurn(history []models.Message) int {
	if n := len(history); n > 0 {
		return history[n-1].Turn
	}
	return 0
}

// run is the model loop of one turn.
func (a *Agent) run(ctx context.Context, cs *models.ChatSession, userMsg *models.Message, stored []models.Message, onDelta func(string)) (*TurnResult, error) {
	profile, err := a.store.Profile(ctx, cs.UserID)
	if err != nil {
		return nil, err
	}
	global, err := a.store.GlobalNotes(ctx, cs.UserID)
	if err != nil {
		return nil, err
	}
	trips, err := a.store.Trips(ctx, cs.UserID, memory.MaxTrips)
	if err != nil {
		return nil, err
	}
	session, err := a.store.SessionNotes(ctx, cs.ID)
	if err != nil {
		return nil, err
	}
	history := make([]memory.Message, len(stored))
	for i := range stored {
		history[i] = stored[i].Domain()
	}
	forgetUndone(history, session)
	res := &TurnResult{Turn: userMsg.Turn}
	var kept []memory.Message
	for round := 1; round <= a.cfg.MaxRounds; round++ {
		session, err := a.store.SessionNotes(ctx, cs.ID)
		if err != nil {
			return nil, err
		}
		var trimmed bool
		kept, trimmed = memory.Trim(history, memory.TrimOptions{MaxUserTurns: a.cfg.MaxUserTurns,
			TokenBudget: a.cfg.HistoryBudget, ReserveForAnswer: a.cfg.ReserveForAnswer, Counter: a.counter})
		instructions := memory.BuildInstructions(memory.NewState(profile, global, session, trips), memory.InjectOptions{
			Counter: a.counter, GlobalBudget: a.cfg.GlobalBudget, Today: a.now().UTC().Format(memory.DateLayout),
			LatestMessage: userMsg.Content, Trimmed: trimmed, RecencyOnly: a.cfg.RecencyOnly, Summary: cs.Summary,
		})
		tools := roundTools(trimmed, round == a.cfg.MaxRounds)
		req := Request{Model: a.cfg.Model, Instructions: instructions, Messages: kept, Tools: tools, MaxTokens: a.cfg.ReserveForAnswer}
		called := time.Now()
		resp, err := a.provider.Complete(ctx, req, onDelta)
		res.ModelTime += time.Since(called)
		if err != nil {
			return res, &ModelError{Err: err}
		}
		res.Usage.PromptTokens += resp.Usage.PromptTokens
		res.Usage.CompletionTokens += resp.Usage.CompletionTokens
		if err := a.snapshot(ctx, cs, userMsg.Turn, round, req, resp); err != nil {
			return nil, err
		}
		assistant := &models.Message{SessionID: cs.ID, Role: string(memory.RoleAssistant), Content: resp.Content,
			ToolCalls: models.EncodeToolCalls(resp.ToolCalls), Turn: userMsg.Turn}
		if err := a.store.AppendMessage(ctx, assistant); err != nil {
			return nil, err
		}
		history = append(history, assistant.Domain())
		if len(resp.ToolCalls) == 0 {
			res.Reply = resp.Content
			a.updateSummary(ctx, cs, history, kept, userMsg.Turn)
			return res, nil
		}
		for _, call := range resp.ToolCalls {
			var (
				result, blocked string
				note            *memory.Note
			)
			if call.Name == memory.SearchToolName && slices.ContainsFunc(tools, func(t memory.Tool) bool { return t.Name == call.Name }) {
				result = a.searchConversation(ctx, cs, windowStart(kept), call)
			} else {
				result, note, blocked = a.applyToolCall(ctx, cs, userMsg, call)
			}
			if note != nil {
				res.Saved = append(res.Saved, *note)
			}
			if blocked != "" {
				res.Blocked = append(res.Blocked, blocked)
			}
			toolMsg := &models.Message{SessionID: cs.ID, Role: string(memory.RoleTool), Content: result, ToolCallID: call.ID, Turn: userMsg.Turn}
			if err := a.store.AppendMessage(ctx, toolMsg); err != nil {
				return nil, err
			}
			history = append(history, toolMsg.Domain())
		}
	}
	return nil, &ModelError{Err: errors.New("the model kept calling tools without answering")}
}

func (a *Agent) snapshot(ctx context.Context, cs *models.ChatSession, turn, round int, req Request, resp Response) error {
	msgs, _ := json.Marshal(req.Messages)
	out, _ := json.Marshal(resp)
	return a.store.SaveSnapshot(ctx, &models.TurnSnapshot{SessionID: cs.ID, UserID: cs.UserID, Turn: turn, Round: round,
		Model: a.provider.Name(), Instructions: req.Instructions, Messages: string(msgs), Response: string(out),
		PromptTokens: resp.Usage.PromptTokens, CompletionTokens: resp.Usage.CompletionTokens})
}

// forgetUndone rewrites, in the history the model is given, the result of
// every save whose note the traveler has since deleted (Undo), so the model
// does not believe it still remembers it and saves it again if asked.
func forgetUndone(history []memory.Message, session []memory.Note) {
	live := make(map[string]bool, len(session))
	for _, n := range session {
		live[n.ID] = true
	}
	for i, m := range history {
		if m.Role != memory.RoleTool {
			continue
		}
		var r toolResult
		if json.Unmarshal([]byte(m.Content), &r) != nil || !r.OK || r.ID == "" || live[r.ID] {
			continue
		}
		history[i].Content = toolResult{Error: "deleted", Message: "The traveler removed this note; it is no longer remembered."}.String()
	}
}

// toolResult is what the model is told after each tool call.
type toolResult struct {
	OK       bool   `json:"ok"`
	ID       string `json:"id,omitempty"`
	Scope    string `json:"scope,omitempty"`
	Error    string `json:"error,omitempty"`
	Category string `json:"category,omitempty"`
	Message  string `json:"message,omitempty"`
}

func (r toolResult) String() string {
	b, _ := json.Marshal(r)
	return string(b)
}

// applyToolCall checks one tool call through the guardrails and, when it
// passes, stores the session note. It returns the tool result for the model,
// the saved note or the refusal category.
func (a *Agent) applyToolCall(ctx context.Context, cs *models.ChatSession, userMsg *models.Message, call memory.ToolCall) (string, *memory.Note, string) {
	if call.Name != memory.SaveNoteToolName {
		return toolResult{Error: "unknown_tool", Message: "There is no tool named " + fmt.Sprintf("%q", call.Name) + "; only save_memory_note and, in long conversations, search_conversation exist."}.String(), nil, ""
	}
	args, err := memory.ParseSaveNoteArgs(call.Arguments)
	if err != nil {
		return toolResult{Error: "bad_arguments", Message: "The arguments were not valid: " + err.Error() +
			`. Send a JSON object {"text": string, "keywords": [1-3 lowercase words], "scope": "durable" | "this_trip"}.`}.String(), nil, ""
	}
	globalCount, sessionCount, err := a.store.CountNotes(ctx, cs.UserID, cs.ID)
	if err != nil {
		return toolResult{Error: "unavailable", Message: "The note could not be saved right now."}.String(), nil, ""
	}
	checked, refusal := memory.CheckNote(args, sessionCount, globalCount, a.cfg.Limits)
	if refusal == nil && a.cfg.Reviewer != nil {
		if refusal, err = a.cfg.Reviewer.Review(ctx, checked.Text); err != nil {
			a.log.Warn("guard classifier failed; the rules' verdict stands", "session_id", cs.ID, "err", err)
		}
	}
	if refusal != nil {
		if err := a.store.RecordBlockedWrite(ctx, cs.UserID, cs.ID, refusal.Category); err != nil {
			a.log.Error("record blocked write", "session_id", cs.ID, "err", err)
		}
		a.log.Info("memory write blocked", "session_id", cs.ID, "category", refusal.Category)
		return toolResult{Error: "refused", Category: refusal.Category, Message: refusal.Message}.String(), nil, refusal.Category
	}
	n, err := a.store.CreateNote(ctx, models.NewNote{UserID: cs.UserID, Kind: models.KindSession,
		Note: memory.Note{Text: checked.Text, Keywords: checked.Keywords, Scope: checked.Scope, Source: memory.SourceAssistant,
			LastUpdateDate: a.now().UTC().Format(memory.DateLayout)},
		Prov: models.Provenance{SessionID: cs.ID, MessageID: userMsg.ID}}, models.Actor{Kind: models.ActorAssistant}, "stated by the traveler")
	if err != nil {
		a.log.Error("save session note", "session_id", cs.ID, "err", err)
		return toolResult{Error: "unavailable", Message: "The note could not be saved right now."}.String(), nil, ""
	}
	d := n.Domain()
	return toolResult{OK: true, ID: n.ID, Scope: string(d.Scope)}.String(), &d, ""
}
