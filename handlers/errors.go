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
)

// Error is a failure to show to the client: an HTTP status, a stable
// machine-readable code and a message written for people.
type Error struct {
	Status  int
	Code    string
	Message string
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

// Common errors.
var (
	errUnauthorized = newError(http.StatusUnauthorized, "unauthorized", "Sign in to continue.")
	errForbidden    = newError(http.StatusForbidden, "forbidden", "You do not have access to this.")
	errNotFound     = newError(http.StatusNotFound, "not_found", "We could not find what you were looking for.")
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

// userMessage is the message a person sees for err, through the same
// mapping as every error response: a form that shows the error beside its
// control uses it instead of asserting err's type.
func userMessage(err error) string {
	e, _ := toError(err)
	return e.Message
}

// toError maps any error to the Error the client sees; internal reports
// whether it is our fault (and must be logged) rather than the client's.
func toError(err error) (e *Error, internal bool) {
	var he *echo.HTTPError
	var de *memory.Error
	var me *agent.ModelError
	var locked *models.LockedError
	switch {
	case errors.As(err, &e):
		return e, e.Status >= 500
	case errors.Is(err, context.Canceled):
		// The request's context ended: its client hung up (or shutdown
		// gave up on it). Nobody reads the answer; it is not our failure.
		return errClientGone, false
	case errors.Is(err, agent.ErrOverloaded):
		return newError(http.StatusServiceUnavailable, "overloaded", "Concierge is answering many travelers right now. Try again in a few seconds; nothing was stored."), false
	case errors.Is(err, agent.ErrDraining):
		return newError(http.StatusServiceUnavailable, "restarting", "Concierge is restarting. Try again in a few seconds; nothing was stored."), false
	case errors.As(err, &locked):
		// Sign-in refusals never tell which part was wrong, nor whether an
		// account has that email.
		wait := time.Until(locked.Until).Round(time.Second)
		if wait < time.Second {
			wait = time.Second
		}
		return newError(http.StatusTooManyRequests, "locked",
			"Too many failed sign-ins from here with this email. Try again in "+wait.String()+"."), false
	case errors.Is(err, models.ErrBadCredentials):
		return newError(http.StatusUnauthorized, "bad_credentials", "That email and password do not match."), false
	case errors.Is(err, models.ErrWrongPassword):
		return newError(http.StatusForbidden, "bad_credentials", "The current password is not right."), false
	case errors.As(err, &de):
		if status, ok := domainStatus[de.Code]; ok {
			msg := de.Message
			if de.Note != nil {
				msg = noteRefusalMessage(de.Note)
			}
			return &Error{Status: status, Code: de.Code, Message: msg, Turn: de.Turn}, status >= 500
		}
	case errors.As(err, &me):
		// The user's message is stored before the model is called.
		return newError(http.StatusBadGateway, "model_unavailable", agent.Explain(me)+" Your message is saved: send it again to retry."), false
	case models.IsUnavailable(err):
		return unavailableError(err), true
	case errors.As(err, &he):
		switch he.Code {
		case http.StatusNotFound:
			return errNotFound, false
		case http.StatusMethodNotAllowed:
			return newError(he.Code, "method_not_allowed", "That method is not allowed here."), false
		case http.StatusRequestEntityTooLarge:
			return newError(he.Code, "too_large", "The request is too large."), false
		case http.StatusTooManyRequests:
			return newError(he.Code, "rate_limited", "Too many attempts. Wait a minute and try again."), false
		case http.StatusForbidden, http.StatusBadRequest:
			if strings.Contains(fmt.Sprint(he.Message), "csrf") {
				return newError(http.StatusForbidden, "csrf", "Your form expired. Reload the page and try again."), false
			}
			return newError(he.Code, "bad_request", fmt.Sprint(he.Message)), false
		case http.StatusUnauthorized:
			return errUnauthorized, false
		case http.StatusServiceUnavailable:
			return newError(he.Code, "unavailable", "The service is not available right now."), true
		}
		if he.Code < 500 {
			return newError(he.Code, "bad_request", http.StatusText(he.Code)), false
		}
	}
	return newError(http.StatusInternalServerError, "internal", "Something went wrong on our side. Please try again."), true
}

// noteRefusalMessage words the guard's refusal of a note for whoever wrote
// it: the traveler in their terms (what to change), staff plainly; never
// the refused text.
func noteRefusalMessage(r *memory.NoteRefusal) string {
	if !r.Own {
		return "The note was not saved: " + strings.TrimPrefix(r.Message, "Not saved: ")
	}
	switch r.Category {
	case memory.CategoryTooLong:
		return "Not saved: a note holds at most 180 characters and this one has " +
			strconv.Itoa(r.Chars) + ". Shorten it to one short sentence."
	case memory.CategoryBadFormat:
		return "Not saved: write one or two short sentences."
	case memory.CategoryBadKeywords:
		return "Not saved: say in a few words what the note is about (for example “Prefers aisle seats.”)."
	}
	return views.BlockedNotice(r.Category)
}

// unavailableError is the 503 of a database that is away or refuses
// writes, saying whether the request's message was stored.
func unavailableError(err error) *Error {
	var ue *models.UnavailableError
	stored := models.StoredUnknown
	if errors.As(err, &ue) {
		stored = ue.Stored
	}
	e := newError(http.StatusServiceUnavailable, "unavailable", "Concierge cannot reach its database right now. Try again in a few seconds.")
	switch stored {
	case models.StoredNo:
		no := false
		e.Stored = &no
		e.Message = "Concierge cannot reach its database right now; your message was not stored. Send it again (with the same Idempotency-Key) in a few seconds."
	case models.StoredYes:
		yes := true
		e.Stored = &yes
		e.Message = "Concierge cannot reach its database right now; your message is saved. Send it again (with the same Idempotency-Key) in a few seconds to get its answer."
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
	if fromHTMX(c) {
		c.Response().Header().Set(hxRetarget, "#flash")
		c.Response().Header().Set(hxReswap, "innerHTML")
		_ = render(c, e.Status, views.Flash("error", e.Message))
		return
	}
	title := http.StatusText(e.Status)
	_ = render(c, e.Status, views.ErrorPage(s.page(c, title, ""), e.Status, e.Message))
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
