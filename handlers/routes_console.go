package handlers

import "github.com/labstack/echo/v4"

// consoleRoutes registers the support and admin console: its pages and its
// part of the JSON API (SPEC §4). Every route names its access rule and
// target (access.go).
func (s *Server) consoleRoutes(e *echo.Echo) {
	staff, admin := s.guard(staffOnly, noTarget), s.guard(adminOnly, noTarget)
	customer, session := s.guard(staffOnly, userParam("id")), s.guard(staffOnly, sessionParam("id"))
	e.GET("/console", s.consoleSearch, staff)
	e.GET("/console/customers/:id", s.consoleCustomer, customer)
	e.GET("/console/customers/:id/preview", s.consolePreview, customer)
	e.POST("/console/customers/:id/profile", s.consoleSaveProfile, customer)
	e.POST("/console/customers/:id/notes", s.consoleAddNote, customer)
	e.GET("/console/customers/:id/notes/:note", s.consoleNote(""), customer)
	e.GET("/console/customers/:id/notes/:note/edit", s.consoleNote("edit"), customer)
	e.POST("/console/customers/:id/notes/:note", s.consoleUpdateNote, customer)
	e.GET("/console/customers/:id/notes/:note/delete", s.consoleNote("delete"), customer)
	e.POST("/console/customers/:id/notes/:note/delete", s.consoleDeleteNote, customer)
	e.GET("/console/customers/:id/audit", s.consoleAudit, customer)
	e.GET("/console/customers/:id/consolidations", s.consoleConsolidations, customer)
	e.GET("/console/customers/:id/export", s.consoleExport, s.guard(adminOnly, userParam("id")))
	e.POST("/console/customers/:id/erasure-request", s.consoleCreateErasure, s.guard(adminErase, userParam("id")))
	e.GET("/console/sessions/:id", s.consoleSession, session)
	e.GET("/console/sessions/:id/turns/:turn", s.consoleTurn, session)
	e.POST("/console/jobs/:job/retry", s.consoleRetryJob, s.guard(staffOnly, jobParam("job")))
	e.GET("/console/audit", s.consoleAudit, staff)
	e.GET("/console/health", s.consoleHealth, staff)
	e.GET("/console/erasure", s.consoleErasure, admin)
	e.POST("/console/erasure/:req/execute", s.consoleExecuteErasure, s.guard(adminErase, erasureParam("req")))
	e.GET("/console/accounts", s.consoleAccounts, admin)
	e.POST("/console/accounts", s.consoleCreateAccount, admin)
	e.POST("/console/accounts/:id/role", s.consoleChangeRole, s.guard(adminNotSelf, userParam("id")))
	e.POST("/console/accounts/:id/disable", s.consoleSetDisabled(true), s.guard(adminNotSelf, userParam("id")))
	e.POST("/console/accounts/:id/enable", s.consoleSetDisabled(false), s.guard(adminNotSelf, userParam("id")))
	e.POST("/console/accounts/:id/password", s.consoleResetPassword, s.guard(adminOnly, userParam("id")))
	e.GET("/account/tokens", s.tokensPage, s.guard(ownAccount, noTarget))
	e.POST("/account/tokens/:id/revoke", s.tokensPageRevoke, s.guard(ownAccount, tokenParam("id")))

	api := e.Group("/api/v1")
	user := userParam("id")
	api.GET("/users", s.apiSearchUsers, s.guard(staffOnly, noTarget))
	api.POST("/users", s.apiCreateUser, s.guard(adminOnly, noTarget))
	api.PATCH("/users/:id", s.apiPatchUser, s.guard(adminNotSelf, user))
	api.POST("/users/:id/notes", s.apiCreateNote, s.guard(notesWrite, user))
	api.PATCH("/users/:id/notes/:note", s.apiUpdateNote, s.guard(notesWrite, user))
	api.DELETE("/users/:id/notes/:note", s.apiDeleteNote, s.guard(ownerOrStaff, user))
	api.GET("/users/:id/audit", s.apiAudit, s.guard(staffOnly, user))
	api.GET("/users/:id/export", s.apiExport, s.guard(ownerOrAdmin, user))
	api.POST("/users/me/erasure-request", s.apiRequestErasure, s.guard(ownTraveler, noTarget))
	api.GET("/erasure-requests", s.apiErasureRequests, s.guard(adminOnly, noTarget))
	api.POST("/users/:id/erase", s.apiErase, s.guard(adminErase, user))
}
