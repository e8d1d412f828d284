package handlers

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"concierge/agent"
	"concierge/memory"
	"concierge/models"
	"concierge/views"
	"concierge/views/locale"
)

// Error is a failure to show to the client: an HTTP status, a stable
// machine-readable code and a message written for people.
type Error struct {
	Status  int
	Code    string
	Message string
	// ID and Args are the catalogue message a page shows in its reader's
	// language (Message is the English one the API sends); "" shows
	// Message as it is.
	ID   string
	Args []any
	// Turn is the stored message's turn, for answer_in_progress.
	Turn int
	// Stored says, for unavailable, whether the request's message was
	// stored; nil when the request carried none or it cannot be told.
	Stored *bool
}

func (e *Error) Error() string { return fmt.Sprintf("%d %s: %s", e.Status, e.Code, e.Message) }

func newError(status int, code, message string) *Error {
	return &Error{Status: status, Code: code, Message: message}
}

// localError is an Error whose message is the catalogue's id (with pairs
// of field name and value): English for the API, the reader's language on
// a page.
func localError(status int, code, id string, pairs ...any) *Error {
	return &Error{Status: status, Code: code, Message: locale.For(locale.Default).T(id, pairs...), ID: id, Args: pairs}
}

// In is the message in l's language.
func (e *Error) In(l *locale.Localizer) string {
	if e.ID == "" {
		return e.Message
	}
	return l.T(e.ID, e.Args...)
}

// Common errors.
var (
	errUnauthorized = localError(http.StatusUnauthorized, "unauthorized", "error.unauthorized")
	errForbidden    = localError(http.StatusForbidden, "forbidden", "error.forbidden")
	errNotFound     = localError(http.StatusNotFound, "not_found", "error.not_found")
	// errClientGone is what a request whose client hung up "answers" (the
	// 499 of nginx): never sent, logged at debug level.
	errClientGone = newError(statusClientGone, "client_gone", "The client went away.")
)

// statusClientGone is the status logged for requests whose client left.
const statusClientGone = 499

// errorBody is the JSON shape of every API error.
type errorBody struct {
	Error struct {
		Code    string `json:"code"`
		Message string `json:"message"`
		Turn    int    `json:"turn,omitempty"`
		Stored  *bool  `json:"stored,omitempty"`
	} `json:"error"`
}

// domainStatus is the HTTP status of each domain error code (memory.Error):
// the one place the domain's refusals become statuses.
var domainStatus = map[string]int{
	memory.ENOTFOUND:      http.StatusNotFound,
	memory.ECONFLICT:      http.StatusConflict,
	memory.EINVALID:       http.StatusBadRequest,
	memory.ESESSIONCLOSED: http.StatusConflict,
	memory.ENOTSTORED:     http.StatusConflict,
	memory.EANSWERING:     http.StatusConflict,
	memory.EKEYREUSED:     http.StatusUnprocessableEntity,
	memory.ESELFERASURE:   http.StatusConflict,
	memory.ENOTEREFUSED:   http.StatusUnprocessableEntity,
	memory.EBADPROFILE:    http.StatusUnprocessableEntity,
	memory.ENOTEDITABLE:   http.StatusConflict,
	memory.ECANNOTPIN:     http.StatusForbidden,
	memory.ENOTHING:       http.StatusUnprocessableEntity,
	memory.EEMAILTAKEN:    http.StatusConflict,
	memory.EBADEMAIL:      http.StatusUnprocessableEntity,
	memory.EBADROLE:       http.StatusUnprocessableEntity,
	memory.EWEAKPASSWORD:  http.StatusUnprocessableEntity,
	memory.EBUSY:          http.StatusConflict,
	memory.ENOTFAILED:     http.StatusConflict,
	memory.EOWNACCOUNT:    http.StatusConflict,
	memory.EBADEXPIRY:     http.StatusUnprocessableEntity,
	memory.ENOREASON:      http.StatusUnprocessableEntity,
	memory.EREASONTOOLONG: http.StatusUnprocessableEntity,
	memory.ENONAME:        http.StatusUnprocessableEntity,
	memory.ETOOLONG:       http.StatusUnprocessableEntity,
	memory.ETOOLARGE:      http.StatusRequestEntityTooLarge,
	memory.EBADREASON:     http.StatusUnprocessableEntity,
	memory.EBADTICKET:     http.StatusUnprocessableEntity,
	memory.EERASEPARTIAL:  http.StatusInternalServerError,
}

// userMessage is the message a person sees for err, in the request's
// language, through the same mapping as every error response: a form that
// shows the error beside its control uses it instead of asserting err's
// type.
func userMessage(c echo.Context, err error) string {
	e, _ := toError(err)
	return e.In(localizer(c))
}

// domainMessages are the catalogue ids of the domain's refusals people
// read, by the sentinel they are (errors.Is): the one place domain errors
// get words in the reader's language. A refusal not listed here shows its
// English message.
var domainMessages = []struct {
	err  error
	id   string
	args []any // the message's fields, as pairs of name and value
}{
	{models.ErrNotFound, "error.not_found", nil},
	{models.ErrConflict, "error.conflict", nil},
	{models.ErrSessionClosed, "chat.failed.ended", nil},
	{models.ErrBusy, "error.busy_not_stored", nil},
	{models.ErrKeyReused, "error.key_reused", nil},
	{models.ErrSelfErasure, "error.self_erasure", nil},
	{models.ErrErasureIncomplete, "error.erasure_incomplete", nil},
	{models.ErrJobNotFailed, "error.not_failed", nil},
	{models.ErrNotForgettable, "error.not_forgettable", nil},
	{models.ErrNotEditable, "error.not_editable", nil},
	{models.ErrNothingToChange, "error.nothing_to_change", nil},
	{models.ErrCannotPin, "error.cannot_pin", nil},
	{models.ErrUndoClosed, "error.undo_closed", nil},
	{models.ErrReviewResolved, "error.review_resolved", nil},
	{models.ErrReviewClaimed, "error.review_claimed", nil},
	{models.ErrNoReason, "error.reason_required", nil},
	{models.ErrReasonTooLong, "error.reason_too_long", nil},
	{models.ErrNoName, "error.name_required", nil},
	{models.ErrMessageTooBig, "error.message_too_big", nil},
	{models.ErrTitleTooLong, "error.title_too_long", nil},
	{models.ErrSessionBusy, "error.session_busy", nil},
	{models.ErrNoPendingErasure, "error.no_pending_erasure", nil},
	{models.ErrTripAttached, "error.trip_attached", nil},
	{models.ErrTripAmbiguous, "error.trip_ambiguous", nil},
	{models.ErrTripNotOpen, "error.trip_not_open", nil},
	{models.ErrInvalidEmail, "error.invalid_email", nil},
	{models.ErrInvalidRole, "error.bad_role", nil},
	{models.ErrEmailTaken, "error.email_taken", nil},
	{models.ErrBadErasureReason, "error.bad_erasure_reason", nil},
	{models.ErrBadTicket, "error.bad_ticket", nil},
	{models.ErrSearchTooLong, "error.search_too_long", []any{"Max", models.MaxSearchChars}},
	{models.ErrReviewAction, "error.review_action", nil},
	{models.ErrReviewNoText, "error.review_no_text", nil},
	{models.ErrReviewNoNote, "error.review_no_note", nil},
	{memory.ErrEndBeforeStart, "error.end_before_start", nil},
	{agent.ErrSuperseded, "error.superseded", nil},
	{errOwnAccount, "error.own_account", nil},
}

// domainMessage is the catalogue id and fields of a domain refusal, or "".
func domainMessage(err error) (string, []any) {
	for _, m := range domainMessages {
		if errors.Is(err, m.err) {
			return m.id, m.args
		}
	}
	return "", nil
}

// toError maps any error to the Error the client sees; internal reports
// whether it is our fault (and must be logged) rather than the client's.
func toError(err error) (e *Error, internal bool) {
	var he *echo.HTTPError
	var de *memory.Error
	var me *agent.ModelError
	var locked *models.LockedError
	var weak *models.PasswordError
	var badProfile *models.ProfileError
	switch {
	case errors.As(err, &e):
		return e, e.Status >= 500
	case errors.Is(err, context.Canceled):
		// The request's context ended: its client hung up (or shutdown
		// gave up on it). Nobody reads the answer; it is not our failure.
		return errClientGone, false
	case errors.Is(err, agent.ErrOverloaded):
		return localError(http.StatusServiceUnavailable, "overloaded", "error.overloaded"), false
	case errors.Is(err, agent.ErrDraining):
		return localError(http.StatusServiceUnavailable, "restarting", "error.restarting"), false
	case errors.As(err, &locked):
		// Sign-in refusals never tell which part was wrong, nor whether an
		// account has that email.
		wait := time.Until(locked.Until).Round(time.Second)
		if wait < time.Second {
			wait = time.Second
		}
		return localError(http.StatusTooManyRequests, "locked", "login.locked", "Wait", wait.String()), false
	case errors.Is(err, models.ErrBadCredentials):
		return localError(http.StatusUnauthorized, "bad_credentials", "login.bad_credentials"), false
	case errors.Is(err, models.ErrWrongPassword):
		return localError(http.StatusForbidden, "bad_credentials", "error.wrong_password"), false
	case errors.As(err, &weak):
		// The policy's reason in the reader's words; the API keeps the
		// policy's own English message.
		e := localError(http.StatusUnprocessableEntity, memory.EWEAKPASSWORD, "error.password."+weak.Reason,
			"Min", models.MinPasswordChars, "Max", models.MaxPasswordBytes)
		e.Message = weak.Message
		return e, false
	case errors.As(err, &badProfile):
		// Where and why, in the reader's words; the API keeps the
		// schema's English message and names the field.
		e := localError(http.StatusUnprocessableEntity, memory.EBADPROFILE, "error.profile."+badProfile.Rule,
			"Path", badProfile.Path, "Want", badProfile.Want, "N", badProfile.N)
		e.Message = badProfile.Message
		return e, false
	case errors.As(err, &de):
		if status, ok := domainStatus[de.Code]; ok {
			e := &Error{Status: status, Code: de.Code, Message: de.Message, Turn: de.Turn}
			e.ID, e.Args = domainMessage(de)
			if de.Note != nil {
				e.ID, e.Args = noteRefusalMessage(de.Note)
				e.Message = locale.For(locale.Default).T(e.ID, e.Args...)
			}
			return e, status >= 500
		}
	case errors.As(err, &me):
		// The user's message is stored before the model is called; the
		// page says so in its language, the API adds what the model did.
		e := localError(http.StatusBadGateway, "model_unavailable", "error.model_unavailable")
		e.Message = agent.Explain(me) + " " + e.Message
		return e, false
	case models.IsUnavailable(err):
		return unavailableError(err), true
	case errors.As(err, &he):
		switch he.Code {
		case http.StatusNotFound:
			return errNotFound, false
		case http.StatusMethodNotAllowed:
			return localError(he.Code, "method_not_allowed", "error.method_not_allowed"), false
		case http.StatusRequestEntityTooLarge:
			return localError(he.Code, "too_large", "error.too_large"), false
		case http.StatusTooManyRequests:
			return localError(he.Code, "rate_limited", "error.rate_limited"), false
		case http.StatusForbidden, http.StatusBadRequest:
			if strings.Contains(fmt.Sprint(he.Message), "csrf") {
				return localError(http.StatusForbidden, "csrf", "error.csrf"), false
			}
			e := newError(he.Code, "bad_request", fmt.Sprint(he.Message))
			e.ID = "error.bad_request"
			return e, false
		case http.StatusUnauthorized:
			return errUnauthorized, false
		case http.StatusServiceUnavailable:
			return localError(he.Code, "unavailable", "error.unavailable"), true
		}
		if he.Code < 500 {
			e := newError(he.Code, "bad_request", http.StatusText(he.Code))
			e.ID = "error.bad_request"
			return e, false
		}
	}
	return localError(http.StatusInternalServerError, "internal", "chat.failed.ours"), true
}

// noteRefusalMessage is the catalogue message (id and fields) of the
// guard's refusal of a note, worded for whoever wrote it: the traveler in
// their terms (what to change), staff plainly; never the refused text.
func noteRefusalMessage(r *memory.NoteRefusal) (string, []any) {
	switch {
	case !r.Own && r.Category == memory.CategoryUserCap:
		return "blocked.user_cap_staff", nil
	case !r.Own && r.Category == memory.CategorySessionCap:
		return "blocked.session_cap", nil
	case !r.Own && (r.Category == memory.CategoryTooLong || r.Category == memory.CategoryBadFormat || r.Category == memory.CategoryBadKeywords):
		return "error.note_staff." + r.Category, nil
	}
	switch r.Category {
	case memory.CategoryTooLong:
		return "error.note_too_long", []any{"Chars", strconv.Itoa(r.Chars)}
	case memory.CategoryBadFormat:
		return "error.note_bad_format", nil
	case memory.CategoryBadKeywords:
		return "error.note_bad_keywords", nil
	}
	return views.BlockedNoticeID(r.Category), nil
}

// unavailableError is the 503 of a database that is away or refuses
// writes, saying whether the request's message was stored.
func unavailableError(err error) *Error {
	var ue *models.UnavailableError
	stored := models.StoredUnknown
	if errors.As(err, &ue) {
		stored = ue.Stored
	}
	e := localError(http.StatusServiceUnavailable, "unavailable", "error.database")
	switch stored {
	case models.StoredNo:
		no := false
		e.Stored = &no
		e.Message = "Concierge cannot reach its database right now; your message was not stored. Send it again (with the same Idempotency-Key) in a few seconds."
		e.ID = "error.database_not_stored"
	case models.StoredYes:
		yes := true
		e.Stored = &yes
		e.Message = "Concierge cannot reach its database right now; your message is saved. Send it again (with the same Idempotency-Key) in a few seconds to get its answer."
		e.ID = "error.database_stored"
	}
	return e
}

// sendsMessage reports whether the request sends a message (the API's and
// the page's).
func sendsMessage(c echo.Context) bool {
	return c.Request().Method == http.MethodPost && (c.Path() == "/api/v1/sessions/:id/messages" || c.Path() == "/chat/:id/messages")
}

// isAPI reports whether a request is a machine's: the JSON API, the health
// check and the metrics scrape authenticate by bearer token and get JSON
// errors, never a login redirect.
func isAPI(c echo.Context) bool {
	p := c.Request().URL.Path
	return strings.HasPrefix(p, "/api/") || p == "/healthz" || p == "/metrics"
}

// handleError is the one place errors become responses: JSON for the API,
// a friendly page for the browser, an alert fragment for htmx.
func (s *Server) handleError(err error, c echo.Context) {
	if c.Response().Committed {
		return
	}
	if sendsMessage(c) {
		// A send whose database went away before Runner.Submit (signing
		// in, finding the session) stored nothing; Submit marks what it
		// stored itself, and a commit whose answer was lost stays untold.
		err = models.MarkStored(err, models.StoredNo)
	}
	e, internal := toError(err)
	if e.Status == http.StatusServiceUnavailable {
		c.Response().Header().Set("Retry-After", strconv.Itoa(retryAfterSeconds(s.turns.RetryAfter())))
	}
	if internal {
		s.log.Error("request failed", "request_id", requestID(c), "route", c.Path(), "err", err)
	}
	if isAPI(c) {
		var body errorBody
		body.Error.Code, body.Error.Message, body.Error.Turn, body.Error.Stored = e.Code, e.Message, e.Turn, e.Stored
		_ = c.JSON(e.Status, body)
		return
	}
	if e.Status == http.StatusUnauthorized {
		_ = redirectToLogin(c)
		return
	}
	l := localizer(c)
	if fromHTMX(c) {
		c.Response().Header().Set(hxRetarget, "#flash")
		c.Response().Header().Set(hxReswap, "innerHTML")
		_ = render(c, e.Status, views.Flash("error", e.In(l)))
		return
	}
	title := "status." + strconv.Itoa(e.Status)
	if l.T(title) == title {
		title = http.StatusText(e.Status)
	}
	_ = render(c, e.Status, views.ErrorPage(s.page(c, title, ""), e.Status, e.In(l)))
}

func requestID(c echo.Context) string {
	return c.Response().Header().Get(echo.HeaderXRequestID)
}

// logAttrs is how a request is logged: ids, route, status and duration —
// never bodies, queries or any message or note text.
func logAttrs(c echo.Context, status int, latencyMS float64) []any {
	attrs := []any{"request_id", requestID(c), "method", c.Request().Method, "route", c.Path(),
		"status", status, "duration_ms", latencyMS}
	if u := currentUser(c); u != nil {
		attrs = append(attrs, "user_id", u.ID)
	}
	return attrs
}
