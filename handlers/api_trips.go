package handlers

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"concierge/memory"
	"concierge/models"
)

// apiTrip is a trip as the API shows it: the trip, its notes and the
// conversations that planned it.
type apiTrip struct {
	memory.Trip
	Notes         []memory.Note `json:"notes"`
	Conversations []string      `json:"conversations"`
}

// tripView reads a trip's notes and conversations.
func (s *Server) tripView(c echo.Context, t memory.Trip) (apiTrip, error) {
	ctx := c.Request().Context()
	notes, err := s.store.TripNotes(ctx, t.ID)
	if err != nil {
		return apiTrip{}, err
	}
	sessions, err := s.store.TripSessions(ctx, t.ID)
	if err != nil {
		return apiTrip{}, err
	}
	out := apiTrip{Trip: t, Notes: notes, Conversations: make([]string, len(sessions))}
	for i, cs := range sessions {
		out.Conversations[i] = cs.ID
	}
	return out, nil
}

// tripReason is the reason of a trip change: required from staff, a
// default for the traveler's own.
func tripReason(c echo.Context, given, own string) (string, error) {
	if ownerCall(c) {
		if r, err := models.CheckReason(given); err == nil {
			return r, nil
		}
		return own, nil
	}
	return models.CheckReason(given)
}

func (s *Server) apiListTrips(c echo.Context) error {
	trips, err := s.store.Trips(c.Request().Context(), subjectOf(c).ID, 1000)
	if err != nil {
		return err
	}
	out := make([]apiTrip, 0, len(trips))
	for _, t := range trips {
		v, err := s.tripView(c, t)
		if err != nil {
			return err
		}
		out = append(out, v)
	}
	return c.JSON(http.StatusOK, map[string]any{"trips": out})
}

// apiCreateTrip adds a trip; one whose external_id the traveler already
// has updates that trip (200 instead of 201).
func (s *Server) apiCreateTrip(c echo.Context) error {
	var req struct {
		memory.Trip
		Reason string `json:"reason"`
	}
	if err := decodeJSON(c, &req); err != nil {
		return err
	}
	reason, err := tripReason(c, req.Reason, "added by the traveler")
	if err != nil {
		return err
	}
	req.Trip.ID = ""
	trip, created, err := s.notes.Trips().Create(c.Request().Context(), subjectOf(c).ID, req.Trip, actorOf(currentUser(c)), reason)
	if err != nil {
		return err
	}
	status := http.StatusOK
	if created {
		status = http.StatusCreated
	}
	v, err := s.tripView(c, trip.Domain())
	if err != nil {
		return err
	}
	return c.JSON(status, v)
}

// apiPatchTrip renames, corrects or cancels a trip.
func (s *Server) apiPatchTrip(c echo.Context) error {
	var req struct {
		Name        *string            `json:"name"`
		Destination *string            `json:"destination"`
		StartDate   *string            `json:"start_date"`
		EndDate     *string            `json:"end_date"`
		Travellers  *int               `json:"travellers"`
		Purpose     *string            `json:"purpose"`
		Budget      *string            `json:"budget"`
		Status      *memory.TripStatus `json:"status"`
		Reason      string             `json:"reason"`
	}
	if err := decodeJSON(c, &req); err != nil {
		return err
	}
	reason, err := tripReason(c, req.Reason, "corrected by the traveler")
	if err != nil {
		return err
	}
	p := models.TripPatch{Name: req.Name, UpdateTripArgs: memory.UpdateTripArgs{Destination: req.Destination, StartDate: req.StartDate,
		EndDate: req.EndDate, Travellers: req.Travellers, Purpose: req.Purpose, Budget: req.Budget, Status: req.Status}}
	trip, err := s.notes.Trips().Edit(c.Request().Context(), subjectOf(c).ID, c.Param("trip"), p, actorOf(currentUser(c)), reason)
	if err != nil {
		return err
	}
	v, err := s.tripView(c, trip.Domain())
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, v)
}

// apiDeleteTrip deletes a trip and its notes everywhere (SPEC §2.5).
func (s *Server) apiDeleteTrip(c echo.Context) error {
	var req struct {
		Reason string `json:"reason"`
	}
	if c.Request().ContentLength != 0 {
		if err := decodeJSON(c, &req); err != nil {
			return err
		}
	}
	reason, err := tripReason(c, req.Reason, "deleted by the traveler")
	if err != nil {
		return err
	}
	if err := s.notes.Trips().Delete(c.Request().Context(), subjectOf(c).ID, c.Param("trip"), actorOf(currentUser(c)), reason); err != nil {
		return err
	}
	return c.NoContent(http.StatusNoContent)
}

// apiAttachTrip attaches the conversation to one of the traveler's open
// trips: the chat side panel's pick, as the API has it.
func (s *Server) apiAttachTrip(c echo.Context) error {
	var req struct {
		TripID string `json:"trip_id"`
	}
	if err := decodeJSON(c, &req); err != nil {
		return err
	}
	u := currentUser(c)
	if err := s.notes.Trips().Attach(c.Request().Context(), u.ID, c.Param("id"), req.TripID, actorOf(u)); err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{"id": c.Param("id"), "trip_id": req.TripID})
}

// apiProfileSchema serves the profile's published JSON Schema.
func (s *Server) apiProfileSchema(c echo.Context) error {
	return c.Blob(http.StatusOK, "application/schema+json", models.ProfileSchemaJSON)
}

// apiPutProfile replaces a traveler's profile for staff and integrations:
// 422 naming the field path for anything the schema refuses.
func (s *Server) apiPutProfile(c echo.Context) error {
	var req struct {
		Profile memory.Profile `json:"profile"`
		Reason  string         `json:"reason"`
	}
	if err := decodeJSON(c, &req); err != nil {
		return err
	}
	reason, err := models.CheckReason(req.Reason)
	if err != nil {
		return err
	}
	if req.Profile == nil {
		return newError(http.StatusUnprocessableEntity, "invalid", "Send the profile as a JSON object, under \"profile\".")
	}
	subject := subjectOf(c)
	if err := s.store.SetProfile(c.Request().Context(), subject.ID, req.Profile, actorOf(currentUser(c)), reason); err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{"profile": req.Profile})
}
