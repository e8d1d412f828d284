package models

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"gorm.io/gorm"

	"concierge/memory"
)

// Trips is the one way a traveler's trips are written: the assistant's
// update_trip calls, the traveler's and staff's edits, the API and the
// import, and the sweep that ends trips. It belongs to the note service
// (Notes.Trips) because a trip's writes are note writes too: attaching a
// conversation moves its this_trip notes into the trip, and ending or
// deleting a trip deletes its notes as Notes.Delete does. Each method runs
// in the note service's write transaction, which takes the traveler's row
// first: two instances attaching conversations to a trip at once are
// serialised there, and the second finds the trip the first created.
type Trips struct{ n *Notes }

// Trips returns the trip service that writes through n.
func (n *Notes) Trips() *Trips { return &Trips{n: n} }

// Trip errors.
var (
	ErrTripAttached = &memory.Error{Code: memory.ECONFLICT,
		Message: "This conversation already belongs to another trip."}
	ErrTripAmbiguous = &memory.Error{Code: memory.ECONFLICT,
		Message: "More than one open trip goes there: name the trip by its handle."}
	ErrTripNotOpen = &memory.Error{Code: memory.EINVALID,
		Message: "Only a planning or booked trip can be continued."}
)

// Domain converts a stored trip to the memory domain's trip.
func (t *Trip) Domain() memory.Trip {
	ext := ""
	if t.ExternalID != nil {
		ext = *t.ExternalID
	}
	return memory.Trip{ID: t.ID, Name: t.Name, Destination: t.Destination, Route: t.Route, StartDate: t.StartDate,
		EndDate: t.EndDate, Travellers: t.Travellers, Purpose: t.Purpose, Budget: t.Budget,
		Status: memory.TripStatus(t.Status), ExternalID: ext, Flight: t.Flight, Hotel: t.Hotel}
}

func domainTrips(rows []Trip) []memory.Trip {
	out := make([]memory.Trip, len(rows))
	for i := range rows {
		out[i] = rows[i].Domain()
	}
	return out
}

// tripPayload is what the audit trail records of a trip.
func tripPayload(t *Trip) string {
	b, _ := json.Marshal(t.Domain())
	return string(b)
}

// Trips returns a user's trips, most recent start first, at most limit.
func (s *Store) Trips(ctx context.Context, userID string, limit int) ([]memory.Trip, error) {
	return s.tripsWhere(ctx, limit, "user_id = ?", userID)
}

// TravelledTrips returns a user's most recent travelled trips, the ones
// that ground recommendations.
func (s *Store) TravelledTrips(ctx context.Context, userID string, limit int) ([]memory.Trip, error) {
	return s.tripsWhere(ctx, limit, "user_id = ? AND status = ?", userID, string(memory.TripTravelled))
}

func (s *Store) tripsWhere(ctx context.Context, limit int, where string, args ...any) ([]memory.Trip, error) {
	var rows []Trip
	if err := s.db.WithContext(ctx).Where(where, args...).Order("start_date DESC, created_at DESC, id").Limit(limit).Find(&rows).Error; err != nil {
		return nil, fmt.Errorf("models: trips: %w", err)
	}
	return domainTrips(rows), nil
}

// TurnTrips returns what a turn's instructions show of a user's trips, in
// one statement instead of two: the most recent travelled ones, at most
// limit, as TravelledTrips orders them, and the open ones, as OpenTrips
// orders them.
func (s *Store) TurnTrips(ctx context.Context, userID string, limit int) (travelled, open []memory.Trip, err error) {
	var rows []Trip
	// The limit is written into the statement, not bound: SQLite runs this
	// union about four times slower with LIMIT ? in its first part
	// (BenchmarkTurnReads). It is an int, so nothing can be injected.
	q := `SELECT * FROM (SELECT * FROM trips WHERE user_id = ? AND status = ? ORDER BY start_date DESC, created_at DESC, id LIMIT ` +
		strconv.Itoa(limit) + `) travelled UNION ALL SELECT * FROM trips WHERE user_id = ? AND status IN ?`
	if err := s.db.WithContext(ctx).Raw(q, userID, string(memory.TripTravelled), userID, openStatuses).Find(&rows).Error; err != nil {
		return nil, nil, fmt.Errorf("models: trips of a turn: %w", err)
	}
	var done, ahead []Trip
	for _, t := range rows {
		if t.Status == string(memory.TripTravelled) {
			done = append(done, t)
		} else {
			ahead = append(ahead, t)
		}
	}
	// A union keeps no order of its own: each part is put back in its
	// query's order.
	slices.SortFunc(done, func(a, b Trip) int {
		return cmp.Or(strings.Compare(b.StartDate, a.StartDate), b.CreatedAt.Compare(a.CreatedAt), strings.Compare(a.ID, b.ID))
	})
	slices.SortFunc(ahead, func(a, b Trip) int {
		return cmp.Or(a.CreatedAt.Compare(b.CreatedAt), strings.Compare(a.ID, b.ID))
	})
	return domainTrips(done), domainTrips(ahead), nil
}

// OpenTrips returns a user's planning and booked trips in handle order
// (oldest first), as the instructions list them.
func (s *Store) OpenTrips(ctx context.Context, userID string) ([]memory.Trip, error) {
	rows, err := openTripsTx(s.db.WithContext(ctx), userID)
	if err != nil {
		return nil, fmt.Errorf("models: open trips: %w", err)
	}
	return domainTrips(rows), nil
}

// openStatuses are the statuses of a trip still to be taken.
var openStatuses = []string{string(memory.TripPlanning), string(memory.TripBooked)}

func openTripsTx(tx *gorm.DB, userID string) ([]Trip, error) {
	var rows []Trip
	err := tx.Where("user_id = ? AND status IN ?", userID, openStatuses).
		Order("created_at, id").Find(&rows).Error
	return rows, err
}

// TripByID returns one of a user's trips.
func (s *Store) TripByID(ctx context.Context, userID, id string) (*Trip, error) {
	var t Trip
	if err := s.db.WithContext(ctx).Where("id = ? AND user_id = ?", id, userID).Take(&t).Error; err != nil {
		return nil, fmt.Errorf("models: trip %s: %w", id, notFound(err))
	}
	return &t, nil
}

// onTrip selects the notes of one trip (its id the argument) through the
// partial index notes_trip. The index holds only rows with a trip id,
// and neither planner proves that from "trip_id = ?" with a bound value:
// without the second condition every read of a trip's notes, one per
// turn of a trip's conversation, walked the whole notes table.
const onTrip = "trip_id = ? AND trip_id <> ''"

// TripNotes returns a trip's active notes, oldest first.
func (s *Store) TripNotes(ctx context.Context, tripID string) ([]memory.Note, error) {
	var rows []Note
	if err := s.db.WithContext(ctx).Where(onTrip+" AND kind = ? AND status = ?", tripID, KindTrip, StatusActive).
		Order("created_at, id").Find(&rows).Error; err != nil {
		return nil, fmt.Errorf("models: trip notes: %w", err)
	}
	return domainNotes(rows), nil
}

// TripNoteRows returns a trip's active notes as stored, oldest first, for
// the console's note rows.
func (s *Store) TripNoteRows(ctx context.Context, tripID string) ([]Note, error) {
	var rows []Note
	if err := s.db.WithContext(ctx).Where(onTrip+" AND kind = ? AND status = ?", tripID, KindTrip, StatusActive).
		Order("created_at, id").Find(&rows).Error; err != nil {
		return nil, fmt.Errorf("models: trip notes: %w", err)
	}
	return rows, nil
}

// TripSessions returns the conversations that planned a trip, oldest first.
func (s *Store) TripSessions(ctx context.Context, tripID string) ([]ChatSession, error) {
	var rows []ChatSession
	if err := s.db.WithContext(ctx).Where("trip_id = ?", tripID).Order("created_at, id").Find(&rows).Error; err != nil {
		return nil, fmt.Errorf("models: trip conversations: %w", err)
	}
	return rows, nil
}

// TripUpdate is what the assistant's update_trip call did.
type TripUpdate struct {
	Trip     *Trip
	Handle   string // the trip's handle among the open trips
	Created  bool
	Attached bool // this call attached the conversation
}

// UpdateFromChat applies an update_trip call of conversation sessionID:
// it fills the conversation's trip, or attaches the conversation to the
// open trip named by a.Trip (a handle) or by its destination, or creates a
// trip. Naming a destination two open trips share refuses
// (ErrTripAmbiguous): the assistant never picks one for the traveler.
func (t *Trips) UpdateFromChat(ctx context.Context, userID, sessionID string, a memory.UpdateTripArgs, actor Actor) (*TripUpdate, error) {
	if err := a.Check(); err != nil {
		return nil, err
	}
	var out *TripUpdate
	err := t.n.write(ctx, userID, func(tx *gorm.DB) error {
		var cs ChatSession
		if err := tx.Where("id = ? AND user_id = ?", sessionID, userID).Take(&cs).Error; err != nil {
			return notFound(err)
		}
		open, err := openTripsTx(tx, userID)
		if err != nil {
			return err
		}
		var cur *Trip
		switch {
		case cs.TripID != "":
			var trip Trip
			if err := tx.Where("id = ?", cs.TripID).Take(&trip).Error; err != nil {
				return notFound(err)
			}
			cur = &trip
			if a.Trip != nil {
				if i, ok := memory.TripByHandle(*a.Trip); !ok || i >= len(open) || open[i].ID != cur.ID {
					return ErrTripAttached
				}
			}
		case a.Trip != nil:
			i, ok := memory.TripByHandle(*a.Trip)
			if !ok || i >= len(open) {
				return &memory.Error{Code: memory.ENOTFOUND, Message: "No open trip has the handle " + fmt.Sprintf("%q", *a.Trip) + "."}
			}
			cur = &open[i]
		case a.Destination != nil:
			var same []*Trip
			for i := range open {
				if sameDestination(open[i].Destination, *a.Destination) && datesMeet(&open[i], a) {
					same = append(same, &open[i])
				}
			}
			if len(same) > 1 {
				return ErrTripAmbiguous
			}
			if len(same) == 1 {
				cur = same[0]
			}
		}
		out = &TripUpdate{}
		if cur == nil {
			now := t.n.s.now()
			cur = &Trip{ID: t.n.s.newID(), UserID: userID, Status: string(memory.TripPlanning), CreatedAt: now, UpdatedAt: &now}
			applyTripArgs(cur, a)
			if err := tx.Create(cur).Error; err != nil {
				return err
			}
			out.Created = true
			if err := t.n.s.auditTx(tx, AuditEvent{UserID: userID, ActorID: actor.ID, ActorKind: actor.Kind, Action: "trip.create",
				Reason: "stated by the traveler", After: tripPayload(cur), SessionID: sessionID}); err != nil {
				return err
			}
			open = append(open, *cur)
		} else if changed := applyTripArgs(cur, a); changed != "" {
			if err := t.saveTx(tx, cur, changed, actor, "stated by the traveler", sessionID); err != nil {
				return err
			}
		}
		if cs.TripID == "" {
			if err := t.attachTx(tx, userID, sessionID, cur, actor); err != nil {
				return err
			}
			out.Attached = true
		}
		out.Trip = cur
		for i := range open {
			if open[i].ID == cur.ID {
				out.Handle = memory.TripHandle(i)
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("models: update trip: %w", err)
	}
	return out, nil
}

// Attach puts a conversation on one of the traveler's open trips, or on
// none when tripID is "": the traveler's pick in the chat's side panel (and
// POST /api/v1/sessions/{id}/trip). Picking the trip it is on changes
// nothing. Taking an open conversation off its trip, or moving it to
// another, is the traveler's correction of a wrong attach: the this_trip
// notes said in this conversation go with it (back to the conversation, or
// to the new trip), those of the trip's other conversations stay with the
// trip. A conversation that has ended keeps its trip (ErrSessionClosed).
func (t *Trips) Attach(ctx context.Context, userID, sessionID, tripID string, actor Actor) error {
	err := t.n.write(ctx, userID, func(tx *gorm.DB) error {
		var trip Trip
		if tripID != "" {
			if err := tx.Where("id = ? AND user_id = ?", tripID, userID).Take(&trip).Error; err != nil {
				return notFound(err)
			}
			if !memory.TripStatus(trip.Status).Open() {
				return ErrTripNotOpen
			}
		}
		var cs ChatSession
		if err := tx.Where("id = ? AND user_id = ?", sessionID, userID).Take(&cs).Error; err != nil {
			return notFound(err)
		}
		if cs.TripID == tripID {
			return nil
		}
		if cs.TripID != "" {
			if err := t.detachTx(tx, userID, sessionID, cs.TripID, actor); err != nil {
				return err
			}
		}
		if tripID == "" {
			return nil
		}
		return t.attachTx(tx, userID, sessionID, &trip, actor)
	})
	if err != nil {
		return fmt.Errorf("models: attach trip: %w", err)
	}
	return nil
}

// detachTx takes open conversation sessionID off trip tripID and gives it
// back the this_trip notes it said there, as session notes that end with
// it.
func (t *Trips) detachTx(tx *gorm.DB, userID, sessionID, tripID string, actor Actor) error {
	cs, err := t.n.s.lockSessionTx(tx, sessionID, nil)
	if err != nil {
		return err
	}
	if cs.Status != SessionOpen {
		return ErrSessionClosed
	}
	res := tx.Model(&ChatSession{}).Where("id = ? AND user_id = ? AND trip_id = ?", sessionID, userID, tripID).Update("trip_id", "")
	if res.Error != nil {
		return res.Error
	}
	if res.RowsAffected == 0 {
		return ErrTripAttached
	}
	if err := tx.Model(&Note{}).Where("session_id = ? AND user_id = ? AND kind = ? AND trip_id = ? AND status = ?",
		sessionID, userID, KindTrip, tripID, StatusActive).
		Updates(map[string]any{"kind": KindSession, "trip_id": ""}).Error; err != nil {
		return err
	}
	return t.n.s.auditTx(tx, AuditEvent{UserID: userID, ActorID: actor.ID, ActorKind: actor.Kind, Action: "trip.detach",
		Reason: tripID, SessionID: sessionID})
}

// attachTx attaches a conversation that has no trip to trip, and moves the
// this_trip notes it staged so far into the trip. The update is
// conditional: a conversation belongs to at most one trip.
func (t *Trips) attachTx(tx *gorm.DB, userID, sessionID string, trip *Trip, actor Actor) error {
	res := tx.Model(&ChatSession{}).Where("id = ? AND user_id = ? AND trip_id = ''", sessionID, userID).Update("trip_id", trip.ID)
	if res.Error != nil {
		return res.Error
	}
	if res.RowsAffected == 0 {
		return ErrTripAttached
	}
	if err := tx.Model(&Note{}).Where("session_id = ? AND user_id = ? AND kind = ? AND scope = ? AND status = ?",
		sessionID, userID, KindSession, string(memory.ScopeThisTrip), StatusActive).
		Updates(map[string]any{"kind": KindTrip, "trip_id": trip.ID}).Error; err != nil {
		return err
	}
	return t.n.s.auditTx(tx, AuditEvent{UserID: userID, ActorID: actor.ID, ActorKind: actor.Kind, Action: "trip.attach",
		Reason: trip.ID, SessionID: sessionID})
}

// saveTx stores a changed trip and its audit event.
func (t *Trips) saveTx(tx *gorm.DB, trip *Trip, before string, actor Actor, reason, sessionID string) error {
	now := t.n.s.now()
	trip.UpdatedAt = &now
	if err := tx.Save(trip).Error; err != nil {
		return conflict(err)
	}
	return t.n.s.auditTx(tx, AuditEvent{UserID: trip.UserID, ActorID: actor.ID, ActorKind: actor.Kind, Action: "trip.update",
		Reason: reason, Before: before, After: tripPayload(trip), SessionID: sessionID})
}

// applyTripArgs copies the set fields of a into trip and returns the trip
// as it was before when anything changed, else "".
func applyTripArgs(trip *Trip, a memory.UpdateTripArgs) string {
	before := tripPayload(trip)
	set := func(dst *string, src *string) {
		if src != nil {
			*dst = strings.TrimSpace(*src)
		}
	}
	set(&trip.Destination, a.Destination)
	set(&trip.StartDate, a.StartDate)
	set(&trip.EndDate, a.EndDate)
	set(&trip.Purpose, a.Purpose)
	set(&trip.Budget, a.Budget)
	if a.Travellers != nil {
		trip.Travellers = *a.Travellers
	}
	if a.Status != nil {
		trip.Status = string(*a.Status)
	}
	if tripPayload(trip) == before {
		return ""
	}
	return before
}

// sameDestination compares destinations as the traveler would: case and
// spacing aside.
func sameDestination(a, b string) bool {
	norm := func(s string) string { return strings.Join(strings.Fields(strings.ToLower(s)), " ") }
	return a != "" && norm(a) == norm(b)
}

// datesMeet reports whether a trip's dates and an update's can be the same
// trip: unknown on either side, or overlapping.
func datesMeet(trip *Trip, a memory.UpdateTripArgs) bool {
	if a.StartDate == nil || a.EndDate == nil || trip.StartDate == "" || trip.EndDate == "" {
		return true
	}
	return *a.StartDate <= trip.EndDate && trip.StartDate <= *a.EndDate
}

// TripPatch is a change to a trip by the traveler, staff, the API or the
// import; nil fields stay.
type TripPatch struct {
	Name *string
	memory.UpdateTripArgs
}

// Create adds a trip (API, import, staff). A trip whose ExternalID the
// traveler already has updates that trip instead; created says which.
func (t *Trips) Create(ctx context.Context, userID string, in memory.Trip, actor Actor, reason string) (trip *Trip, created bool, err error) {
	if err := checkTrip(in); err != nil {
		return nil, false, err
	}
	err = t.n.write(ctx, userID, func(tx *gorm.DB) error {
		var err error
		trip, created, err = t.upsertTx(tx, userID, in, actor, reason)
		return err
	})
	if err != nil {
		return nil, false, fmt.Errorf("models: create trip: %w", err)
	}
	return trip, created, nil
}

// checkTrip validates a whole trip as the API and the import send it.
func checkTrip(in memory.Trip) error {
	status := in.Status
	if status == "" {
		status = memory.TripPlanning
	}
	purpose, budget, dest := in.Purpose, in.Budget, in.Destination
	a := memory.UpdateTripArgs{Destination: &dest, StartDate: &in.StartDate, EndDate: &in.EndDate, Purpose: &purpose, Budget: &budget, Status: &status}
	if in.Travellers != 0 {
		a.Travellers = &in.Travellers
	}
	if err := a.Check(); err != nil {
		return err
	}
	for field, s := range map[string]string{"name": in.Name, "route": in.Route, "external_id": in.ExternalID} {
		if err := memory.CheckTripText(field, s); err != nil {
			return err
		}
	}
	return nil
}

// upsertTx is Create inside a write.
func (t *Trips) upsertTx(tx *gorm.DB, userID string, in memory.Trip, actor Actor, reason string) (*Trip, bool, error) {
	if in.Status == "" {
		in.Status = memory.TripPlanning
	}
	var cur Trip
	if in.ExternalID != "" {
		err := tx.Where("user_id = ? AND external_id = ?", userID, in.ExternalID).Take(&cur).Error
		if err == nil {
			before := tripPayload(&cur)
			fillTrip(&cur, in)
			if tripPayload(&cur) == before {
				return &cur, false, nil
			}
			return &cur, false, t.saveTx(tx, &cur, before, actor, reason, "")
		}
		if !errors.Is(notFound(err), ErrNotFound) {
			return nil, false, err
		}
	}
	now := t.n.s.now()
	cur = Trip{ID: t.n.s.newID(), UserID: userID, CreatedAt: now, UpdatedAt: &now}
	fillTrip(&cur, in)
	if err := tx.Create(&cur).Error; err != nil {
		return nil, false, conflict(err)
	}
	return &cur, true, t.n.s.auditTx(tx, AuditEvent{UserID: userID, ActorID: actor.ID, ActorKind: actor.Kind, Action: "trip.create",
		Reason: reason, After: tripPayload(&cur)})
}

func fillTrip(dst *Trip, in memory.Trip) {
	dst.Name, dst.Destination, dst.Route, dst.StartDate, dst.EndDate = in.Name, in.Destination, in.Route, in.StartDate, in.EndDate
	dst.Travellers, dst.Purpose, dst.Budget, dst.Status = in.Travellers, in.Purpose, in.Budget, string(in.Status)
	dst.Flight, dst.Hotel = in.Flight, in.Hotel
	if in.ExternalID != "" {
		ext := in.ExternalID
		dst.ExternalID = &ext
	}
}

// Edit renames, corrects or cancels a trip. Cancelling ends its notes at
// once (see EndTrips).
func (t *Trips) Edit(ctx context.Context, userID, tripID string, p TripPatch, actor Actor, reason string) (*Trip, error) {
	if err := p.Check(); err != nil {
		return nil, err
	}
	if p.Name != nil {
		if err := memory.CheckTripText("name", *p.Name); err != nil {
			return nil, err
		}
	}
	var trip Trip
	err := t.n.write(ctx, userID, func(tx *gorm.DB) error {
		if err := tx.Where("id = ? AND user_id = ?", tripID, userID).Take(&trip).Error; err != nil {
			return notFound(err)
		}
		before := tripPayload(&trip)
		applyTripArgs(&trip, p.UpdateTripArgs)
		if p.Name != nil {
			trip.Name = strings.TrimSpace(*p.Name)
		}
		if tripPayload(&trip) == before {
			return ErrNothingToChange
		}
		if trip.StartDate != "" && trip.EndDate != "" && trip.EndDate < trip.StartDate {
			return memory.ErrEndBeforeStart
		}
		if err := t.saveTx(tx, &trip, before, actor, reason, ""); err != nil {
			return err
		}
		if trip.Status == string(memory.TripCancelled) {
			return t.endNotesTx(tx, &trip, actor, "trip cancelled")
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("models: edit trip %s: %w", tripID, err)
	}
	t.n.s.checkpoint(ctx)
	return &trip, nil
}

// Delete deletes a trip: its notes go everywhere as Notes.Delete deletes a
// note (history, audit payloads, reports, snapshots, tool calls), its
// conversations stay without a trip, and an audit event without content
// records who deleted it and why.
func (t *Trips) Delete(ctx context.Context, userID, tripID string, actor Actor, reason string) error {
	err := t.n.write(ctx, userID, func(tx *gorm.DB) error {
		var trip Trip
		if err := tx.Where("id = ? AND user_id = ?", tripID, userID).Take(&trip).Error; err != nil {
			return notFound(err)
		}
		if err := t.deleteNotesTx(tx, &trip, actor, reason); err != nil {
			return err
		}
		if err := tx.Model(&ChatSession{}).Where("trip_id = ?", tripID).Update("trip_id", "").Error; err != nil {
			return err
		}
		// The trip's own payloads in the audit trail name where it went:
		// they go with it.
		if err := tx.Model(&AuditEvent{}).Where("user_id = ? AND action IN ? AND (before LIKE ? OR after LIKE ?)", userID,
			[]string{"trip.create", "trip.update"}, "%"+tripID+"%", "%"+tripID+"%").
			Updates(map[string]any{"before": "", "after": ""}).Error; err != nil {
			return err
		}
		if err := tx.Where("id = ?", tripID).Delete(&Trip{}).Error; err != nil {
			return err
		}
		return t.n.s.auditTx(tx, AuditEvent{UserID: userID, ActorID: actor.ID, ActorKind: actor.Kind, Action: "trip.delete", Reason: reason})
	})
	if err != nil {
		return fmt.Errorf("models: delete trip %s: %w", tripID, err)
	}
	t.n.s.checkpoint(ctx)
	return nil
}

// deleteNotesTx deletes every note of a trip as Notes.Delete does.
func (t *Trips) deleteNotesTx(tx *gorm.DB, trip *Trip, actor Actor, reason string) error {
	var ids []string
	if err := tx.Model(&Note{}).Where(onTrip+" AND user_id = ? AND kind = ?", trip.ID, trip.UserID, KindTrip).Order("created_at, id").Pluck("id", &ids).Error; err != nil {
		return err
	}
	for _, id := range ids {
		if err := t.n.s.deleteNoteTx(tx, trip.UserID, id, actor, reason); err != nil && !errors.Is(err, ErrNotFound) {
			return err
		}
	}
	return nil
}

// endNotesTx deletes an ended trip's notes and records it once, when it
// had any.
func (t *Trips) endNotesTx(tx *gorm.DB, trip *Trip, actor Actor, why string) error {
	if trip.NotesEndedAt != nil {
		return nil
	}
	var n int64
	if err := tx.Model(&Note{}).Where(onTrip+" AND kind = ?", trip.ID, KindTrip).Count(&n).Error; err != nil {
		return err
	}
	if err := t.deleteNotesTx(tx, trip, actor, why); err != nil {
		return err
	}
	now := t.n.s.now()
	trip.NotesEndedAt = &now
	if err := tx.Model(&Trip{}).Where("id = ?", trip.ID).Update("notes_ended_at", now).Error; err != nil {
		return err
	}
	if n == 0 {
		return nil // nothing was deleted: no event (one a seeded past trip wrote at every first start)
	}
	return t.n.s.auditTx(tx, AuditEvent{UserID: trip.UserID, ActorID: actor.ID, ActorKind: actor.Kind, Action: "trip.notes_ended",
		Reason: fmt.Sprintf("%s: %d notes deleted", why, n)})
}

// DefaultTripGrace is how long after its end date a trip's notes are kept
// (a late question about the trip just taken still has them).
const DefaultTripGrace = 7 * 24 * time.Hour

// EndTrips is the sweep's part for trips, on day today (YYYY-MM-DD of the
// shared clock): a planning or booked trip whose end date passed becomes
// travelled (a trip still "planning" after it ended was taken without
// being marked booked here); the notes of a trip whose end date is more
// than grace behind, or that was cancelled, are deleted with an audit
// event. It returns how many trips it changed. Instances sweeping at the
// same moment each re-read a due trip inside the traveler's write, so a
// trip is changed, and audited, once: the others find nothing left to do
// and do not count it.
func (t *Trips) EndTrips(ctx context.Context, today time.Time, grace time.Duration, limit int) (int, error) {
	day := today.UTC().Format(memory.DateLayout)
	cutoff := today.UTC().Add(-grace).Format(memory.DateLayout)
	var due []Trip
	err := t.n.s.db.WithContext(ctx).
		Where("(status IN ? AND end_date <> '' AND end_date < ?) OR (notes_ended_at IS NULL AND (status = ? OR (end_date <> '' AND end_date < ?)))",
			openStatuses, day, string(memory.TripCancelled), cutoff).
		Order("end_date, id").Limit(limit).Find(&due).Error
	if err != nil {
		return 0, fmt.Errorf("models: trips due: %w", err)
	}
	sys := Actor{Kind: ActorSystem}
	done := 0
	for i := range due {
		changed := false
		err := t.n.write(ctx, due[i].UserID, func(tx *gorm.DB) error {
			changed = false // a retried write starts over
			var trip Trip
			if err := tx.Where("id = ?", due[i].ID).Take(&trip).Error; err != nil {
				return notFound(err)
			}
			if memory.TripStatus(trip.Status).Open() && trip.EndDate != "" && trip.EndDate < day {
				before := tripPayload(&trip)
				trip.Status = string(memory.TripTravelled)
				if err := t.saveTx(tx, &trip, before, sys, "end date passed", ""); err != nil {
					return err
				}
				changed = true
			}
			if trip.NotesEndedAt == nil && (trip.Status == string(memory.TripCancelled) || trip.EndDate != "" && trip.EndDate < cutoff) {
				why := "trip ended"
				if trip.Status == string(memory.TripCancelled) {
					why = "trip cancelled"
				}
				changed = true
				return t.endNotesTx(tx, &trip, sys, why)
			}
			return nil
		})
		if err != nil && !errors.Is(err, ErrNotFound) {
			return done, fmt.Errorf("models: end trip %s: %w", due[i].ID, err)
		}
		if err == nil && changed {
			done++
		}
	}
	if done > 0 {
		t.n.s.checkpoint(ctx)
	}
	return done, nil
}
