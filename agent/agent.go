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

	"go.opentelemetry.io/otel/trace"

	"concierge/memory"
	"concierge/memory/longchat"
	"concierge/memory/prompt"
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
	// AnswerLease is how long a session stays with an instance that stopped
	// renewing its answer lease (it died or stalled); a heartbeat renews it
	// every third of that while a turn runs.
	AnswerLease time.Duration
	// AnswerWait is how long a send waits for another turn of the same
	// session (here or on another instance) before it answers "not stored".
	AnswerWait  time.Duration
	RecencyOnly bool // rank long-term notes by recency alone (the evaluation's baseline strategy)
	// Reviewer, when set, is the guard's model layer: it reviews the notes
	// the rules passed (memory.NoteClassifier); nil means rules only.
	Reviewer NoteReviewer
}

// DefaultConfig returns the turn loop's defaults.
func DefaultConfig(model string) Config {
	return Config{
		Model: model, MaxRounds: 4, MaxUserTurns: longchat.DefaultMaxUserTurns,
		HistoryBudget: 12000, ReserveForAnswer: 1500, GlobalBudget: prompt.DefaultGlobalBudget,
		AnswerLease: 8 * time.Second, AnswerWait: 20 * time.Second,
		Limits: memory.Limits{MaxSessionNotes: memory.DefaultMaxSessionNotes, MaxGlobalNotes: memory.DefaultMaxGlobalNotes},
	}
}

// Agent runs chat turns. It is safe for concurrent use; turns of one session
// run one at a time.
type Agent struct {
	cfg      Config
	store    *models.Store
	notes    *models.Notes // every note write, with cfg.Limits
	provider Provider
	counter  memory.TokenCounter
	profiles *memory.Profiles // the profile renderings of recent turns
	log      *slog.Logger
	now      func() time.Time
	observer Observer
	tracer   trace.Tracer // nil: tracing off (see trace.go)

	mu    sync.Mutex
	locks map[string]*sessionLock
	// summarizing holds the sessions whose summary is being written in
	// the background (see summarizeLater); bg waits for those writes.
	summarizing map[string]bool
	bg          sync.WaitGroup
}

// New builds an Agent.
func New(cfg Config, store *models.Store, provider Provider, log *slog.Logger) *Agent {
	return &Agent{cfg: cfg, store: store, notes: store.Notes(cfg.Limits), provider: provider, counter: memory.NewTokenCounter(cfg.Model),
		profiles: memory.NewProfiles(), log: log, now: time.Now, locks: map[string]*sessionLock{}, summarizing: map[string]bool{}}
}

// Notes is the note service with the agent's caps: the one way notes are
// written, by the assistant here and by the traveler and staff through
// handlers.
func (a *Agent) Notes() *models.Notes { return a.notes }

// ProviderName names the model behind the agent.
func (a *Agent) ProviderName() string { return a.provider.Name() }

// TurnResult is what one turn produced.
type TurnResult struct {
	Reply string
	Turn  int
	Saved []memory.Note
	// Forgotten are the notes forget_memory_note took out this turn.
	Forgotten []memory.Note
	Blocked   []string // refusal categories, never the refused text
	Usage     Usage
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

// Post is one message a client sends.
type Post struct {
	SessionID string
	Content   string
	// IdempotencyKey makes the send idempotent across retries and
	// instances: a key stores its message once (a unique index), and a
	// retry returns the stored message's answer or answers it. Empty: the
	// same text as the unanswered last message counts as a retry.
	IdempotencyKey string
	// OnDelta, when not nil, receives the answer's text as it is generated.
	OnDelta func(string)
	// OnStored, when not nil, learns the message's turn once it is stored
	// (or found stored), so a caller cut short knows what to tell.
	OnStored func(turn int)
	// Trace is the span of the request that sends the message: the turn's
	// span continues its trace. The zero value starts a trace of its own.
	Trace trace.SpanContext
}

// Store stores a user message before anything else, the first step of
// every send (Runner.Submit): it waits, up to AnswerWait, for the
// session's other turns here and while the session's answer lease is held
// elsewhere, then stores the message and takes the lease in the same
// transaction, so the message never lands inside a turn another instance
// is answering, and the message it returns is the one this process
// answers. It is idempotent: a retry (same key, or same text without one)
// gets the stored message, and its answer when it has one. When the wait
// runs out it fails with memory.EANSWERING (and the stored message's turn)
// if the message is stored and being answered elsewhere, and with
// models.ErrBusy (memory.ENOTSTORED) if nothing was written. ctx bounds
// the turn: the lease's heartbeat and the answer run under it.
func (a *Agent) Store(ctx context.Context, p Post) (*Pending, error) {
	start := time.Now()
	unlock, err := a.lock(ctx, p.SessionID, a.cfg.AnswerWait)
	if err != nil {
		return a.answeredElsewhere(a.notAnswered(ctx, p, err))
	}
	var sub *models.Submitted
	err = whileBusy(ctx, a.cfg.AnswerWait-time.Since(start), func() (err error) {
		sub, err = a.store.SubmitUserMessage(ctx, models.UserMessage{SessionID: p.SessionID, Content: p.Content,
			IdempotencyKey: p.IdempotencyKey, TakeLease: a.cfg.AnswerLease})
		return err
	})
	if err != nil {
		unlock()
		return a.answeredElsewhere(a.notAnswered(ctx, p, err))
	}
	if p.OnStored != nil {
		p.OnStored(sub.Message.Turn)
	}
	pd := &Pending{a: a, h: a.keep(ctx, sub.Lease), unlock: unlock, sub: sub, start: start, turn: sub.Message.Turn}
	if sub.Existed {
		if res, ok := a.storedAnswer(ctx, sub.Message); ok {
			pd.Release()
			pd.answered = res
		}
	}
	return pd, nil
}

func (a *Agent) answeredElsewhere(res *TurnResult, err error) (*Pending, error) {
	if err != nil {
		return nil, err
	}
	return &Pending{turn: res.Turn, answered: res}, nil
}

// Pending is a user message Store has just stored. Until Answer or
// Release, this process holds the session's turn here and its answer
// lease, renewed by a heartbeat, so nobody else answers it.
type Pending struct {
	a        *Agent
	h        *heldLease
	unlock   func()
	sub      *models.Submitted
	start    time.Time
	turn     int
	answered *TurnResult
}

// Turn is the stored message's turn number.
func (p *Pending) Turn() int { return p.turn }

// Answered is the message's answer when it had one already (a retry):
// there is nothing to answer, and nothing is held.
func (p *Pending) Answered() *TurnResult { return p.answered }

// Answer runs the model for the message, stores the answer, and gives the
// lease and the session back.
func (p *Pending) Answer(onDelta func(string)) (*TurnResult, error) {
	if p.answered != nil {
		return p.answered, nil
	}
	defer p.Release()
	return p.a.answer(p.h, p.sub.Session, p.turn, p.sub.Language, onDelta, p.start)
}

// Release gives the lease and the session back without answering; the
// message stays stored, pending.
func (p *Pending) Release() {
	if p.h == nil {
		return
	}
	p.h.release()
	p.unlock()
	p.h = nil
}

// AnswerPending runs the model for the session's last user message if it
// has no answer yet (the Runner's turns call it). It returns
// ErrNothingToAnswer when the last turn is already answered, and
// models.ErrBusy at once when another instance is answering the session.
// The answer lease and its heartbeat are taken here, so every caller —
// whatever context it runs under — gets them.
func (a *Agent) AnswerPending(ctx context.Context, sessionID string, onDelta func(string)) (*TurnResult, error) {
	start := time.Now()
	unlock, err := a.lock(ctx, sessionID, a.cfg.AnswerWait)
	if err != nil {
		return nil, err
	}
	defer unlock()
	l, err := a.store.TakeAnswerLease(ctx, sessionID, a.cfg.AnswerLease)
	if err != nil {
		return nil, err
	}
	h := a.keep(ctx, l)
	defer h.release()
	cs, err := a.store.ChatSessionByID(h.ctx, sessionID)
	if err != nil {
		return nil, err
	}
	return a.answer(h, cs, 0, a.accountLanguage(h.ctx, cs.UserID), onDelta, start)
}

// notAnswered explains a send that could not take the session: if its
// message is stored (a retry of one another instance still answers), it
// fails with memory.EANSWERING and the message's turn, or returns the
// answer if there is one by now; otherwise nothing was written.
func (a *Agent) notAnswered(ctx context.Context, p Post, err error) (*TurnResult, error) {
	if !errors.Is(err, models.ErrBusy) {
		return nil, err
	}
	var m *models.Message
	if p.IdempotencyKey != "" {
		m, _ = a.store.MessageByKey(ctx, p.SessionID, p.IdempotencyKey)
	} else if pm, _ := a.store.PendingUserMessage(ctx, p.SessionID); pm != nil && pm.Content == p.Content {
		m = pm
	}
	if m == nil {
		return nil, models.ErrBusy
	}
	if res, ok := a.storedAnswer(ctx, m); ok {
		return res, nil
	}
	return nil, &memory.Error{Code: memory.EANSWERING, Turn: m.Turn,
		Message: "Your message is stored and is being answered. Read the conversation in a moment; do not send it again."}
}

// storedAnswer returns the answer a stored message already has.
func (a *Agent) storedAnswer(ctx context.Context, m *models.Message) (*TurnResult, bool) {
	ans, err := a.store.AnswerOf(ctx, m.SessionID, m.Turn)
	if err != nil {
		return nil, false
	}
	return &TurnResult{Reply: ans.Content, Turn: m.Turn}, true
}

// ErrNothingToAnswer is returned by Answer when no user message awaits an answer.
var ErrNothingToAnswer = errors.New("no user message awaits an answer")

// ErrSuperseded is returned when a retried message was never answered and
// the traveler has sent a newer one since: the newer one is the turn that
// gets answered, and the older one stays in the transcript unanswered.
var ErrSuperseded = &memory.Error{Code: memory.ECONFLICT,
	Message: "A newer message in this conversation was sent after this one; that one is answered instead. This message stays in the conversation."}

// answer answers the pending message of the session cs under the held
// lease h — the message of turn, when turn is not 0 — in lang, the
// owner's account language ("" for none); start is when the caller began,
// so the turn's server time includes its waits and its store.
func (a *Agent) answer(h *heldLease, cs *models.ChatSession, turn int, lang string, onDelta func(string), start time.Time) (*TurnResult, error) {
	ctx := h.ctx
	if cs.Status != models.SessionOpen {
		return nil, models.ErrSessionClosed
	}
	history, err := a.store.Messages(ctx, cs.ID)
	if err != nil {
		return nil, err
	}
	userMsg, _ := pendingUser(history)
	if turn != 0 && (userMsg == nil || userMsg.Turn != turn) {
		// The message asked for never got its answer (its caller found
		// none), and the traveler's newer one is pending or answered.
		return nil, ErrSuperseded
	}
	if userMsg == nil {
		return nil, ErrNothingToAnswer
	}
	res, err := a.run(h, cs, userMsg, history, lang, onDelta)
	var modelTime time.Duration
	if res != nil {
		modelTime = res.ModelTime
	}
	a.observe(start, modelTime, err == nil)
	if err != nil {
		if errors.Is(context.Cause(ctx), errLeaseLost) || errors.Is(err, models.ErrLeaseLost) || errors.Is(err, errLeaseLost) {
			// Another instance took the session over (we stalled past the
			// lease); it answers the stored message.
			return nil, &memory.Error{Code: memory.EANSWERING, Turn: userMsg.Turn,
				Message: "Your message is stored and is being answered. Read the conversation in a moment; do not send it again."}
		}
		if errors.Is(err, models.ErrSessionClosed) {
			// The traveler (or the idle sweep) ended the conversation while
			// it was being answered: expected, and nothing is lost.
			a.log.Info("turn ended with its session", "session_id", cs.ID, "turn", userMsg.Turn)
			return nil, err
		}
		a.log.WarnContext(ctx, "turn failed", "session_id", cs.ID, "turn", userMsg.Turn, "err_kind", FailureKind(err))
		return nil, err
	}
	a.log.InfoContext(ctx, "turn", "session_id", cs.ID, "user_id", cs.UserID, "turn", res.Turn, "saved", len(res.Saved),
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

// run is the model loop of one turn under the held lease h, in the
// account language lang. Each round is stored in one transaction
// (CommitRound): the snapshot of what the model was sent, its message and
// the results of its tool calls, with the lease renewed, or released on
// the last round.
func (a *Agent) run(h *heldLease, cs *models.ChatSession, userMsg *models.Message, stored []models.Message, lang string, onDelta func(string)) (*TurnResult, error) {
	ctx := h.ctx
	profile, err := a.store.Profile(ctx, cs.UserID)
	if err != nil {
		return nil, err
	}
	trips, open, err := a.store.TurnTrips(ctx, cs.UserID, memory.MaxTrips)
	if err != nil {
		return nil, err
	}
	notes, err := a.store.TurnNotes(ctx, cs.UserID, cs.ID, cs.TripID)
	if err != nil {
		return nil, err
	}
	global, session := notes.Global, notes.Session
	history := make([]memory.Message, len(stored))
	for i := range stored {
		history[i] = stored[i].Domain()
	}
	forgetUndone(history, session)
	res := &TurnResult{Turn: userMsg.Turn}
	var kept []memory.Message
	for round := 1; round <= a.cfg.MaxRounds; round++ {
		if round > 1 {
			// The last round's tool calls may have saved notes, and the
			// traveler or staff may have removed one meanwhile: a removed
			// note never reaches a later round's instructions.
			if notes, err = a.store.TurnNotes(ctx, cs.UserID, cs.ID, cs.TripID); err != nil {
				return nil, err
			}
			global, session = notes.Global, notes.Session
			// and update_trip may have created or attached a trip.
			if open, err = a.store.OpenTrips(ctx, cs.UserID); err != nil {
				return nil, err
			}
		}
		var trimmed bool
		kept, trimmed = longchat.Trim(history, longchat.TrimOptions{MaxUserTurns: a.cfg.MaxUserTurns,
			TokenBudget: a.cfg.HistoryBudget, ReserveForAnswer: a.cfg.ReserveForAnswer, Counter: a.counter})
		st := memory.NewState(profile, global, session, trips)
		st.OpenTrips = open
		if err := a.withTrip(ctx, cs, &st, notes.Trip); err != nil {
			return nil, err
		}
		tools := withForget(roundTools(trimmed, round == a.cfg.MaxRounds), global, session, st.TripNotes)
		instructions := a.Instructions(st,
			TurnContext{LatestMessage: userMsg.Content, Trimmed: trimmed, Summary: cs.Summary, Tools: tools, Language: lang})
		req := Request{Model: a.cfg.Model, Instructions: instructions.Text, Messages: modelView(kept), Tools: tools, MaxTokens: a.cfg.ReserveForAnswer}
		called := time.Now()
		resp, err := a.provider.Complete(ctx, req, onDelta)
		res.ModelTime += time.Since(called)
		if err != nil {
			return res, &ModelError{Err: err}
		}
		res.Usage.PromptTokens += resp.Usage.PromptTokens
		res.Usage.CompletionTokens += resp.Usage.CompletionTokens
		assistant := &models.Message{SessionID: cs.ID, Role: string(memory.RoleAssistant), Content: resp.Content,
			ToolCalls: models.EncodeToolCalls(resp.ToolCalls), Turn: userMsg.Turn}
		written := []*models.Message{assistant}
		history = append(history, assistant.Domain())
		var saved []models.PendingNote
		for _, call := range resp.ToolCalls {
			ctx, endTool := a.startTool(ctx, call)
			var (
				result, blocked string
				note            *models.PendingNote
			)
			offered := slices.ContainsFunc(tools, func(t memory.Tool) bool { return t.Name == call.Name })
			if call.Name == memory.SearchToolName && offered {
				result = a.searchConversation(ctx, cs, windowStart(kept), call)
			} else if call.Name == memory.ForgetToolName && offered {
				var gone *memory.Note
				if result, gone = a.forgetCall(ctx, cs, userMsg, call, instructions.Notes); gone != nil {
					res.Forgotten = append(res.Forgotten, *gone)
				}
			} else {
				// The notes this round read, and those it saves: the round
				// is the session's only writer of session notes.
				result, note, blocked = a.applyToolCall(ctx, cs, userMsg, call, earlierNotes(session, saved), len(global))
			}
			endTool(note != nil, blocked)
			if note != nil {
				saved = append(saved, *note)
			}
			if blocked != "" {
				res.Blocked = append(res.Blocked, blocked)
			}
			toolMsg := &models.Message{SessionID: cs.ID, Role: string(memory.RoleTool), Content: result, ToolCallID: call.ID, Turn: userMsg.Turn}
			written = append(written, toolMsg)
			history = append(history, toolMsg.Domain())
		}
		last := len(resp.ToolCalls) == 0
		if err := h.commit(models.Round{Snapshot: a.snapshot(cs, userMsg.Turn, round, req, instructions, resp),
			Messages: written, Notes: saved, Release: last}); err != nil {
			return nil, err
		}
		for _, n := range saved {
			res.Saved = append(res.Saved, n.Note)
		}
		if last {
			res.Reply = resp.Content
			a.summarizeLater(cs, history, kept, userMsg.Turn)
			return res, nil
		}
	}
	return nil, &ModelError{Err: errors.New("the model kept calling tools without answering")}
}

// snapshot records exactly what one round sent the model and what came back.
func (a *Agent) snapshot(cs *models.ChatSession, turn, round int, req Request, in prompt.Instructions, resp Response) *models.TurnSnapshot {
	msgs, _ := json.Marshal(req.Messages)
	out, _ := json.Marshal(resp)
	snap := &models.TurnSnapshot{SessionID: cs.ID, UserID: cs.UserID, Turn: turn, Round: round,
		Model: a.provider.Name(), Instructions: req.Instructions, Messages: string(msgs), Response: string(out),
		PromptTokens: resp.Usage.PromptTokens, CompletionTokens: resp.Usage.CompletionTokens}
	snap.SetInjection(in)
	if req.Instructions == in.Text {
		snap.ShareStatic(in.StaticHead, in.StaticTail)
	}
	return snap
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

func (r toolResult) String() string { return r.marshal(r) }

func (toolResult) marshal(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// earlierNotes is the text of the session's notes so far, oldest first:
// those the turn read and those its round saves before the next call.
func earlierNotes(session []memory.Note, saved []models.PendingNote) []string {
	out := make([]string, 0, len(session)+len(saved))
	for _, n := range session {
		out = append(out, n.Text)
	}
	for _, n := range saved {
		out = append(out, n.Note.Text)
	}
	return out
}

// applyToolCall checks one tool call through the guardrails, given the
// session's earlier notes (the guard also reads the new note joined to them,
// and the session cap counts them) and how many global notes there are, and
// when it passes drafts the session note the round's commit stores. It
// returns the tool result for the model, the note to save or the refusal
// category.
func (a *Agent) applyToolCall(ctx context.Context, cs *models.ChatSession, userMsg *models.Message, call memory.ToolCall, earlier []string, globalCount int) (string, *models.PendingNote, string) {
	if call.Name == memory.UpdateTripToolName {
		return a.updateTrip(ctx, cs, call), nil, ""
	}
	if call.Name != memory.SaveNoteToolName {
		return toolResult{Error: "unknown_tool", Message: "There is no tool named " + fmt.Sprintf("%q", call.Name) + "; only save_memory_note, update_trip, forget_memory_note when there are notes, and, in long conversations, search_conversation exist."}.String(), nil, ""
	}
	args, err := memory.ParseSaveNoteArgs(call.Arguments)
	if err != nil {
		return toolResult{Error: "bad_arguments", Message: "The arguments were not valid: " + err.Error() +
			`. Send a JSON object {"text": string, "keywords": [1-3 lowercase words], "scope": "durable" | "this_trip", "expires_on": "YYYY-MM-DD" | null}.`}.String(), nil, ""
	}
	today := a.now().UTC().Format(memory.DateLayout)
	if err := memory.CheckExpiry(args.ExpiresOn, today); err != nil {
		return toolResult{Error: "bad_expiry", Message: userMessageOf(err)}.String(), nil, ""
	}
	// The guard's rules first, then its model review, outside any
	// transaction; the round's commit checks the note again as it stores it.
	n, refusal := a.notes.Draft(models.PendingNote{NewNote: models.NewNote{UserID: cs.UserID, Kind: models.KindSession,
		Note: memory.Note{Text: args.Text, Keywords: args.Keywords, Scope: args.Scope, Source: memory.SourceAssistant,
			LastUpdateDate: today, ExpiresOn: args.ExpiresOn},
		Prov: models.Provenance{SessionID: cs.ID, MessageID: userMsg.ID}},
		Actor: models.Actor{Kind: models.ActorAssistant}, Reason: "stated by the traveler", Earlier: earlier,
		Reviewed: a.cfg.Reviewer != nil}, len(earlier), globalCount)
	if refusal == nil && a.cfg.Reviewer != nil {
		if refusal, err = a.cfg.Reviewer.Review(ctx, n.Note.Text); err != nil {
			a.log.Warn("guard classifier failed; the rules' verdict stands", "session_id", cs.ID, "err", err)
			// The rules alone: a script they cannot read is refused after all.
			n.Reviewed = false
			n, refusal = a.notes.Draft(n, len(earlier), globalCount)
		}
	}
	if refusal != nil {
		if err := a.store.RecordBlockedWrite(ctx, cs.UserID, cs.ID, userMsg.ID, refusal.Category); err != nil {
			a.log.Error("record blocked write", "session_id", cs.ID, "err", err)
		}
		a.log.Info("memory write blocked", "session_id", cs.ID, "category", refusal.Category)
		return toolResult{Error: "refused", Category: refusal.Category, Message: refusal.Message}.String(), nil, refusal.Category
	}
	return toolResult{OK: true, ID: n.Note.ID, Scope: string(n.Note.Scope)}.String(), &n, ""
}
