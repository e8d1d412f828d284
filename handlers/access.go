package handlers

import (
	"context"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"concierge/memory"
	"concierge/models"
)

// This file is the one access rule of every route, API and console alike
// (SPEC §4). A route declares, on its own line in routes.go, who may call
// it (a rule) and what its path points at (a target); guard resolves the
// target's owning account and decides:
//
//   - nobody signed in: 401 on the API, the login page for pages;
//   - a role the route is not for: 403, whatever the target (no id is
//     confirmed by it);
//   - the caller's own account: allowed when the rule says so (rule.self),
//     refused with rule.notSelf when that is set (an admin never erases or
//     disables themselves), else 403;
//   - someone else's account: allowed for staff on the accounts they
//     manage — support manages travelers only, admins every account — when
//     the rule lets staff act (rule.staff); else 404, so neither a traveler
//     nor support learns that an id exists.
//
// Handlers read the resolved account with subjectOf and decide nothing about
// access themselves.

// rule says who may call a route and on whose account.
type rule struct {
	// roles may call the route at all; empty means every signed-in role.
	roles []models.Role
	// self lets the caller act on their own account.
	self bool
	// travelerSelf lets a traveler (and no other role) act on their own
	// account: a traveler's own notes, where staff accounts have none.
	travelerSelf bool
	// staff lets support and admins act on the accounts they manage.
	staff bool
	// notSelf, when set, is the answer to a caller acting on their own account.
	notSelf error
}

var (
	allRoles       = []models.Role{models.RoleTraveler, models.RoleSupport, models.RoleAdmin}
	travelersOnly  = []models.Role{models.RoleTraveler}
	staffRoles     = []models.Role{models.RoleSupport, models.RoleAdmin}
	adminRole      = []models.Role{models.RoleAdmin}
	travelerAdmins = []models.Role{models.RoleTraveler, models.RoleAdmin}
)

// The rules routes use. A new route picks one of these (or adds one here).
var (
	// ownTraveler: a traveler's own things (chat, memory page, their turns).
	ownTraveler = rule{roles: travelersOnly, self: true}
	// ownAccount: anyone signed in, on their own account (API tokens).
	ownAccount = rule{roles: allRoles, self: true}
	// ownerOrStaff: the owner, or staff managing the owner.
	ownerOrStaff = rule{roles: allRoles, self: true, staff: true}
	// notesWrite: a traveler on their own notes (no reason, no pins), or
	// staff managing the owner (with a reason).
	notesWrite = rule{roles: allRoles, travelerSelf: true, staff: true}
	// staffOnly: staff pages and endpoints (the console, turns, audit).
	staffOnly = rule{roles: staffRoles, staff: true}
	// ownerOrAdmin: the owner or an admin (export).
	ownerOrAdmin = rule{roles: travelerAdmins, self: true, staff: true}
	// adminOnly: admins, on any account (their own included).
	adminOnly = rule{roles: adminRole, staff: true}
	// adminNotSelf: admins on any account but their own (erasure, role,
	// disabling).
	adminNotSelf = rule{roles: adminRole, staff: true, notSelf: errOwnAccount}
	// adminErase: adminNotSelf with erasure's own answer.
	adminErase = rule{roles: adminRole, staff: true, notSelf: errSelfErasure}
)

var (
	errOwnAccount  = &memory.Error{Code: memory.EOWNACCOUNT, Message: "You cannot do this to your own account."}
	errSelfErasure = models.ErrSelfErasure
)

// target finds the account a request points at; ErrNotFound (or errNotFound)
// when it points at nothing. self is the caller, so "me" and the caller's
// own things need no query.
type target func(s *Server, c echo.Context, self *models.User) (ownerID string, err error)

// noTarget is a route about no particular account (a list, a search, the
// caller's own pages).
func noTarget(*Server, echo.Context, *models.User) (string, error) { return "", nil }

// userParam is an account id in the path parameter name; "me" is the caller.
func userParam(name string) target {
	return func(_ *Server, c echo.Context, self *models.User) (string, error) {
		id := c.Param(name)
		if id == "me" {
			return self.ID, nil
		}
		return id, nil
	}
}

// sessionParam is a chat session id in the path parameter name.
func sessionParam(name string) target {
	return func(s *Server, c echo.Context, _ *models.User) (string, error) {
		cs, err := s.store.ChatSessionByID(c.Request().Context(), c.Param(name))
		if err != nil {
			return "", err
		}
		c.Set(sessionKey, cs) // the handler's sessionFor reads it instead of loading it again
		return cs.UserID, nil
	}
}

// jobParam is a consolidation job id in the path parameter name.
func jobParam(name string) target {
	return func(s *Server, c echo.Context, _ *models.User) (string, error) {
		j, err := s.store.JobByID(c.Request().Context(), c.Param(name))
		if err != nil {
			return "", err
		}
		return j.UserID, nil
	}
}

// erasureParam is an erasure request id in the path parameter name: the
// account it would erase, or no account once it was executed (its receipt
// belongs to nobody).
func erasureParam(name string) target {
	return func(s *Server, c echo.Context, _ *models.User) (string, error) {
		r, err := s.store.ErasureRequestByID(c.Request().Context(), c.Param(name))
		if err != nil {
			return "", err
		}
		return r.UserID, nil
	}
}

// reviewParam is a review item id in the path parameter name: the
// traveler it is about.
func reviewParam(name string) target {
	return func(s *Server, c echo.Context, _ *models.User) (string, error) {
		it, err := s.store.ReviewItemByID(c.Request().Context(), c.Param(name))
		if err != nil {
			return "", err
		}
		return it.UserID, nil
	}
}

// tokenParam is an API token id in the path parameter name.
func tokenParam(name string) target {
	return func(s *Server, c echo.Context, _ *models.User) (string, error) {
		t, err := s.store.APITokenByID(c.Request().Context(), c.Param(name))
		if err != nil {
			return "", err
		}
		return t.UserID, nil
	}
}

const subjectKey = "concierge.subject"

// sessionKey holds the chat session a sessionParam target loaded.
const sessionKey = "concierge.session"

// subjectOf is the account the guarded route acts on (the caller for routes
// without a target).
func subjectOf(c echo.Context) *models.User {
	if u, ok := c.Get(subjectKey).(*models.User); ok {
		return u
	}
	return currentUser(c)
}

// manages is the staff half of the rule: support looks after travelers
// only; admins manage every account.
func manages(caller, subject *models.User) bool {
	switch caller.Role {
	case models.RoleAdmin:
		return true
	case models.RoleSupport:
		return subject.Role == models.RoleTraveler
	}
	return false
}

// managedRole is the role of the accounts caller manages besides their own:
// travelers for support, "" (every role) for admins. Listings that span
// accounts (the global audit timeline) filter by it.
func managedRole(caller *models.User) models.Role {
	if caller.Role == models.RoleSupport {
		return models.RoleTraveler
	}
	return ""
}

// visibleTo keeps the accounts caller manages: search results show support
// travelers only.
func visibleTo(caller *models.User, users []models.User) []models.User {
	out := users[:0:0]
	for i := range users {
		if manages(caller, &users[i]) {
			out = append(out, users[i])
		}
	}
	return out
}

// decide applies the rule for caller on the account ownerID ("" for no
// target) and returns the subject account, or the answer to give.
func (s *Server) decide(ctx context.Context, r rule, caller *models.User, ownerID string) (*models.User, error) {
	if !hasRole(caller, r.roles) {
		return nil, errForbidden
	}
	if ownerID == "" {
		return caller, nil
	}
	if ownerID == caller.ID {
		switch {
		case r.notSelf != nil:
			return nil, r.notSelf
		case r.self, r.travelerSelf && caller.Role == models.RoleTraveler, r.staff && manages(caller, caller):
			return caller, nil
		}
		return nil, errForbidden
	}
	if !r.staff || !caller.Role.IsStaff() {
		return nil, errNotFound
	}
	subject, err := s.store.UserByID(ctx, ownerID)
	if err != nil {
		return nil, err
	}
	if !manages(caller, subject) {
		return nil, errNotFound
	}
	return subject, nil
}

// guard is the middleware every route with a signed-in caller carries: it
// authenticates, resolves t and applies r (see the top of this file).
func (s *Server) guard(r rule, t target) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			u := currentUser(c)
			if u == nil {
				return unauthenticated(c)
			}
			if !hasRole(u, r.roles) {
				return refuse(c, errForbidden)
			}
			ownerID, err := t(s, c, u)
			var subject *models.User
			if err == nil {
				subject, err = s.decide(c.Request().Context(), r, u, ownerID)
			}
			if err != nil {
				return refuse(c, err)
			}
			c.Set(subjectKey, subject)
			return next(c)
		}
	}
}

// refuse answers a request the rule turned away. An event stream is told
// inside the stream, which the browser then closes: an error status would
// make it reconnect forever.
func refuse(c echo.Context, err error) error {
	if e, internal := toError(err); !internal && isEventStream(c) {
		msg := "chat.failed.gone"
		if e.Status == http.StatusForbidden {
			msg = e.In(localizer(c))
		}
		return streamRefusal(c, c.Param("id"), msg)
	}
	return err
}

// isEventStream reports whether the request is for an event stream: by its
// Accept header, or by its route (…/stream answers nothing else).
func isEventStream(c echo.Context) bool {
	return strings.Contains(c.Request().Header.Get(echo.HeaderAccept), "text/event-stream") || strings.HasSuffix(c.Path(), "/stream")
}

// unauthenticated answers a request that needs a signed-in caller: 401 with
// a Bearer challenge on the API, the login page (or a note in the event
// stream) for pages.
func unauthenticated(c echo.Context) error {
	if isAPI(c) {
		c.Response().Header().Set(echo.HeaderWWWAuthenticate, `Bearer realm="concierge"`)
		return errUnauthorized
	}
	if strings.Contains(c.Request().Header.Get(echo.HeaderAccept), "text/event-stream") {
		// An event stream cannot follow a redirect; say it in the stream.
		return streamRefusal(c, c.Param("id"), "chat.failed.signed_out")
	}
	return redirectToLogin(c)
}

// actorOf is how the audit trail records the caller.
func actorOf(u *models.User) models.Actor {
	if u.Role.IsStaff() {
		return models.Actor{ID: u.ID, Kind: string(u.Role)}
	}
	return models.Actor{ID: u.ID, Kind: models.ActorTraveler}
}
