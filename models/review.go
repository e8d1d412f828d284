package models

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"gorm.io/gorm"

	"concierge/memory"
)

// Review item kinds (SPEC §2.6). A note expiring within a week is not
// among them yet: notes carry expires_on now, and the worker deletes them
// when it passes, but no sweep raises an item ahead of it.
const (
	ReviewSafetyPin     = "safety_pin"             // consolidation pinned a note by itself
	ReviewProfileUpdate = "profile_update"         // a durable note contradicts a profile field
	ReviewRefusedWrite  = "refused_write"          // the guard refused the assistant's note
	ReviewFallback      = "consolidation_fallback" // model decisions failed validation
)

// ReviewKinds lists the kinds, in the order the queue names them.
var ReviewKinds = []string{ReviewSafetyPin, ReviewProfileUpdate, ReviewRefusedWrite, ReviewFallback}

// Review item statuses: an item is open until a person resolves it, then
// kept for the audit until the traveler is erased.
const (
	ReviewOpen     = "open"
	ReviewResolved = "resolved"
)

// ReviewActions are the resolutions each kind takes.
var ReviewActions = map[string][]string{
	ReviewSafetyPin:     {"confirm", "edit", "unpin"},
	ReviewProfileUpdate: {"apply", "dismiss"},
	ReviewRefusedWrite:  {"add", "dismiss"},
	ReviewFallback:      {"accept", "correct"},
}

// ReviewClaimFor is how long a claim holds before it lapses.
const ReviewClaimFor = 15 * time.Minute

// ReviewItem is one thing in the review queue. It points at what it is
// about by id — the note, the consolidation run, the refused category —
// and never copies a note's or a message's text.
type ReviewItem struct {
	ID              string `gorm:"primaryKey"`
	UserID          string
	Kind            string
	Status          string
	SessionID       string
	Turn            int
	MessageID       string
	NoteID          string
	ConsolidationID string
	Category        string // a refused write's guard category
	Field           string // a profile update's field, current and proposed value
	CurrentValue    string
	ProposedValue   string
	CreatedAt       time.Time
	ClaimedBy       string
	ClaimedUntil    *time.Time
	ResolvedBy      string
	ResolvedAt      *time.Time
	Action          string
	Reason          string
}

// ClaimedAt reports who holds a live claim on the item at now ("" when
// none, or when it lapsed).
func (it *ReviewItem) ClaimedAt(now time.Time) string {
	if it.ClaimedBy == "" || it.ClaimedUntil == nil || !it.ClaimedUntil.After(now) {
		return ""
	}
	return it.ClaimedBy
}

// addReviewTx creates an open item inside the write that caused it.
func (s *Store) addReviewTx(tx *gorm.DB, it ReviewItem) error {
	it.ID, it.Status, it.CreatedAt = s.newID(), ReviewOpen, s.now()
	if it.Turn == 0 {
		turn, err := turnOfTx(tx, it.MessageID)
		if err != nil {
			return err
		}
		it.Turn = turn
	}
	return tx.Create(&it).Error
}

// openReviewTx reports whether an open item of kind already stands for the
// note (and field): a note saved twice is reviewed once.
func openReviewTx(tx *gorm.DB, kind, noteID, field string) (bool, error) {
	var n int64
	err := tx.Model(&ReviewItem{}).Where("kind = ? AND note_id = ? AND field = ? AND status = ?", kind, noteID, field, ReviewOpen).Count(&n).Error
	return n > 0, err
}

// suggestProfileTx creates a profile update item for each profile field a
// durable global note contradicts (memory.ProfileConflicts), in the write
// that stores, promotes or rewrites the note.
func (s *Store) suggestProfileTx(tx *gorm.DB, n *Note, prov Provenance) error {
	if n.Kind != KindGlobal || n.Status != StatusActive {
		return nil
	}
	p, err := profileTx(tx, n.UserID)
	if err != nil {
		return err
	}
	for _, sg := range memory.ProfileConflicts(p, n.Domain()) {
		dup, err := openReviewTx(tx, ReviewProfileUpdate, n.ID, sg.Field)
		if err != nil || dup {
			return err
		}
		if err := s.addReviewTx(tx, ReviewItem{UserID: n.UserID, Kind: ReviewProfileUpdate, NoteID: n.ID,
			SessionID: prov.SessionID, MessageID: prov.MessageID, ConsolidationID: prov.ConsolidationID,
			Field: sg.Field, CurrentValue: sg.Current, ProposedValue: sg.Proposed}); err != nil {
			return err
		}
	}
	return nil
}

// turnOfTx is the turn of a stored message ("" id: 0).
func turnOfTx(tx *gorm.DB, messageID string) (int, error) {
	if messageID == "" {
		return 0, nil
	}
	var turns []int
	if err := tx.Model(&Message{}).Where("id = ?", messageID).Limit(1).Pluck("turn", &turns).Error; err != nil || len(turns) == 0 {
		return 0, err
	}
	return turns[0], nil
}

// ReviewFilter selects queue items; zero fields select everything.
type ReviewFilter struct {
	ItemID string // one item
	Kind   string
	UserID string
	Status string // ReviewOpen, ReviewResolved or "" for both
	// Role keeps the items of accounts with this role (support sees
	// travelers only); "" keeps every account's.
	Role Role
	// Before keeps items created before it (the page's age filter).
	Before time.Time
	// Customer keeps the items of accounts whose name or e-mail holds it.
	Customer string
	Limit    int
}

// ReviewRow is an item with the names the queue shows beside it.
type ReviewRow struct {
	ReviewItem
	UserName string
}

func (f ReviewFilter) apply(q *gorm.DB) *gorm.DB {
	q = q.Joins("JOIN users ON users.id = review_items.user_id")
	if f.ItemID != "" {
		q = q.Where("review_items.id = ?", f.ItemID)
	}
	if f.Kind != "" {
		q = q.Where("review_items.kind = ?", f.Kind)
	}
	if f.UserID != "" {
		q = q.Where("review_items.user_id = ?", f.UserID)
	}
	if f.Status != "" {
		q = q.Where("review_items.status = ?", f.Status)
	}
	if f.Role != "" {
		q = q.Where("users.role = ?", f.Role)
	}
	if !f.Before.IsZero() {
		q = q.Where("review_items.created_at < ?", f.Before)
	}
	if c := strings.ToLower(strings.TrimSpace(f.Customer)); c != "" {
		like := "%" + strings.NewReplacer("%", "", "_", "").Replace(c) + "%"
		q = q.Where("(LOWER(users.name) LIKE ? OR LOWER(users.email) LIKE ?)", like, like)
	}
	return q
}

// ReviewItems lists the items f selects, oldest first.
func (s *Store) ReviewItems(ctx context.Context, f ReviewFilter) ([]ReviewRow, error) {
	limit := f.Limit
	if limit <= 0 || limit > 500 {
		limit = 500
	}
	var out []ReviewRow
	q := f.apply(s.db.WithContext(ctx).Model(&ReviewItem{})).
		Select("review_items.*, users.name AS user_name").
		Order("review_items.created_at, review_items.id").Limit(limit)
	if err := q.Find(&out).Error; err != nil {
		return nil, fmt.Errorf("models: review items: %w", err)
	}
	return out, nil
}

// ReviewCounts counts the items f selects by kind (f.Kind ignored).
func (s *Store) ReviewCounts(ctx context.Context, f ReviewFilter) (map[string]int, error) {
	f.Kind = ""
	var rows []struct {
		Kind string
		N    int
	}
	q := f.apply(s.db.WithContext(ctx).Model(&ReviewItem{})).Select("review_items.kind AS kind, COUNT(*) AS n").Group("review_items.kind")
	if err := q.Find(&rows).Error; err != nil {
		return nil, fmt.Errorf("models: review counts: %w", err)
	}
	out := map[string]int{}
	for _, r := range rows {
		out[r.Kind] = r.N
	}
	return out, nil
}

// ReviewItemByID returns one item.
func (s *Store) ReviewItemByID(ctx context.Context, id string) (*ReviewItem, error) {
	var it ReviewItem
	if err := s.db.WithContext(ctx).Where("id = ?", id).Take(&it).Error; err != nil {
		return nil, fmt.Errorf("models: review item: %w", notFound(err))
	}
	return &it, nil
}

// ErrReviewResolved refuses a claim or resolution of an item someone has
// resolved already.
var ErrReviewResolved = &memory.Error{Code: memory.ECONFLICT,
	Message: "Someone else resolved this item a moment ago; reload the queue to see what they did."}

// ErrReviewClaimed refuses an item another reviewer holds.
var ErrReviewClaimed = &memory.Error{Code: memory.ECONFLICT,
	Message: "Another reviewer holds this item; it is free again when their claim lapses."}

// takeItem applies updates to the open item id where actor may act on it
// (no one else holds a live claim) as one conditional UPDATE, so of two
// reviewers at once only one succeeds, and reads the item into it. A
// refusal says why: resolved already, or held by someone else.
func takeItem(tx *gorm.DB, it *ReviewItem, id string, actor Actor, now time.Time, updates map[string]any) error {
	r := tx.Model(&ReviewItem{}).Where(claimable, id, ReviewOpen, actor.ID, now).Updates(updates)
	if r.Error != nil {
		return r.Error
	}
	if err := tx.Where("id = ?", id).Take(it).Error; err != nil {
		return notFound(err)
	}
	if r.RowsAffected == 0 {
		return refusalOf(it)
	}
	return nil
}

// Claim gives actor the item until for elapses, unless another reviewer
// holds a live claim or it is resolved. The claim is a conditional UPDATE,
// so two reviewers claiming at once cannot both hold it.
func (s *Store) Claim(ctx context.Context, id string, actor Actor, d time.Duration) (*ReviewItem, error) {
	var it ReviewItem
	err := s.write(ctx, func(tx *gorm.DB) error {
		now := s.now()
		return takeItem(tx, &it, id, actor, now, map[string]any{"claimed_by": actor.ID, "claimed_until": now.Add(d)})
	})
	if err != nil {
		return nil, fmt.Errorf("models: claim review item %s: %w", id, err)
	}
	return &it, nil
}

// claimable is the condition under which a reviewer may claim or resolve
// an item: it is open and nobody else holds a live claim.
const claimable = "id = ? AND status = ? AND (claimed_by = '' OR claimed_by = ? OR claimed_until IS NULL OR claimed_until <= ?)"

// refusalOf is why an item that a conditional update did not match was
// refused.
func refusalOf(it *ReviewItem) error {
	if it.Status == ReviewResolved {
		return ErrReviewResolved
	}
	return ErrReviewClaimed
}

// Resolution is how a reviewer resolves an item: one of its kind's
// ReviewActions, the reason, and for edit, add and correct the note's new
// text (correct also names the note it corrects).
type Resolution struct {
	Action   string
	Reason   string
	Text     string
	Keywords []string
	NoteID   string
}

// Refusals of a resolution: an action the item's kind does not take (the
// kinds' actions are ReviewActions), no text for an action that writes a
// note, no note named for a correction. A missing reason is ErrNoReason.
var (
	ErrReviewAction = &memory.Error{Code: memory.EINVALID, Message: "Choose one of the actions this item offers."}
	ErrReviewNoText = &memory.Error{Code: memory.EINVALID, Message: "Write the note's text in your own words."}
	ErrReviewNoNote = &memory.Error{Code: memory.EINVALID, Message: "Name the note the correction is for."}
)

// Resolve resolves an item with res, in one transaction with what the
// action writes: the resolution is a conditional UPDATE on an open item
// nobody else holds, so of two reviewers resolving one item at once
// exactly one succeeds and the other gets ErrReviewResolved; an action
// the guard refuses leaves the item open. The resolution is audited with
// the reviewer's reason.
func (n *Notes) Resolve(ctx context.Context, id string, res Resolution, actor Actor) (*ReviewItem, error) {
	first, err := n.s.ReviewItemByID(ctx, id)
	if err != nil {
		return nil, err
	}
	res.Action, res.Reason, res.Text = strings.TrimSpace(res.Action), strings.TrimSpace(res.Reason), strings.TrimSpace(res.Text)
	switch {
	case !slices.Contains(ReviewActions[first.Kind], res.Action):
		return nil, ErrReviewAction
	case res.Reason == "":
		return nil, ErrNoReason
	case res.Text == "" && slices.Contains([]string{"edit", "add", "correct"}, res.Action):
		return nil, ErrReviewNoText
	}
	var it ReviewItem
	err = n.write(ctx, first.UserID, func(tx *gorm.DB) error {
		now := n.s.now()
		if err := takeItem(tx, &it, id, actor, now, map[string]any{"status": ReviewResolved, "resolved_by": actor.ID, "resolved_at": now,
			"action": res.Action, "reason": res.Reason, "claimed_by": "", "claimed_until": nil}); err != nil {
			return err
		}
		noteID, err := n.resolveTx(tx, &it, res, actor)
		if err != nil {
			return err
		}
		if noteID != "" && noteID != it.NoteID {
			if err := tx.Model(&ReviewItem{}).Where("id = ?", id).Update("note_id", noteID).Error; err != nil {
				return err
			}
			it.NoteID = noteID
		}
		after, _ := json.Marshal(map[string]string{"item": it.ID, "kind": it.Kind, "action": res.Action})
		return n.s.auditTx(tx, AuditEvent{UserID: it.UserID, ActorID: actor.ID, ActorKind: actor.Kind, Action: "review." + res.Action,
			NoteID: it.NoteID, Reason: res.Reason, After: string(after), SessionID: it.SessionID, ConsolidationID: it.ConsolidationID})
	})
	if err != nil {
		return nil, fmt.Errorf("models: resolve review item %s: %w", id, err)
	}
	return &it, nil
}

// resolveTx carries out a resolution's action through the note service's
// own writes (the guard included). It returns the note the action wrote.
func (n *Notes) resolveTx(tx *gorm.DB, it *ReviewItem, res Resolution, actor Actor) (string, error) {
	switch res.Action {
	case "confirm", "dismiss", "accept":
		return it.NoteID, nil
	case "edit":
		out, err := n.editTx(tx, it.UserID, it.NoteID, NotePatch{Text: &res.Text, Keywords: res.Keywords}, actor, res.Reason)
		if err != nil {
			return "", err
		}
		return out.ID, nil
	case "unpin":
		off := false
		_, err := n.editTx(tx, it.UserID, it.NoteID, NotePatch{Pinned: &off}, actor, res.Reason)
		return it.NoteID, err
	case "correct":
		if res.NoteID == "" {
			return "", ErrReviewNoNote
		}
		out, err := n.editTx(tx, it.UserID, res.NoteID, NotePatch{Text: &res.Text, Keywords: res.Keywords}, actor, res.Reason)
		if err != nil {
			return "", err
		}
		return out.ID, nil
	case "add":
		kw := res.Keywords
		if len(kw) == 0 {
			kw = memory.SuggestKeywords(res.Text)
		}
		out, err := n.addTx(tx, PendingNote{NewNote: NewNote{UserID: it.UserID, Kind: KindGlobal,
			Note: memory.Note{Text: res.Text, Keywords: kw, Scope: memory.ScopeDurable, Source: memory.SourceStaff,
				LastUpdateDate: n.s.now().Format(memory.DateLayout)},
			Prov: Provenance{SessionID: it.SessionID, MessageID: it.MessageID}}, Actor: actor, Reason: res.Reason})
		if err != nil {
			return "", err
		}
		return out.ID, nil
	case "apply":
		return it.NoteID, n.applyProfileTx(tx, it, actor, res.Reason)
	}
	return "", ErrReviewAction
}

// applyProfileTx sets the suggested profile field and retires the note
// that suggested it as superseded by the profile, so the next
// conversation's instructions carry the field and not the note.
func (n *Notes) applyProfileTx(tx *gorm.DB, it *ReviewItem, actor Actor, reason string) error {
	p, err := profileTx(tx, it.UserID)
	if err != nil {
		return err
	}
	data, err := json.Marshal(memory.ApplySuggestion(p, memory.ProfileSuggestion{Field: it.Field, Proposed: it.ProposedValue}))
	if err != nil {
		return err
	}
	if err := n.s.setProfileTx(tx, it.UserID, data, actor, reason); err != nil {
		return err
	}
	return n.s.setNoteFieldsTx(tx, it.UserID, it.NoteID, map[string]any{"status": StatusSuperseded, "superseded_by": "profile:" + it.Field},
		actor, reason, "note.supersede", Provenance{SessionID: it.SessionID})
}

// reviewConsolidatedTx creates the items a consolidation's write to one
// note calls for: a safety pin to confirm when it pinned the note, and a
// profile update when the note it promoted or rewrote contradicts the
// profile.
func (s *Store) reviewConsolidatedTx(tx *gorm.DB, job *ConsolidationJob, noteID string, fields map[string]any) error {
	var n Note
	if err := tx.Where("id = ?", noteID).Take(&n).Error; err != nil {
		return err
	}
	prov := Provenance{SessionID: job.SessionID, MessageID: n.MessageID, ConsolidationID: job.ID}
	if pinned, ok := fields["pinned"].(bool); ok && pinned {
		dup, err := openReviewTx(tx, ReviewSafetyPin, n.ID, "")
		if err != nil {
			return err
		}
		if !dup {
			if err := s.addReviewTx(tx, ReviewItem{UserID: n.UserID, Kind: ReviewSafetyPin, NoteID: n.ID,
				SessionID: prov.SessionID, MessageID: prov.MessageID, ConsolidationID: job.ID}); err != nil {
				return err
			}
		}
	}
	_, promoted := fields["kind"]
	_, rewritten := fields["text"]
	if !promoted && !rewritten {
		return nil
	}
	return s.suggestProfileTx(tx, &n, prov)
}

// ReviewDetails are what the queue shows of the items' subjects, read
// where they live (so a deleted note is simply gone from the queue too):
// the notes by id, and the fallback reasons by consolidation job id.
type ReviewDetails struct {
	Notes     map[string]Note
	Fallbacks map[string]string
}

// ReviewDetailsOf reads the details of items in two statements.
func (s *Store) ReviewDetailsOf(ctx context.Context, items []ReviewRow) (ReviewDetails, error) {
	d := ReviewDetails{Notes: map[string]Note{}, Fallbacks: map[string]string{}}
	var noteIDs, jobIDs []string
	for _, it := range items {
		if it.NoteID != "" {
			noteIDs = append(noteIDs, it.NoteID)
		}
		if it.Kind == ReviewFallback && it.ConsolidationID != "" {
			jobIDs = append(jobIDs, it.ConsolidationID)
		}
	}
	db := s.db.WithContext(ctx)
	if len(noteIDs) > 0 {
		var notes []Note
		if err := db.Where("id IN ?", noteIDs).Find(&notes).Error; err != nil {
			return d, fmt.Errorf("models: review notes: %w", err)
		}
		for _, n := range notes {
			d.Notes[n.ID] = n
		}
	}
	if len(jobIDs) > 0 {
		var reps []ConsolidationReport
		if err := db.Select("job_id", "fallback_reason").Where("job_id IN ?", jobIDs).Find(&reps).Error; err != nil {
			return d, fmt.Errorf("models: review fallbacks: %w", err)
		}
		for _, r := range reps {
			d.Fallbacks[r.JobID] = r.FallbackReason
		}
	}
	return d, nil
}
