package handlers

import "github.com/labstack/echo/v4"

// travelerRoutes registers the traveler's pages: the chat and the memory page.
func (s *Server) travelerRoutes(e *echo.Echo) {
	traveler, own := s.requirePage("traveler"), s.guard(ownTraveler, sessionParam("id"))
	e.GET("/chat", s.chatIndex, traveler)
	e.POST("/chat/sessions", s.chatNew, traveler)
	e.GET("/chat/:id", s.chatShow, own)
	e.POST("/chat/:id/messages", s.chatSend, own)
	e.GET("/chat/:id/stream", s.chatStream, own)   // text/event-stream of the pending answer
	e.GET("/chat/:id/pending", s.chatPending, own) // a bubble that opens the stream again (Retry)
	e.POST("/chat/:id/notes/:note/undo", s.chatUndo, own)
	e.POST("/chat/:id/end", s.chatEnd, own)
	e.GET("/chat/:id/outcome", s.chatOutcome, own)
	e.GET("/chat/:id/title", s.chatTitleForm, own) // the rename form (?cancel=1: the title again)
	e.POST("/chat/:id/title", s.chatRename, own)
	e.POST("/chat/:id/delete", s.chatDelete, own)

	e.GET("/memory", s.myMemory, traveler)
	e.POST("/memory/notes", s.myMemoryAdd, traveler)
	e.GET("/memory/notes/:note", s.myMemoryNote, traveler)          // one note (Cancel of an edit)
	e.GET("/memory/notes/:note/edit", s.myMemoryEditForm, traveler) // its edit form
	e.POST("/memory/notes/:note", s.myMemoryEdit, traveler)
	e.POST("/memory/notes/:note/delete", s.myMemoryDelete, traveler)
	e.POST("/memory/notes/delete-all", s.myMemoryDeleteAll, traveler)
	e.GET("/memory/export", s.myMemoryExport, traveler)
	e.POST("/memory/erasure", s.myMemoryErase, traveler)
	e.POST("/memory/erasure/cancel", s.myMemoryCancelErasure, traveler)

	// The traveler's part of the JSON API (SPEC §4).
	api := e.Group("/api/v1")
	travelers := s.requireAPI("traveler")
	api.GET("/sessions", s.apiListSessions, travelers)
	api.PATCH("/sessions/:id", s.apiRenameSession, s.guard(ownTraveler, sessionParam("id")))
	api.DELETE("/sessions/:id", s.apiDeleteSession, s.guard(ownTraveler, sessionParam("id")))
	// The traveler's own notes go through /users/{id}/notes (routes_console.go),
	// where the owner needs no reason and cannot pin.
	api.DELETE("/users/me/erasure-request", s.apiCancelErasure, travelers)
}
