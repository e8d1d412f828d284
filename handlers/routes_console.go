package handlers

import "github.com/labstack/echo/v4"

// consoleRoutes registers the support and admin console: its pages and its
// part of the JSON API (SPEC §4).
func (s *Server) consoleRoutes(e *echo.Echo) {
	staff, admin := s.requirePage("support", "admin"), s.requirePage("admin")
	e.GET("/console", s.consoleSearch, staff)
	e.GET("/console/customers/:id", s.consoleCustomer, staff)
	e.POST("/console/customers/:id/profile", s.consoleSaveProfile, staff)
	e.POST("/console/customers/:id/notes", s.consoleAddNote, staff)
	e.GET("/console/customers/:id/notes/:note", s.consoleNote(""), staff)
	e.GET("/console/customers/:id/notes/:note/edit", s.consoleNote("edit"), staff)
	e.POST("/console/customers/:id/notes/:note", s.consoleUpdateNote, staff)
	e.GET("/console/customers/:id/notes/:note/delete", s.consoleNote("delete"), staff)
	e.POST("/console/customers/:id/notes/:note/delete", s.consoleDeleteNote, staff)
	e.GET("/console/customers/:id/audit", s.consoleAudit, staff)
	e.GET("/console/customers/:id/consolidations", s.consoleConsolidations, staff)
	e.GET("/console/customers/:id/export", s.consoleExport, admin)
	e.POST("/console/customers/:id/erasure-request", s.consoleCreateErasure, admin)
	e.GET("/console/sessions/:id", s.consoleSession, staff)
	e.GET("/console/sessions/:id/turns/:turn", s.consoleTurn, staff)
	e.POST("/console/jobs/:job/retry", s.consoleRetryJob, staff)
	e.GET("/console/audit", s.consoleAudit, staff)
	e.GET("/console/health", s.consoleHealth, staff)
	e.GET("/console/erasure", s.consoleErasure, admin)
	e.POST("/console/erasure/:req/execute", s.consoleExecuteErasure, admin)
	e.GET("/console/accounts", s.consoleAccounts, admin)
	e.POST("/console/accounts/:id/role", s.consoleChangeRole, admin)

	api := e.Group("/api/v1")
	anyone, travelers, staffAPI, adminAPI := s.requireAPI(), s.requireAPI("traveler"), s.requireAPI("support", "admin"), s.requireAPI("admin")
	api.GET("/users", s.apiSearchUsers, staffAPI)
	// The /users/{id} endpoints admit any signed-in caller and decide in
	// the handler, so a traveler gets 404 for someone else's id (never a
	// 403 that confirms it exists).
	api.POST("/users/:id/notes", s.apiCreateNote, anyone)
	api.PATCH("/users/:id/notes/:note", s.apiUpdateNote, anyone)
	api.DELETE("/users/:id/notes/:note", s.apiDeleteNote, anyone)
	api.GET("/users/:id/audit", s.apiAudit, anyone)
	api.GET("/users/:id/export", s.apiExport, anyone)
	api.POST("/users/me/erasure-request", s.apiRequestErasure, travelers)
	api.GET("/erasure-requests", s.apiErasureRequests, adminAPI)
	api.POST("/users/:id/erase", s.apiErase, anyone)
}
