package handlers

import (
	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"
)

// routes registers every route: the whole HTTP surface is in this
// function. Every route with a signed-in caller names its access rule and
// what its path points at (access.go). Middleware is attached per route: an
// Echo group with middleware would also catch every unknown path under its
// prefix.
func (s *Server) routes() {
	e := s.echo
	e.Pre(middleware.RequestIDWithConfig(middleware.RequestIDConfig{Generator: newRequestID}))
	e.Pre(noStore)
	e.Use(s.traceRequests(), s.logRequests(), s.recoverPanics, securityHeaders, middleware.BodyLimit(s.cfg.BodyLimit), rejectBadBytes)
	e.Use(s.authenticate, s.localize, s.csrf())

	e.GET("/healthz", s.healthz)
	e.GET("/metrics", s.metrics.handler(), s.requireAPI("support", "admin"))
	e.GET("/static/*", echo.WrapHandler(s.assets))

	limited := s.loginLimiter()
	e.GET("/login", s.loginPage)
	e.POST("/login", s.login, limited)
	e.POST("/logout", s.logout)
	e.GET("/", s.home, s.requirePage())

	// The traveler's pages: the chat and the memory page.
	traveler, own := s.requirePage("traveler"), s.guard(ownTraveler, sessionParam("id"))
	e.GET("/chat", s.chatIndex, traveler)
	e.POST("/chat/sessions", s.chatNew, traveler)
	e.GET("/chat/:id", s.chatShow, own)
	e.POST("/chat/:id/messages", s.chatSend, own)
	e.GET("/chat/:id/stream", s.chatStream, own)   // text/event-stream of the pending answer
	e.GET("/chat/:id/pending", s.chatPending, own) // a bubble that opens the stream again (Retry)
	e.POST("/chat/:id/notes/:note/undo", s.chatUndo, own)
	e.POST("/chat/:id/notes/:note/restore", s.chatRestore, own)
	e.POST("/chat/:id/end", s.chatEnd, own)
	e.GET("/chat/:id/outcome", s.chatOutcome, own)
	e.GET("/chat/:id/title", s.chatTitleForm, own) // the rename form (?cancel=1: the title again)
	e.POST("/chat/:id/title", s.chatRename, own)
	e.POST("/chat/:id/delete", s.chatDelete, own)
	e.POST("/chat/:id/trip", s.chatPickTrip, own) // the side panel's trip picker

	e.GET("/memory", s.myMemory, traveler)
	e.POST("/memory/notes", s.myMemoryAdd, traveler)
	e.GET("/memory/notes/:note", s.myMemoryNote, traveler)          // one note (Cancel of an edit)
	e.GET("/memory/notes/:note/edit", s.myMemoryEditForm, traveler) // its edit form
	e.POST("/memory/notes/:note", s.myMemoryEdit, traveler)
	e.POST("/memory/notes/:note/delete", s.myMemoryDelete, traveler)
	e.POST("/memory/notes/delete-all", s.myMemoryDeleteAll, traveler)
	e.POST("/memory/trips/:trip", s.myTripEdit, traveler)
	e.POST("/memory/trips/:trip/delete", s.myTripDelete, traveler)
	e.GET("/memory/export", s.myMemoryExport, traveler)
	e.POST("/memory/erasure", s.myMemoryErase, traveler)
	e.POST("/memory/erasure/cancel", s.myMemoryCancelErasure, traveler)

	// The support and admin console.
	staff, admin := s.guard(staffOnly, noTarget), s.guard(adminOnly, noTarget)
	customer, staffSession := s.guard(staffOnly, userParam("id")), s.guard(staffOnly, sessionParam("id"))
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
	e.GET("/console/customers/:id/trips/:trip", s.consoleTrip(""), customer)
	e.GET("/console/customers/:id/trips/:trip/edit", s.consoleTrip("edit"), customer)
	e.POST("/console/customers/:id/trips/:trip", s.consoleUpdateTrip, customer)
	e.GET("/console/customers/:id/audit", s.consoleAudit, customer)
	e.GET("/console/customers/:id/consolidations", s.consoleConsolidations, customer)
	e.GET("/console/customers/:id/export", s.consoleExport, s.guard(adminOnly, userParam("id")))
	e.POST("/console/customers/:id/erasure-request", s.consoleCreateErasure, s.guard(adminErase, userParam("id")))
	e.GET("/console/sessions/:id", s.consoleSession, staffSession)
	e.GET("/console/sessions/:id/turns/:turn", s.consoleTurn, staffSession)
	e.POST("/console/jobs/:job/retry", s.consoleRetryJob, s.guard(staffOnly, jobParam("job")))
	e.GET("/console/review", s.consoleReview, staff)
	e.POST("/console/review/:item/claim", s.consoleClaimReview, s.guard(staffOnly, reviewParam("item")))
	e.POST("/console/review/:item/resolve", s.consoleResolveReview, s.guard(staffOnly, reviewParam("item")))
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

	// Anyone signed in: their own API tokens.
	e.GET("/account/tokens", s.tokensPage, s.guard(ownAccount, noTarget))
	e.POST("/account/tokens", s.tokensPageCreate, s.guard(ownAccount, noTarget))
	e.POST("/account/tokens/:id/revoke", s.tokensPageRevoke, s.guard(ownAccount, tokenParam("id")))
	e.POST("/account/password", s.accountChangePassword, s.guard(ownAccount, noTarget))
	e.POST("/account/language", s.accountLanguage, s.guard(ownAccount, noTarget))

	// The JSON API (SPEC §4), bearer tokens.
	api := e.Group("/api/v1")
	anyone, travelers := s.requireAPI(), s.requireAPI("traveler")
	session, job, user := sessionParam("id"), jobParam("job"), userParam("id")
	api.POST("/auth/token", s.apiToken, limited)
	api.GET("/me", s.apiMe, anyone)
	api.POST("/users/me/password", s.apiChangePassword, anyone)
	api.GET("/tokens", s.apiTokens, anyone)
	api.DELETE("/tokens/:id", s.apiRevokeToken, s.guard(ownAccount, tokenParam("id")))

	api.GET("/sessions", s.apiListSessions, travelers)
	api.POST("/sessions", s.apiCreateSession, travelers)
	api.GET("/sessions/:id", s.apiGetSession, s.guard(ownerOrStaff, session))
	api.PATCH("/sessions/:id", s.apiRenameSession, s.guard(ownTraveler, session))
	api.DELETE("/sessions/:id", s.apiDeleteSession, s.guard(ownTraveler, session))
	api.POST("/sessions/:id/messages", s.apiPostMessage, s.guard(ownTraveler, session))
	api.POST("/sessions/:id/notes/:note/restore", s.apiRestoreNote, s.guard(ownTraveler, session))
	api.GET("/sessions/:id/turns", s.apiGetTurns, s.guard(staffOnly, session))
	api.POST("/sessions/:id/close", s.apiCloseSession, s.guard(ownerOrStaff, session))
	api.POST("/sessions/:id/trip", s.apiAttachTrip, s.guard(ownTraveler, session))
	api.GET("/consolidations/:job", s.apiGetConsolidation, s.guard(ownerOrStaff, job))

	api.GET("/users", s.apiSearchUsers, s.guard(staffOnly, noTarget))
	api.POST("/users", s.apiCreateUser, s.guard(adminOnly, noTarget))
	api.PATCH("/users/:id", s.apiPatchUser, s.guard(adminNotSelf, user))
	api.GET("/users/:id/memory", s.apiGetMemory, s.guard(ownerOrStaff, user))
	// A traveler's own notes go through the same routes, where the owner
	// gives no reason and cannot pin.
	api.POST("/users/:id/notes", s.apiCreateNote, s.guard(notesWrite, user))
	api.PATCH("/users/:id/notes/:note", s.apiUpdateNote, s.guard(notesWrite, user))
	api.DELETE("/users/:id/notes/:note", s.apiDeleteNote, s.guard(ownerOrStaff, user))
	api.GET("/schema/profile", s.apiProfileSchema, anyone)
	api.PUT("/users/:id/profile", s.apiPutProfile, s.guard(staffOnly, user))
	// Trips: the owner and staff; staff give a reason (audited).
	api.GET("/users/:id/trips", s.apiListTrips, s.guard(ownerOrStaff, user))
	api.POST("/users/:id/trips", s.apiCreateTrip, s.guard(notesWrite, user))
	api.PATCH("/users/:id/trips/:trip", s.apiPatchTrip, s.guard(notesWrite, user))
	api.DELETE("/users/:id/trips/:trip", s.apiDeleteTrip, s.guard(ownerOrStaff, user))
	api.GET("/users/:id/audit", s.apiAudit, s.guard(staffOnly, user))
	api.GET("/users/:id/export", s.apiExport, s.guard(ownerOrAdmin, user))
	api.POST("/users/me/erasure-request", s.apiRequestErasure, s.guard(ownTraveler, noTarget))
	api.DELETE("/users/me/erasure-request", s.apiCancelErasure, travelers)
	api.GET("/erasure-requests", s.apiErasureRequests, s.guard(adminOnly, noTarget))
	api.GET("/erasure-receipts.csv", s.apiErasureReceiptsCSV, s.guard(adminOnly, noTarget))
	api.GET("/review", s.apiReview, s.guard(staffOnly, noTarget))
	api.POST("/review/:item/claim", s.apiClaimReview, s.guard(staffOnly, reviewParam("item")))
	api.POST("/review/:item/resolve", s.apiResolveReview, s.guard(staffOnly, reviewParam("item")))
	api.POST("/users/:id/erase", s.apiErase, s.guard(adminErase, user))
}
