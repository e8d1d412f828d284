package models

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"concierge/memory"
)

// ErrSessionClosed is returned when a message is sent to a session that is
// closing or closed.
var ErrSessionClosed = &memory.Error{Code: memory.ESESSIONCLOSED, Message: "This conversation has ended. Start a new one to keep chatting."}

// ErrBusy is returned when another instance holds the session's answer
// lease and nothing was written.
var ErrBusy = &memory.Error{Code: memory.ENOTSTORED,
	Message: "Another message in this conversation is being answered; yours was not stored. Send it again in a moment."}

// ErrKeyReused is returned when an idempotency key already stored a
// different message.
var ErrKeyReused = &memory.Error{Code: memory.EKEYREUSED,
	Message: "This Idempotency-Key was already used for a different message; use a new key for each message."}

// ErrLeaseLost is returned when a write needs the answer lease and its
// holder no longer has it (it ran out and another instance took over).
var ErrLeaseLost = errors.New("answer lease no longer held")

// CreateChatSession opens a new chat session for a traveler.
func (s *Store) CreateChatSession(ctx context.Context, userID string) (*ChatSession, error) {
	now := s.now()
	cs := &ChatSession{ID: s.newID(), UserID: userID, Status: SessionOpen, LastActivityAt: now, CreatedAt: now}
	// A new conversation has no trip: the column (migration 24) keeps its
	// default, so the insert also works on a database migrated before it.
	if err := s.write(ctx, func(tx *gorm.DB) error { return tx.Omit("TripID").Create(cs).Error }); err != nil {
		return nil, fmt.Errorf("models: create chat session: %w", err)
	}
	return cs, nil
}

// AnswerLease is a held answer lease on one session: while it runs, only
// its holder (Token) stores messages in the session.
type AnswerLease struct {
	SessionID string
	Token     string
	// userID and lastSeq are the session's owner and the sequence number
	// of its last message, known to the holder since its submission stored
	// or found the message it answers (lastSeq 0: not known, as after
	// TakeAnswerLease). While the lease is held nobody else appends, so a
	// round's commit numbers its messages from lastSeq without reading the
	// session again; the unique (session, seq) index is the backstop.
	userID  string
	lastSeq int
}

// TakeAnswerLease takes the session's answer lease for d, so that only one
// instance answers it at a time. It fails with ErrBusy while another
// holder's lease runs; a lease that ran out (its holder died or stalled) is
// taken over.
func (s *Store) TakeAnswerLease(ctx context.Context, sessionID string, d time.Duration) (*AnswerLease, error) {
	now := s.SharedNow()
	token := s.newID()
	var taken int64
	err := s.write(ctx, func(tx *gorm.DB) error {
		res := tx.Model(&ChatSession{}).
			Where("id = ? AND (answering_until IS NULL OR answering_until < ? OR answering_until > ?)", sessionID, now, now.Add(MaxLease)).
			Updates(map[string]any{"answering_until": now.Add(d), "answering_by": token})
		taken = res.RowsAffected
		return res.Error
	})
	if err != nil {
		return nil, fmt.Errorf("models: lease answer %s: %w", sessionID, err)
	}
	if taken == 0 {
		if _, err := s.ChatSessionByID(ctx, sessionID); err != nil {
			return nil, err
		}
		return nil, ErrBusy
	}
	return &AnswerLease{SessionID: sessionID, Token: token}, nil
}

// RenewAnswerLease extends a held lease to now+d. It fails with
// ErrLeaseLost when another holder took the session over, so live work
// learns it must stop writing; a lease that ran out but was not taken is
// still ours.
func (s *Store) RenewAnswerLease(ctx context.Context, l *AnswerLease, d time.Duration) error {
	var renewed int64
	err := s.write(ctx, func(tx *gorm.DB) error {
		res := tx.Model(&ChatSession{}).Where("id = ? AND answering_by = ?", l.SessionID, l.Token).
			Update("answering_until", s.SharedNow().Add(d))
		renewed = res.RowsAffected
		return res.Error
	})
	if err != nil {
		return fmt.Errorf("models: renew answer lease %s: %w", l.SessionID, err)
	}
	if renewed == 0 {
		return ErrLeaseLost
	}
	return nil
}

// ReleaseAnswerLease gives a held lease back; someone else's is left alone.
func (s *Store) ReleaseAnswerLease(ctx context.Context, l *AnswerLease) error {
	err := s.write(context.WithoutCancel(ctx), func(tx *gorm.DB) error {
		return tx.Model(&ChatSession{}).Where("id = ? AND answering_by = ?", l.SessionID, l.Token).
			Updates(map[string]any{"answering_until": nil, "answering_by": ""}).Error
	})
	if err != nil {
		return fmt.Errorf("models: release answer lease %s: %w", l.SessionID, err)
	}
	return nil
}

// lockedSession is a session read by lockSessionTx, with the sequence and
// turn numbers of its last message.
type lockedSession struct {
	ChatSession `gorm:"embedded"`
	LastSeq     int
	LastTurn    int
	// Language and RepeatsPending are read only for a submission
	// (lockSessionTx with a UserMessage): the owner's account language,
	// and whether the session's last user message is unanswered and has
	// the submitted text (a retry without a key).
	Language       string
	RepeatsPending bool
}

// lastMessage reads a column of the session's last message, one step down
// the (session, seq) index; turns only grow, so its turn is the highest.
const lastMessage = `COALESCE((SELECT m.%s FROM messages m WHERE m.session_id = chat_sessions.id ORDER BY m.seq DESC LIMIT 1), 0)`

// submitColumns are what a submission reads with the session's row
// besides where its transcript ends, so that it needs no statement of its
// own for them: the owner's account language (the turn's instructions name
// it) and whether the last user message is unanswered with the same text
// (a retry without a key; role is a literal so that the planner uses the
// partial index on user turns).
const submitColumns = `, COALESCE((SELECT u.language FROM users u WHERE u.id = chat_sessions.user_id), '') AS language` +
	`, COALESCE((SELECT m.content = ? AND NOT EXISTS (SELECT 1 FROM messages a WHERE a.session_id = m.session_id AND a.turn = m.turn AND a.role = 'assistant' AND a.tool_calls = '')` +
	` FROM messages m WHERE m.session_id = chat_sessions.id AND m.role = 'user' ORDER BY m.turn DESC LIMIT 1), false) AS repeats_pending`

// lockSessionTx reads a session inside tx, with where its transcript ends
// and, for a submission (um not nil), submitColumns. On SQLite, where the
// one writer already serialises write transactions, that is one statement.
// On PostgreSQL the session's row is locked first, until the transaction
// ends, so appends to one session are serialised; the rest is read after
// the lock is granted, in a statement of its own, because a statement's
// subqueries see the data as it was when the statement began, before it
// waited for the lock.
func (s *Store) lockSessionTx(tx *gorm.DB, sessionID string, um *UserMessage) (*lockedSession, error) {
	var cs lockedSession
	last := func(col string) string { return fmt.Sprintf(lastMessage, col) }
	cols, args := last("seq")+" AS last_seq, "+last("turn")+" AS last_turn", []any(nil)
	if um != nil {
		cols, args = cols+submitColumns, []any{um.Content}
	}
	if s.postgres {
		if err := tx.Clauses(clause.Locking{Strength: "UPDATE"}).Where("id = ?", sessionID).Take(&cs.ChatSession).Error; err != nil {
			return nil, notFound(err)
		}
		var end struct {
			LastSeq, LastTurn int
			Language          string
			RepeatsPending    bool
		}
		err := tx.Model(&ChatSession{}).Select(cols, args...).Where("id = ?", sessionID).Find(&end).Error
		cs.LastSeq, cs.LastTurn, cs.Language, cs.RepeatsPending = end.LastSeq, end.LastTurn, end.Language, end.RepeatsPending
		return &cs, err
	}
	// Find, not Scan, on these hot reads: GORM's Scan renders the
	// statement's SQL with its arguments for the logger on every call.
	err := tx.Model(&ChatSession{}).Select("chat_sessions.*, "+cols, args...).
		Where("id = ?", sessionID).Limit(1).Find(&cs).Error
	if err != nil {
		return nil, err
	}
	if cs.ID == "" {
		return nil, ErrNotFound
	}
	return &cs, nil
}

// UserMessage is a user message to store with SubmitUserMessage.
type UserMessage struct {
	SessionID string
	Content   string
	// IdempotencyKey, when set, makes the send idempotent: a second send
	// with the same key returns the stored message instead of a new one.
	IdempotencyKey string
	// TakeLease is how long the session's answer lease is taken for, in
	// the same transaction that stores the message (Submitted.Lease): one
	// commit instead of two on every turn. It must be positive.
	TakeLease time.Duration
}

// ErrNoLeaseTime refuses a submission without TakeLease: every stored user
// message is answered under the lease its submission took.
var ErrNoLeaseTime = errors.New("models: a user message is submitted with TakeLease")

// Submitted is what SubmitUserMessage stored or found.
type Submitted struct {
	Message *Message
	// Existed reports that the message was already stored (a retry).
	Existed bool
	// Session is the session's row as the transaction left it.
	Session *ChatSession
	// Lease is the answer lease the transaction took (UserMessage.TakeLease),
	// or the caller's own.
	Lease *AnswerLease
	// Language is the session owner's account language ("" for none),
	// read with the session: the turn's instructions name it.
	Language string
}

// SubmitUserMessage stores a user message, the database giving it the
// session's next turn, and reports whether it was already stored: by its
// idempotency key, or, without a key, when the same text is the session's
// unanswered last message (a retry). It refuses with ErrBusy, writing
// nothing, while another holder's answer lease runs, so a user message
// never lands inside someone else's turn (between a tool call and its
// result); with ErrKeyReused when the key stored different text; and with
// ErrSessionClosed when the session no longer takes messages.
func (s *Store) SubmitUserMessage(ctx context.Context, um UserMessage) (*Submitted, error) {
	if um.TakeLease <= 0 {
		return nil, ErrNoLeaseTime
	}
	return s.submit(ctx, um, nil)
}

// submit is SubmitUserMessage for a caller holding lease (nil: none; then
// um.TakeLease takes one, or, zero, only tests' lease-less submissions).
func (s *Store) submit(ctx context.Context, um UserMessage, lease *AnswerLease) (*Submitted, error) {
	var (
		out     *Submitted
		lastSeq int // where the transcript ends once the message is in
	)
	err := s.write(ctx, func(tx *gorm.DB) error {
		cs, err := s.lockSessionTx(tx, um.SessionID, &um)
		if err != nil {
			return err
		}
		now := s.SharedNow()
		var took map[string]any
		if lease == nil && um.TakeLease > 0 {
			if !leaseAllows(&cs.ChatSession, nil, now) {
				return ErrBusy
			}
			lease = &AnswerLease{SessionID: cs.ID, Token: s.newID()}
			until := now.Add(um.TakeLease)
			cs.AnsweringBy, cs.AnsweringUntil = lease.Token, &until
			took = map[string]any{"answering_by": lease.Token, "answering_until": until}
		}
		out = &Submitted{Session: &cs.ChatSession, Lease: lease, Language: cs.Language}
		m, err := s.findSubmitted(tx, cs, um, lease, now)
		if err != nil {
			return err
		}
		if m != nil {
			out.Message, out.Existed, lastSeq = m, true, cs.LastSeq
			if took != nil {
				return tx.Model(&ChatSession{}).Where("id = ?", cs.ID).Updates(took).Error
			}
			return nil
		}
		m = &Message{SessionID: um.SessionID, Role: string(memory.RoleUser), Content: um.Content}
		if um.IdempotencyKey != "" {
			key := um.IdempotencyKey
			m.IdempotencyKey = &key
		}
		if err := s.appendTx(tx, cs, took, m); err != nil {
			return err
		}
		out.Message, lastSeq = m, cs.LastSeq
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("models: submit message to %s: %w", um.SessionID, MarkStored(conflict(err), StoredNo))
	}
	if out.Lease != nil {
		// The transaction committed: the holder knows where the transcript
		// ends (see AnswerLease).
		out.Lease.userID, out.Lease.lastSeq = out.Session.UserID, lastSeq
	}
	return out, nil
}

// findSubmitted returns the stored message a submission repeats (by key,
// or without one the same text as the unanswered last message), nil when
// it is new; it refuses a key reused for other text, a session that no
// longer takes messages and one another holder's lease runs on.
func (s *Store) findSubmitted(tx *gorm.DB, cs *lockedSession, um UserMessage, lease *AnswerLease, now time.Time) (*Message, error) {
	if um.IdempotencyKey != "" {
		var m Message
		err := tx.Where("session_id = ? AND idempotency_key = ?", um.SessionID, um.IdempotencyKey).Take(&m).Error
		if err == nil {
			if m.Content != um.Content {
				return nil, ErrKeyReused
			}
			return &m, nil
		}
		if !errors.Is(err, gorm.ErrRecordNotFound) {
			return nil, err
		}
	}
	if cs.Status != SessionOpen {
		return nil, ErrSessionClosed
	}
	if !leaseAllows(&cs.ChatSession, lease, now) {
		return nil, ErrBusy
	}
	// The session's read told whether the last user message is an
	// unanswered one with this text; only then is it read whole.
	if um.IdempotencyKey == "" && cs.RepeatsPending {
		pending, err := pendingUserTx(tx, um.SessionID)
		if err != nil {
			return nil, err
		}
		if pending != nil && pending.Content == um.Content {
			return pending, nil
		}
	}
	return nil, nil
}

// leaseAllows reports whether a caller holding l (nil: none) may append to
// the session now.
func leaseAllows(cs *ChatSession, l *AnswerLease, now time.Time) bool {
	if l != nil {
		return cs.AnsweringBy == l.Token
	}
	return cs.AnsweringUntil == nil || cs.AnsweringUntil.Before(now) || cs.AnsweringUntil.After(now.Add(MaxLease))
}

// Round is what one model round of a turn leaves behind, written together
// by Notes.CommitRound.
type Round struct {
	// Snapshot is exactly what the model was sent (nil: none).
	Snapshot *TurnSnapshot
	// Messages are appended in order: the assistant's message, then the
	// results of its tool calls.
	Messages []*Message
	// Notes are the session notes the round's tool calls saved, stored in
	// the same transaction as the tool results that report them; Notes.Draft
	// gives each its id first. A crash or a lost lease leaves neither.
	Notes []PendingNote
	// Release gives the answer lease back (the turn is over); otherwise
	// the lease is renewed for Renew, when positive.
	Release bool
	Renew   time.Duration
}

// commitRound stores one round of the turn the lease's holder is
// answering — its snapshot, messages and notes, the session's activity and
// the lease's renewal or release — in one transaction. It fails, writing
// nothing, with ErrLeaseLost when the lease was taken over (a stalled
// instance that wakes up cannot write into a turn that is no longer its
// own) and with ErrSessionClosed once the session no longer takes
// messages. The round's notes go through notes (Notes.CommitRound).
//
// The session's row is not read first when the holder knows where the
// transcript ends (AnswerLease): the update of the lease and the activity
// comes first and is the fence — it matches only while the lease is this
// holder's and the session is open, and on PostgreSQL it takes the row's
// lock as lockSessionTx would — and the messages are numbered after
// lastSeq.
func (s *Store) commitRound(ctx context.Context, l *AnswerLease, r Round, notes *Notes) error {
	var held lockedSession // the session as the round left it
	err := s.write(ctx, func(tx *gorm.DB) error {
		now := s.SharedNow() // last activity, which the idle sweep compares
		cs, fenced, err := s.fenceTx(tx, l, r, now)
		if err != nil {
			return err
		}
		if r.Snapshot != nil {
			if err := s.saveSnapshotTx(tx, r.Snapshot); err != nil {
				return err
			}
		}
		if fenced {
			err = s.insertMessagesTx(tx, cs, now, r.Messages)
		} else {
			err = s.appendTx(tx, cs, s.roundLease(r), r.Messages...)
		}
		if err != nil {
			return err
		}
		held = *cs
		return notes.addPendingTx(tx, cs.UserID, r.Notes)
	})
	if err != nil {
		return fmt.Errorf("models: commit round in %s: %w", l.SessionID, conflict(err))
	}
	l.userID, l.lastSeq = held.UserID, held.LastSeq
	if r.Snapshot != nil {
		s.savedSnapshot(r.Snapshot)
	}
	return nil
}

// roundLease is what a round's commit does to the lease: gives it back
// with the turn's last round, else renews it for r.Renew (when positive).
func (s *Store) roundLease(r Round) map[string]any {
	lease := map[string]any{}
	switch {
	case r.Release:
		lease["answering_until"], lease["answering_by"] = nil, ""
	case r.Renew > 0:
		lease["answering_until"] = s.SharedNow().Add(r.Renew)
	}
	return lease
}

// fenceTx begins a round's commit under l. When l knows where the
// transcript ends, the session's update comes first — the lease renewed
// or released and the activity stamped at now — and matches only while
// the lease is l's and the session is open; fenced is then true and the
// round's messages follow l.lastSeq. Otherwise (or for a round without
// messages, or with a user message, whose turn and title need the
// session's row) the session is read with lockSessionTx and checked, and
// the caller appends with appendTx.
func (s *Store) fenceTx(tx *gorm.DB, l *AnswerLease, r Round, now time.Time) (cs *lockedSession, fenced bool, err error) {
	if l.lastSeq == 0 || len(r.Messages) == 0 || slices.ContainsFunc(r.Messages, func(m *Message) bool { return m.Role == string(memory.RoleUser) }) {
		if cs, err = s.lockSessionTx(tx, l.SessionID, nil); err != nil {
			return nil, false, err
		}
		if cs.AnsweringBy != l.Token {
			return nil, false, ErrLeaseLost
		}
		return cs, false, nil
	}
	upd := s.roundLease(r)
	upd["last_activity_at"] = now
	res := tx.Model(&ChatSession{}).Where("id = ? AND answering_by = ? AND status = ?", l.SessionID, l.Token, SessionOpen).Updates(upd)
	if res.Error != nil {
		return nil, false, res.Error
	}
	if res.RowsAffected == 0 {
		// Rare: say why the fence did not match, as lockSessionTx's
		// checks would have.
		var row ChatSession
		if err := tx.Where("id = ?", l.SessionID).Take(&row).Error; err != nil {
			return nil, false, notFound(err)
		}
		if row.AnsweringBy != l.Token {
			return nil, false, ErrLeaseLost
		}
		return nil, false, ErrSessionClosed
	}
	return &lockedSession{ChatSession: ChatSession{ID: l.SessionID, UserID: l.userID, Status: SessionOpen, LastActivityAt: now},
		LastSeq: l.lastSeq}, true, nil
}

// MessageByKey returns the user message a session stored under an
// idempotency key.
func (s *Store) MessageByKey(ctx context.Context, sessionID, key string) (*Message, error) {
	var m Message
	if err := s.db.WithContext(ctx).Where("session_id = ? AND idempotency_key = ?", sessionID, key).Take(&m).Error; err != nil {
		return nil, fmt.Errorf("models: message by key in %s: %w", sessionID, notFound(err))
	}
	return &m, nil
}

// PendingUserMessage returns the session's last user message when it has
// no final answer yet, or ErrNotFound.
func (s *Store) PendingUserMessage(ctx context.Context, sessionID string) (*Message, error) {
	m, err := pendingUserTx(s.db.WithContext(ctx), sessionID)
	if err != nil {
		return nil, fmt.Errorf("models: pending message in %s: %w", sessionID, err)
	}
	if m == nil {
		return nil, fmt.Errorf("models: pending message in %s: %w", sessionID, ErrNotFound)
	}
	return m, nil
}

// AnswerOf returns the final assistant message of a turn, or ErrNotFound
// while the turn is unanswered.
func (s *Store) AnswerOf(ctx context.Context, sessionID string, turn int) (*Message, error) {
	var m Message
	err := s.db.WithContext(ctx).Where("session_id = ? AND turn = ? AND role = ? AND tool_calls = ''", sessionID, turn, string(memory.RoleAssistant)).
		Order("seq DESC").Take(&m).Error
	if err != nil {
		return nil, fmt.Errorf("models: answer of turn %d in %s: %w", turn, sessionID, notFound(err))
	}
	return &m, nil
}

// pendingUserTx finds the last user message and returns it when no final
// assistant answer of its turn exists, in one query.
func pendingUserTx(tx *gorm.DB, sessionID string) (*Message, error) {
	var last struct {
		Message  `gorm:"embedded"`
		Answered bool
	}
	// role is a literal, not a parameter, so the planner can use the
	// partial index on user turns (messages_session_user_turn).
	err := tx.Model(&Message{}).Select("messages.*, EXISTS (SELECT 1 FROM messages a WHERE a.session_id = messages.session_id AND a.turn = messages.turn AND a.role = 'assistant' AND a.tool_calls = '') AS answered").
		Where("session_id = ? AND role = 'user'", sessionID).Order("turn DESC").Limit(1).Find(&last).Error
	if err != nil {
		return nil, err
	}
	if last.ID == "" || last.Answered {
		return nil, nil
	}
	return &last.Message, nil
}

// conflict turns a unique violation into ErrConflict: the unique indexes on
// (session, seq), (session, user turn) and (session, idempotency key) are
// the backstop behind the row lock.
func conflict(err error) error {
	if errors.Is(err, gorm.ErrDuplicatedKey) {
		return ErrConflict
	}
	return err
}

// ChatSessionByID looks up a chat session.
func (s *Store) ChatSessionByID(ctx context.Context, id string) (*ChatSession, error) {
	var cs ChatSession
	if err := s.db.WithContext(ctx).Where("id = ?", id).Take(&cs).Error; err != nil {
		return nil, fmt.Errorf("models: chat session %s: %w", id, notFound(err))
	}
	return &cs, nil
}

// ChatSessions lists a user's sessions, newest first, at most limit.
func (s *Store) ChatSessions(ctx context.Context, userID string, limit int) ([]ChatSession, error) {
	var out []ChatSession
	if err := s.db.WithContext(ctx).Where("user_id = ?", userID).Order("created_at DESC, id").Limit(limit).Find(&out).Error; err != nil {
		return nil, fmt.Errorf("models: chat sessions: %w", err)
	}
	return out, nil
}

// AppendMessage stores a message at the end of its session's transcript,
// giving it the next sequence number (and a user message the next turn when
// it has none), and marks the session active. It refuses messages to a
// session that is no longer open. It takes no lease: the turn loop uses
// SubmitUserMessage and Notes.CommitRound; this is for imports and tests.
func (s *Store) AppendMessage(ctx context.Context, m *Message) error {
	err := s.write(ctx, func(tx *gorm.DB) error {
		cs, err := s.lockSessionTx(tx, m.SessionID, nil)
		if err != nil {
			return err
		}
		return s.appendTx(tx, cs, nil, m)
	})
	if err != nil {
		return fmt.Errorf("models: append message to %s: %w", m.SessionID, conflict(err))
	}
	return nil
}

// appendTx appends msgs, in order, to cs's transcript inside tx, which
// holds the session's row (lockSessionTx), and updates the session's row
// once: its activity, its title from a first user message, and the extra
// columns given (a lease taken, renewed or released with the write).
func (s *Store) appendTx(tx *gorm.DB, cs *lockedSession, extra map[string]any, msgs ...*Message) error {
	if cs.Status != SessionOpen {
		return ErrSessionClosed
	}
	upd := map[string]any{}
	for k, v := range extra {
		upd[k] = v
	}
	if len(msgs) > 0 {
		now := s.SharedNow() // last activity, which the idle sweep compares
		for _, m := range msgs {
			if cs.Title == "" && m.Role == string(memory.RoleUser) {
				cs.Title = titleFrom(m.Content)
				upd["title"] = cs.Title
			}
		}
		if err := s.insertMessagesTx(tx, cs, now, msgs); err != nil {
			return err
		}
		cs.LastActivityAt = now
		upd["last_activity_at"] = now
	}
	if len(upd) == 0 {
		return nil
	}
	return tx.Model(&ChatSession{}).Where("id = ?", cs.ID).Updates(upd).Error
}

// insertMessagesTx stores msgs, in order, after cs.LastSeq, created at
// now. Sequence numbers, and turn numbers of user messages, are assigned
// here from the session's stored end (lockSessionTx, or the lease holder's
// AnswerLease), never from a caller's earlier read.
func (s *Store) insertMessagesTx(tx *gorm.DB, cs *lockedSession, now time.Time, msgs []*Message) error {
	if len(msgs) == 0 {
		return nil
	}
	for _, m := range msgs {
		cs.LastSeq++
		m.ID, m.Seq, m.UserID, m.CreatedAt = s.newID(), cs.LastSeq, cs.UserID, now
		if m.Role == string(memory.RoleUser) && m.Turn == 0 {
			cs.LastTurn++
			m.Turn = cs.LastTurn
		}
	}
	return tx.Create(msgs).Error
}

// titleFrom makes a short session title from the first message.
func titleFrom(content string) string {
	r := []rune(content)
	if len(r) > 60 {
		return string(r[:57]) + "…"
	}
	return string(r)
}

// Messages returns a session's transcript in order.
func (s *Store) Messages(ctx context.Context, sessionID string) ([]Message, error) {
	var out []Message
	if err := s.db.WithContext(ctx).Where("session_id = ?", sessionID).Order("seq").Find(&out).Error; err != nil {
		return nil, fmt.Errorf("models: messages: %w", err)
	}
	return out, nil
}

// Domain converts a stored message to the form the model is given.
func (m *Message) Domain() memory.Message {
	out := memory.Message{Role: memory.Role(m.Role), Content: m.Content, ToolCallID: m.ToolCallID, Turn: m.Turn}
	if m.ToolCalls != "" {
		_ = json.Unmarshal([]byte(m.ToolCalls), &out.ToolCalls)
	}
	return out
}

// EncodeToolCalls is how tool calls are stored on a message.
func EncodeToolCalls(calls []memory.ToolCall) string {
	if len(calls) == 0 {
		return ""
	}
	b, _ := json.Marshal(calls)
	return string(b)
}

// SaveSnapshot records exactly what the model was sent on one round of a turn.
func (s *Store) SaveSnapshot(ctx context.Context, snap *TurnSnapshot) error {
	if err := s.write(ctx, func(tx *gorm.DB) error { return s.saveSnapshotTx(tx, snap) }); err != nil {
		return fmt.Errorf("models: save snapshot: %w", err)
	}
	s.savedSnapshot(snap)
	return nil
}

// Snapshots returns a session's request snapshots by turn and round.
func (s *Store) Snapshots(ctx context.Context, sessionID string) ([]TurnSnapshot, error) {
	var out []TurnSnapshot
	if err := s.db.WithContext(ctx).Where("session_id = ?", sessionID).Order("turn, round").Find(&out).Error; err != nil {
		return nil, fmt.Errorf("models: snapshots: %w", err)
	}
	return out, s.wholeInstructions(ctx, out)
}

// RecordBlockedWrite counts a refused memory write by category only, and
// in the same transaction puts it in the review queue with the message
// (and so the turn) it answered — never the refused text: the reviewer
// reads the traveler's own words in the transcript.
func (s *Store) RecordBlockedWrite(ctx context.Context, userID, sessionID, messageID, category string) error {
	bw := &BlockedWrite{ID: s.newID(), UserID: userID, SessionID: sessionID, Category: category, CreatedAt: s.now()}
	err := s.write(ctx, func(tx *gorm.DB) error {
		if err := tx.Create(bw).Error; err != nil {
			return err
		}
		return s.addReviewTx(tx, ReviewItem{UserID: userID, Kind: ReviewRefusedWrite, SessionID: sessionID, MessageID: messageID, Category: category})
	})
	if err != nil {
		return fmt.Errorf("models: record blocked write: %w", err)
	}
	return nil
}

// IdleSessions lists open sessions whose last activity is before cutoff.
func (s *Store) IdleSessions(ctx context.Context, cutoff time.Time, limit int) ([]ChatSession, error) {
	var out []ChatSession
	err := s.db.WithContext(ctx).Where("status = ? AND last_activity_at < ?", SessionOpen, cutoff).
		Order("last_activity_at").Limit(limit).Find(&out).Error
	if err != nil {
		return nil, fmt.Errorf("models: idle sessions: %w", err)
	}
	return out, nil
}

// DeleteExpiredTranscripts removes messages and prompt snapshots created
// before cutoff in sessions that are no longer open (closed, or stuck
// closing behind a failed job), and reports how many rows went.
func (s *Store) DeleteExpiredTranscripts(ctx context.Context, cutoff time.Time) (int64, error) {
	var total int64
	err := s.write(ctx, func(tx *gorm.DB) error {
		closed := tx.Model(&ChatSession{}).Select("id").Where("status IN ?", []string{SessionClosed, SessionClosing})
		r := tx.Where("created_at < ? AND session_id IN (?)", cutoff, closed).Delete(&Message{})
		if r.Error != nil {
			return r.Error
		}
		total += r.RowsAffected
		r = tx.Where("created_at < ? AND session_id IN (?)", cutoff, closed).Delete(&TurnSnapshot{})
		total += r.RowsAffected
		if r.Error != nil {
			return r.Error
		}
		// A session's title is its first message's opening words, and its
		// summary quotes the traveler: both go with the transcript.
		return tx.Model(&ChatSession{}).Where("status IN ? AND created_at < ? AND (title <> '' OR summary <> '')", []string{SessionClosed, SessionClosing}, cutoff).
			Updates(map[string]any{"title": "", "summary": "", "summary_through": 0, "summary_tokens": 0}).Error
	})
	if err != nil {
		return 0, fmt.Errorf("models: delete expired transcripts: %w", err)
	}
	if total > 0 {
		s.checkpoint(ctx)
	}
	return total, nil
}
