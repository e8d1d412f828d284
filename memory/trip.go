package memory

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"concierge/memory/guard"
)

// TripStatus is where a trip stands.
type TripStatus string

// The statuses a trip can have.
const (
	TripPlanning  TripStatus = "planning"
	TripBooked    TripStatus = "booked"
	TripTravelled TripStatus = "travelled"
	TripCancelled TripStatus = "cancelled"
)

// Valid reports whether s is one of the known statuses.
func (s TripStatus) Valid() bool {
	return s == TripPlanning || s == TripBooked || s == TripTravelled || s == TripCancelled
}

// Open reports whether a trip in status s is still ahead: planning or booked.
func (s TripStatus) Open() bool { return s == TripPlanning || s == TripBooked }

// TripPurposes are the purposes a trip can have ("" is unknown).
var TripPurposes = []string{"business", "leisure", "family"}

// MaxTripText is the longest a trip's free-text field (destination, name,
// budget) may be, in characters.
const MaxTripText = 120

// UpdateTripToolName is the tool that creates or fills the conversation's trip.
const UpdateTripToolName = "update_trip"

// UpdateTripArgs are the arguments of an update_trip call; a nil field is
// left as it is.
type UpdateTripArgs struct {
	Trip        *string     `json:"trip"` // handle of an open trip to attach this conversation to
	Destination *string     `json:"destination"`
	StartDate   *string     `json:"start_date"`
	EndDate     *string     `json:"end_date"`
	Travellers  *int        `json:"travellers"`
	Purpose     *string     `json:"purpose"`
	Budget      *string     `json:"budget"`
	Status      *TripStatus `json:"status"`
}

var updateTripKeys = []string{"trip", "destination", "start_date", "end_date", "travellers", "purpose", "budget", "status"}

// UpdateTripTool describes update_trip in strict form: every property
// required, null meaning "leave as it is".
func UpdateTripTool() Tool {
	str := func(desc string) map[string]any {
		return map[string]any{"type": []string{"string", "null"}, "description": desc}
	}
	return Tool{
		Name: UpdateTripToolName,
		Description: "Record the trip this conversation plans, as the traveler states its details: where, when, who travels, why, the budget, and its status. " +
			"The first call creates the trip and attaches this conversation to it; later calls fill or correct it. " +
			"To continue an open trip listed under OPEN TRIPS, pass its handle in trip — only when the traveler named that trip or said yes when you asked; never attach a trip you guessed. " +
			"With exactly one open trip and a conversation that may be about it, ask once whether it is. " +
			"Send null for anything not stated. Dates are YYYY-MM-DD; write no personal data.",
		Parameters: map[string]any{
			"type":                 "object",
			"additionalProperties": false,
			"required":             updateTripKeys,
			"properties": map[string]any{
				"trip":        str("Handle of an open trip to continue, e.g. \"t1\"; null to create or fill this conversation's own trip."),
				"destination": str("Where the trip goes, e.g. \"Lisbon\" or \"Lisbon and Porto\"."),
				"start_date":  str("First day, YYYY-MM-DD."),
				"end_date":    str("Last day, YYYY-MM-DD."),
				"travellers":  map[string]any{"type": []string{"integer", "null"}, "description": "How many people travel."},
				"purpose":     map[string]any{"type": []string{"string", "null"}, "enum": []any{"business", "leisure", "family", nil}},
				"budget":      str("The budget in the traveler's words, e.g. \"mid-range\" or \"2000 EUR\"."),
				"status":      map[string]any{"type": []string{"string", "null"}, "enum": []any{"planning", "booked", "travelled", "cancelled", nil}},
			},
		},
	}
}

// ParseUpdateTripArgs decodes update_trip's arguments strictly: exactly
// its keys (each may be null), the right types, known enums, ISO dates.
func ParseUpdateTripArgs(raw string) (UpdateTripArgs, error) {
	fields, err := DecodeExact([]byte(raw), nil, updateTripKeys)
	if err != nil {
		return UpdateTripArgs{}, fmt.Errorf("update_trip arguments: %w", err)
	}
	var a UpdateTripArgs
	for _, k := range updateTripKeys {
		v, ok := fields[k]
		if !ok || string(v) == "null" {
			continue
		}
		var dst any
		switch k {
		case "trip":
			dst = &a.Trip
		case "destination":
			dst = &a.Destination
		case "start_date":
			dst = &a.StartDate
		case "end_date":
			dst = &a.EndDate
		case "travellers":
			dst = &a.Travellers
		case "purpose":
			dst = &a.Purpose
		case "budget":
			dst = &a.Budget
		case "status":
			dst = &a.Status
		}
		if err := json.Unmarshal(v, dst); err != nil {
			return UpdateTripArgs{}, fmt.Errorf("update_trip arguments: %s has the wrong type", k)
		}
	}
	return a, a.Check()
}

// ErrEndBeforeStart refuses a trip whose end date is before its start.
var ErrEndBeforeStart = &Error{Code: EINVALID, Message: "end_date is before start_date"}

// Check validates the fields that are set: dates, counts, enums and text
// lengths, and the guard's screen on free text (no personal data, no
// instructions).
func (a UpdateTripArgs) Check() error {
	for name, d := range map[string]*string{"start_date": a.StartDate, "end_date": a.EndDate} {
		if d != nil && *d != "" && !ValidDate(*d) {
			return Errorf(EINVALID, "%s must be a date YYYY-MM-DD", name)
		}
	}
	if a.StartDate != nil && a.EndDate != nil && *a.StartDate != "" && *a.EndDate != "" && *a.EndDate < *a.StartDate {
		return ErrEndBeforeStart
	}
	if a.Travellers != nil && (*a.Travellers < 1 || *a.Travellers > 99) {
		return Errorf(EINVALID, "travellers must be between 1 and 99")
	}
	if a.Purpose != nil && *a.Purpose != "" && !containsString(TripPurposes, *a.Purpose) {
		return Errorf(EINVALID, "purpose must be business, leisure or family")
	}
	if a.Status != nil && !a.Status.Valid() {
		return Errorf(EINVALID, "status must be planning, booked, travelled or cancelled")
	}
	for name, s := range map[string]*string{"destination": a.Destination, "budget": a.Budget} {
		if s != nil {
			if err := CheckTripText(name, *s); err != nil {
				return err
			}
		}
	}
	return nil
}

// CheckTripText is the guard on a trip's free text: valid, short, and
// passing the note screen (sensitive data and instructions are refused).
func CheckTripText(field, s string) error {
	if !utf8.ValidString(s) || strings.ContainsRune(s, 0) {
		return Errorf(EINVALID, "%s is not valid text", field)
	}
	if utf8.RuneCountInString(s) > MaxTripText {
		return Errorf(EINVALID, "%s is longer than %d characters", field, MaxTripText)
	}
	if cat, blocked := guard.ScreenText(s); blocked {
		return &Error{Code: ENOTEREFUSED, Message: field + " was refused: " + cat, Note: &NoteRefusal{Refusal: refuse(cat)}}
	}
	return nil
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// TripHandle is the handle of the i-th open trip (0-based) in the
// instructions: "t1", "t2", …
func TripHandle(i int) string { return "t" + strconv.Itoa(i+1) }

// TripByHandle returns the index of handle in a list of open trips.
func TripByHandle(h string) (int, bool) {
	n, err := strconv.Atoi(strings.TrimPrefix(strings.TrimSpace(h), "t"))
	if err != nil || !strings.HasPrefix(strings.TrimSpace(h), "t") || n < 1 {
		return 0, false
	}
	return n - 1, true
}

// SectionTrip names the TRIP list of the <memories> block in InjectedNote.
const SectionTrip = "TRIP"

// describe renders a trip's details in one line: "Lisbon, 2027-05-01 to
// 2027-05-07, 2 travellers, leisure, budget mid-range (planning)".
func (t Trip) describe() string {
	parts := []string{Neutralize(t.Title())}
	switch {
	case t.StartDate != "" && t.EndDate != "":
		parts = append(parts, t.StartDate+" to "+t.EndDate)
	case t.StartDate != "":
		parts = append(parts, "from "+t.StartDate)
	}
	if t.Travellers > 0 {
		parts = append(parts, strconv.Itoa(t.Travellers)+" travellers")
	}
	if t.Purpose != "" {
		parts = append(parts, t.Purpose)
	}
	if t.Budget != "" {
		parts = append(parts, "budget "+Neutralize(t.Budget))
	}
	return strings.Join(parts, ", ") + " (" + string(t.Status) + ")"
}

// Untitled is the Title of a trip with no name, destination or route.
const Untitled = "a trip"

// Title is what a trip is called: its name, else its destination, else its
// route, else Untitled.
func (t Trip) Title() string {
	switch {
	case t.Name != "":
		return t.Name
	case t.Destination != "":
		return t.Destination
	case t.Route != "":
		return t.Route
	}
	return Untitled
}

// Describe is the trip's one-line description in the TRIP block (see
// describe), for memory/prompt.
func (t Trip) Describe() string { return t.describe() }
