package views

// CustomerTrip is one trip on the customer page: what it is, its notes
// (edited and deleted as the customer's other notes are) and, in Mode
// "edit", the form staff correct it with, with what they typed and the
// error it met.
type CustomerTrip struct {
	CustomerID, ID, CSRF string
	Title                string // name, else destination, else route ("" for none)
	Route                string // shown beside the title when it differs
	Destination          string
	StartDate, EndDate   string // YYYY-MM-DD, "" when not set
	Status               string // a memory.TripStatus
	Purpose              string
	Travellers           int
	Flight, Hotel        string
	Notes                []NoteRow
	Conversations        int
	Mode                 string // "" (show) or "edit"
	Reason               string // typed into the edit form
	Error                string // why the edit was refused
	ErrorAt              string // the field the error is about: "reason" or "trip"
}

// TripStatuses are the statuses staff can set, in the order a trip goes.
var TripStatuses = []string{"planning", "booked", "travelled", "cancelled"}

// Href is the trip's URL on the customer page.
func (t CustomerTrip) Href() string { return "/console/customers/" + t.CustomerID + "/trips/" + t.ID }

// DOMID is the element id of the trip's row.
func (t CustomerTrip) DOMID() string { return "trip-" + t.ID }

// Refused is the edit form's error at its field, or nil.
func (t CustomerTrip) Refused() *FormError {
	if t.Error == "" {
		return nil
	}
	at := t.ErrorAt
	if at == "" {
		at = "trip"
	}
	return &FormError{Form: "trip", Field: at + "-" + t.ID, Message: t.Error}
}

// dates are the trip's days, or "" when neither is set.
func (t CustomerTrip) dates() TravelerTrip {
	return TravelerTrip{StartDate: t.StartDate, EndDate: t.EndDate}
}
