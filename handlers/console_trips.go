package handlers

import (
	"context"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"concierge/memory"
	"concierge/models"
	"concierge/views"
)

// customerTrips are a customer's trips as the customer page lists them,
// newest first, each with its notes.
func (s *Server) customerTrips(ctx context.Context, userID, csrf string) ([]views.CustomerTrip, error) {
	trips, err := s.store.Trips(ctx, userID, 20)
	if err != nil {
		return nil, err
	}
	out := make([]views.CustomerTrip, 0, len(trips))
	for _, t := range trips {
		v, err := s.customerTrip(ctx, userID, t, csrf)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

// customerTrip is one trip of the customer page, with its notes as note
// rows (edited and deleted through the note routes) and how many
// conversations planned it.
func (s *Server) customerTrip(ctx context.Context, userID string, t memory.Trip, csrf string) (views.CustomerTrip, error) {
	v := views.CustomerTrip{CustomerID: userID, ID: t.ID, CSRF: csrf, Route: t.Route, Destination: t.Destination,
		StartDate: t.StartDate, EndDate: t.EndDate, Status: string(t.Status), Purpose: t.Purpose, Travellers: t.Travellers,
		Flight: t.Flight, Hotel: t.Hotel}
	if t.Name != "" || t.Destination != "" || t.Route != "" {
		v.Title = t.Title()
	}
	rows, err := s.store.TripNoteRows(ctx, t.ID)
	if err != nil {
		return v, err
	}
	for i := range rows {
		v.Notes = append(v.Notes, noteRow(userID, &rows[i], csrf))
	}
	sessions, err := s.store.TripSessions(ctx, t.ID)
	if err != nil {
		return v, err
	}
	v.Conversations = len(sessions)
	return v, nil
}

// consoleTrip renders one trip's row (Cancel of an edit) or, in mode
// "edit", its edit form.
func (s *Server) consoleTrip(mode string) echo.HandlerFunc {
	return func(c echo.Context) error {
		ctx := c.Request().Context()
		u := subjectOf(c)
		trip, err := s.store.TripByID(ctx, u.ID, c.Param("trip"))
		if err != nil {
			return err
		}
		v, err := s.customerTrip(ctx, u.ID, trip.Domain(), csrfToken(c))
		if err != nil {
			return err
		}
		v.Mode = mode
		if mode == "edit" {
			announce(c, "", "#dest-"+trip.ID)
		} else {
			announce(c, "", "#trip-edit-"+trip.ID)
		}
		return render(c, http.StatusOK, views.CustomerTripItem(v))
	}
}

// consoleUpdateTrip saves staff's correction of a trip (destination,
// dates, status) with their reason, through the trip service the API
// uses: the same checks, and the same audit event.
func (s *Server) consoleUpdateTrip(c echo.Context) error {
	ctx := c.Request().Context()
	u := subjectOf(c)
	trip, err := s.store.TripByID(ctx, u.ID, c.Param("trip"))
	if err != nil {
		return err
	}
	cur := trip.Domain()
	form := cur
	form.Destination = strings.TrimSpace(c.FormValue("destination"))
	form.StartDate, form.EndDate = strings.TrimSpace(c.FormValue("start_date")), strings.TrimSpace(c.FormValue("end_date"))
	form.Status = memory.TripStatus(c.FormValue("status"))
	reasonIn := c.FormValue("reason")
	fail := func(at, msg string) error {
		v, err := s.customerTrip(ctx, u.ID, form, csrfToken(c))
		if err != nil {
			return err
		}
		v.Mode, v.Reason, v.Error, v.ErrorAt = "edit", reasonIn, msg, at
		focus := "#treason-" + trip.ID
		if at == "trip" {
			focus = "#dest-" + trip.ID
		}
		announce(c, "", focus)
		return render(c, inlineErrorStatus(c), views.CustomerTripItem(v))
	}
	reason, err := models.CheckReason(reasonIn)
	if err != nil {
		return fail("reason", userMessage(c, err))
	}
	// Only what the form changed is sent: a trip's other fields, and a
	// field staff left as it was, stay.
	var p models.TripPatch
	changed := func(now, was string) *string {
		if now == was {
			return nil
		}
		return &now
	}
	p.Destination = changed(form.Destination, cur.Destination)
	p.StartDate = changed(form.StartDate, cur.StartDate)
	p.EndDate = changed(form.EndDate, cur.EndDate)
	if form.Status != cur.Status {
		p.Status = &form.Status
	}
	updated, err := s.notes.Trips().Edit(ctx, u.ID, trip.ID, p, actorOf(currentUser(c)), reason)
	if e, _ := toError(err); err != nil && e.Status < 500 {
		return fail("trip", e.In(localizer(c)))
	}
	if err != nil {
		return err
	}
	if !fromHTMX(c) {
		return c.Redirect(http.StatusSeeOther, "/console/customers/"+u.ID)
	}
	v, err := s.customerTrip(ctx, u.ID, updated.Domain(), csrfToken(c))
	if err != nil {
		return err
	}
	notesChanged(c) // a cancelled trip's notes are gone: the preview follows
	announce(c, localizer(c).T("console.trips.saved"), "#trip-edit-"+trip.ID)
	return render(c, http.StatusOK, views.CustomerTripItem(v))
}
