package models

import (
	"context"
	"fmt"
	"strings"
	"unicode/utf8"

	"gorm.io/gorm"

	"concierge/memory"
	"concierge/memory/consolidate"
	"concierge/memory/guard"
)

// Notes is the one way a traveler's notes are written. Every write — the
// assistant's save_memory_note calls (through a round's commit), staff and
// the traveler from pages and the API, Undo, deleting, consolidation and
// the demo seed — is a method here that takes who writes (an Actor) and why
// (a reason), and runs, inside the store's one write transaction:
//
//  1. the memory version bump, which takes the traveler's row first (so
//     two writes to one traveler's notes are serialised on PostgreSQL too);
//  2. the rules of that write: the guard (memory.CheckNote) on the text,
//     the caps counted in that same transaction, editability;
//  3. the write, its history entry and its audit event.
//
// Anything slow, such as the guard's optional model review, runs before
// the transaction (Draft, then the caller's review, then the write), never
// inside it. The store has no exported note write of its own.
//
// A new kind of note write (forgetting on request, expiry, trips, review
// items created with a note) is a new method here whose body runs in
// n.write, so it gets the version bump, the guard and the audit like the
// others.
type Notes struct {
	s   *Store
	lim memory.Limits
}

// Notes returns the note service of the store with the caps lim puts on
// the assistant's and the traveler's notes (zero fields: memory's
// defaults). Staff, consolidation and the system are not capped:
// consolidation prunes every traveler back down to the cap.
func (s *Store) Notes(lim memory.Limits) *Notes {
	return &Notes{s: s, lim: lim}
}

// Limits are the caps the service applies.
func (n *Notes) Limits() memory.Limits { return n.lim }

// write runs fn in one write transaction that first bumps the user's
// memory version (taking their row).
func (n *Notes) write(ctx context.Context, userID string, fn func(tx *gorm.DB) error) error {
	return n.s.write(ctx, func(tx *gorm.DB) error {
		if err := n.s.bumpMemoryVersionTx(tx, userID); err != nil {
			return err
		}
		return fn(tx)
	})
}

// check is the guard of every note write: memory.CheckNote on the note's
// text, keywords and scope, with the caps of the actor's kind given the
// notes the session and the user hold. It returns the note normalised.
// A traveler may leave keywords out: they are suggested from the text,
// else keep is used (an edit keeps the note's old keywords).
func (n *Notes) check(p PendingNote, keep []string, sessionCount, globalCount int) (PendingNote, *memory.NoteRefusal) {
	own := p.Actor.Kind == ActorTraveler
	kw := p.Note.Keywords
	if own && len(kw) == 0 {
		kw = memory.SuggestKeywords(p.Note.Text)
	}
	if len(kw) == 0 {
		kw = keep
	}
	scope := p.Note.Scope
	if scope == "" {
		scope = memory.ScopeDurable
	}
	switch p.Actor.Kind {
	case ActorAssistant:
	case ActorTraveler:
		sessionCount = 0
	default:
		sessionCount, globalCount = 0, 0
	}
	args, refusal := memory.CheckNoteIn(memory.NoteContext{Previous: p.Earlier, Reviewed: p.Reviewed}, memory.SaveNoteArgs{Text: p.Note.Text, Keywords: kw, Scope: scope}, sessionCount, globalCount, n.lim)
	if refusal != nil {
		return p, &memory.NoteRefusal{Refusal: refusal, Own: own, Chars: utf8.RuneCountInString(strings.TrimSpace(p.Note.Text))}
	}
	p.Note.Text, p.Note.Keywords, p.Note.Scope = args.Text, args.Keywords, args.Scope
	return p, nil
}

// refused is the error of a write the guard refused.
func refused(r *memory.NoteRefusal) error {
	return &memory.Error{Code: memory.ENOTEREFUSED, Message: r.Message, Note: r}
}

// countTx counts, inside a write, the user's active global notes and the
// session's active notes.
func (n *Notes) countTx(tx *gorm.DB, userID, sessionID string) (global, session int, err error) {
	var g, sn int64
	if err = tx.Model(&Note{}).Where("user_id = ? AND kind = ? AND status = ?", userID, KindGlobal, StatusActive).Count(&g).Error; err != nil {
		return 0, 0, err
	}
	if sessionID != "" {
		// A this_trip note the session moved into its trip still counts.
		if err = tx.Model(&Note{}).Where("session_id = ? AND kind IN ? AND status = ?", sessionID, []string{KindSession, KindTrip}, StatusActive).Count(&sn).Error; err != nil {
			return 0, 0, err
		}
	}
	return int(g), int(sn), nil
}

// Draft checks a note the assistant proposes, with the caps counted from
// the notes its round read (sessionCount includes those the round saves
// before it), and gives it its id and defaults, so that the tool result
// naming it can be written in the same transaction that stores it. A note
// Draft passed is checked again, with fresh counts, inside that
// transaction (Round.Notes). It writes nothing.
func (n *Notes) Draft(p PendingNote, sessionCount, globalCount int) (PendingNote, *memory.Refusal) {
	checked, r := n.check(p, nil, sessionCount, globalCount)
	if r != nil {
		return p, r.Refusal
	}
	checked.NewNote = n.s.draftNote(checked.NewNote)
	return checked, nil
}

// Add stores a note, its first history entry and an audit event, after
// the guard and the caps pass, in one transaction. A session note joins
// only a session that is still open.
func (n *Notes) Add(ctx context.Context, nn NewNote, actor Actor, reason string) (*Note, error) {
	var out *Note
	err := n.write(ctx, nn.UserID, func(tx *gorm.DB) error {
		if nn.Kind == KindSession && nn.Prov.SessionID != "" {
			// A session note joins a session that still takes notes: once
			// it is closing, its consolidation may already have run, and a
			// note saved now would never be promoted nor dropped.
			cs, err := n.s.lockSessionTx(tx, nn.Prov.SessionID, nil)
			if err != nil {
				return err
			}
			if cs.Status != SessionOpen {
				return ErrSessionClosed
			}
		}
		var err error
		out, err = n.addTx(tx, PendingNote{NewNote: nn, Actor: actor, Reason: reason})
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("models: create note: %w", err)
	}
	return out, nil
}

// addTx checks one note against the notes stored now and creates it,
// inside a write that has bumped the user's memory version.
func (n *Notes) addTx(tx *gorm.DB, p PendingNote) (*Note, error) {
	global, session, err := n.countTx(tx, p.UserID, p.Prov.SessionID)
	if err != nil {
		return nil, err
	}
	if p.Kind != KindSession {
		session = 0
	}
	// The end date is checked against the day the note is dated (the
	// writer's today: the agent's clock for the assistant's notes).
	today := p.Note.LastUpdateDate
	if today == "" {
		today = n.s.now().Format(memory.DateLayout)
	}
	if err := memory.CheckExpiry(p.Note.ExpiresOn, today); err != nil {
		return nil, err
	}
	checked, r := n.check(p, nil, session, global)
	if r != nil {
		return nil, refused(r)
	}
	if checked.Kind == KindSession && checked.Note.Scope == memory.ScopeThisTrip && checked.Prov.SessionID != "" {
		// A conversation's this_trip note belongs to its trip, when the
		// conversation has one that has not ended.
		var trip Trip
		err := tx.Where("id = (SELECT trip_id FROM chat_sessions WHERE id = ?) AND notes_ended_at IS NULL AND status IN ?",
			checked.Prov.SessionID, []string{string(memory.TripPlanning), string(memory.TripBooked)}).Limit(1).Find(&trip).Error
		if err != nil {
			return nil, err
		}
		if trip.ID != "" {
			checked.Kind, checked.TripID = KindTrip, trip.ID
		}
	}
	out, err := n.s.createNoteTx(tx, checked.NewNote, p.Actor, p.Reason)
	if err != nil {
		return nil, err
	}
	return out, n.s.suggestProfileTx(tx, out, p.Prov)
}

// addPendingTx creates a round's notes, all of one user, each checked
// against what is stored at that moment (the round's own notes included).
func (n *Notes) addPendingTx(tx *gorm.DB, userID string, notes []PendingNote) error {
	if len(notes) == 0 {
		return nil
	}
	if err := n.s.bumpMemoryVersionTx(tx, userID); err != nil {
		return err
	}
	for _, pn := range notes {
		if pn.UserID != userID {
			return fmt.Errorf("models: a pending note of user %s in a write of user %s", pn.UserID, userID)
		}
		if _, err := n.addTx(tx, pn); err != nil {
			return err
		}
	}
	return nil
}

// CommitRound stores one model round of a turn under the answer lease l,
// in one transaction: its snapshot, its messages and the notes its tool
// calls saved (r.Notes, each drafted by Draft), which are checked again
// here against the notes stored at that moment. A note refused here fails
// the whole round (nothing is written), so a tool result never reports a
// note that was not stored. See Store.commitRound for the lease's part.
func (n *Notes) CommitRound(ctx context.Context, l *AnswerLease, r Round) error {
	return n.s.commitRound(ctx, l, r, n)
}

// ErrNotEditable refuses a change to a note that is not an active
// long-term one: session notes are the assistant's staging area, and
// superseded or consumed notes are history.
var ErrNotEditable = &memory.Error{Code: memory.ENOTEDITABLE,
	Message: "Only active long-term and trip notes can be edited; delete this one instead."}

// ErrNothingToChange refuses an edit that changes nothing.
var ErrNothingToChange = &memory.Error{Code: memory.ENOTHING, Message: "Change the text, the keywords, the pin or the end date."}

// ErrCannotPin refuses a traveler's pin.
var ErrCannotPin = &memory.Error{Code: memory.ECANNOTPIN,
	Message: "Travelers cannot pin notes; support pins safety needs such as allergies."}

// Edit changes an active long-term note — its text, keywords, pin or end
// date as p says (an end date from today up to two years ahead; "" clears
// it) — after the guard passes the text and keywords it will have, and
// records a new history entry and an audit event with the content before
// and after, in one transaction. Travelers cannot pin; a traveler's edit
// without keywords gets them suggested from the text, or keeps the old.
func (n *Notes) Edit(ctx context.Context, userID, id string, p NotePatch, actor Actor, reason string) (*Note, error) {
	var out *Note
	err := n.write(ctx, userID, func(tx *gorm.DB) error {
		var err error
		out, err = n.editTx(tx, userID, id, p, actor, reason)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("models: update note %s: %w", id, err)
	}
	return out, nil
}

// editTx is Edit inside a write that has bumped the user's memory version
// (a review item's resolution edits a note in its own transaction).
func (n *Notes) editTx(tx *gorm.DB, userID, id string, p NotePatch, actor Actor, reason string) (*Note, error) {
	if actor.Kind == ActorTraveler && p.Pinned != nil {
		return nil, ErrCannotPin
	}
	var cur Note
	if err := tx.Where("id = ? AND user_id = ?", id, userID).Take(&cur).Error; err != nil {
		return nil, notFound(err)
	}
	// A trip's notes are corrected as long-term ones are (staff on the
	// customer page, the API): the same guard, history and audit.
	if cur.Kind != KindGlobal && cur.Kind != KindTrip || cur.Status != StatusActive {
		return nil, ErrNotEditable
	}
	if p.Text == nil && p.Keywords == nil && p.Pinned == nil && p.ExpiresOn == nil {
		return nil, ErrNothingToChange
	}
	if p.ExpiresOn != nil && *p.ExpiresOn != cur.ExpiresOn {
		if err := memory.CheckExpiry(*p.ExpiresOn, n.s.now().Format(memory.DateLayout)); err != nil {
			return nil, err
		}
	}
	if p.Text != nil || p.Keywords != nil {
		d := cur.Domain()
		next := PendingNote{NewNote: NewNote{UserID: userID, Kind: cur.Kind, Note: d}, Actor: actor, Reason: reason}
		if p.Text != nil {
			next.Note.Text = *p.Text
		}
		var keep []string
		switch {
		case actor.Kind == ActorTraveler:
			next.Note.Keywords, keep = p.Keywords, d.Keywords
		case p.Keywords != nil:
			next.Note.Keywords = p.Keywords
		}
		checked, r := n.check(next, keep, 0, 0)
		if r != nil {
			return nil, refused(r)
		}
		if p.Text != nil {
			p.Text = &checked.Note.Text
		}
		if p.Keywords != nil || actor.Kind == ActorTraveler {
			p.Keywords = checked.Note.Keywords
		}
	}
	out, err := n.s.updateNoteTx(tx, &cur, p, actor, reason)
	if err != nil || p.Text == nil || cur.Kind != KindGlobal {
		return out, err // a wish for one trip never suggests a profile change
	}
	return out, n.s.suggestProfileTx(tx, out, Provenance{})
}

// Delete hard-deletes a note: the row and its history go, and so do the
// session notes that were merged into it (the same fact in other words);
// their text is scrubbed from audit payloads, consolidation reports and
// the chat's copies, and an audit event without content records who
// deleted it and why.
func (n *Notes) Delete(ctx context.Context, userID, id string, actor Actor, reason string) error {
	err := n.write(ctx, userID, func(tx *gorm.DB) error {
		return n.s.deleteNoteTx(tx, userID, id, actor, reason)
	})
	if err != nil {
		return fmt.Errorf("models: delete note %s: %w", id, err)
	}
	n.s.checkpoint(ctx)
	return nil
}

// ErrUndoClosed refuses Undo once the conversation has ended: its notes
// may be consolidated already.
var ErrUndoClosed = &memory.Error{Code: memory.ESESSIONCLOSED,
	Message: "This conversation has ended: manage what Concierge remembers on the memory page."}

// Undo deletes a note the assistant saved in one of the traveler's open
// conversations, as Delete does; a note of another conversation is not
// found, and a conversation that ended refuses (ErrUndoClosed).
func (n *Notes) Undo(ctx context.Context, userID, sessionID, id string, actor Actor) (*Note, error) {
	var cur Note
	err := n.write(ctx, userID, func(tx *gorm.DB) error {
		if err := tx.Where("id = ? AND user_id = ?", id, userID).Take(&cur).Error; err != nil {
			return notFound(err)
		}
		if cur.SessionID != sessionID {
			return ErrNotFound
		}
		cs, err := n.s.lockSessionTx(tx, sessionID, nil)
		if err != nil {
			return err
		}
		if cs.Status != SessionOpen {
			return ErrUndoClosed
		}
		return n.s.deleteNoteTx(tx, userID, id, actor, "undone by the traveler")
	})
	if err != nil {
		return nil, fmt.Errorf("models: undo note %s: %w", id, err)
	}
	n.s.checkpoint(ctx)
	return &cur, nil
}

// DeleteGlobal hard-deletes every global note of a user, superseded ones
// included, each as Delete does. It returns how many went.
func (n *Notes) DeleteGlobal(ctx context.Context, userID string, actor Actor, reason string) (int, error) {
	var ids []string
	if err := n.s.db.WithContext(ctx).Model(&Note{}).Where("user_id = ? AND kind = ?", userID, KindGlobal).
		Order("created_at, id").Pluck("id", &ids).Error; err != nil {
		return 0, fmt.Errorf("models: delete global notes: %w", err)
	}
	for i, id := range ids {
		if err := n.Delete(ctx, userID, id, actor, reason); err != nil {
			return i, err
		}
	}
	return len(ids), nil
}

// ApplyConsolidation writes a consolidation result (see
// Store.applyConsolidation): the consolidation's note writes, with every
// text it writes screened again inside the transaction.
func (n *Notes) ApplyConsolidation(ctx context.Context, job *ConsolidationJob, worker string, res consolidate.Result, version int64) (*ConsolidationReport, error) {
	return n.s.applyConsolidation(ctx, job, worker, res, version)
}

// ApplyConsolidationLocked is ApplyConsolidation's last resort (see
// Store.applyConsolidationLocked).
func (n *Notes) ApplyConsolidationLocked(ctx context.Context, job *ConsolidationJob, worker string,
	compute func(global, session []memory.Note) consolidate.Result) (*ConsolidationReport, consolidate.Result, error) {
	return n.s.applyConsolidationLocked(ctx, job, worker, compute)
}

// screenConsolidated is the guard on a text consolidation writes into a
// note (a merge's rephrasing): its content half, guard.ScreenText, as
// memory's validation ran it before; the rest of CheckNote (length,
// sentences, keywords) is that validation's.
func screenConsolidated(text string) error {
	if cat, blocked := guard.ScreenText(text); blocked {
		return refused(&memory.NoteRefusal{Refusal: &memory.Refusal{Category: cat, Message: "Not saved: consolidation wrote a text the guard refuses."}})
	}
	return nil
}
