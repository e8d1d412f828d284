package handlers

import "github.com/labstack/echo/v4"

// travelerRoutes registers the traveler's pages: the chat and the memory page.
func (s *Server) travelerRoutes(e *echo.Echo) {
	traveler := s.requirePage("traveler")
	e.GET("/chat", s.chatIndex, traveler)
	e.POST("/chat/sessions", s.chatNew, traveler)
	e.GET("/chat/:id", s.chatShow, traveler)
	e.POST("/chat/:id/messages", s.chatSend, traveler)
	e.GET("/chat/:id/stream", s.chatStream, traveler)   // text/event-stream of the pending answer
	e.GET("/chat/:id/pending", s.chatPending, traveler) // a bubble that opens the stream again (Retry)
	e.POST("/chat/:id/notes/:note/undo", s.chatUndo, traveler)
	e.POST("/chat/:id/end", s.chatEnd, traveler)
	e.GET("/chat/:id/outcome", s.chatOutcome, traveler)
	e.GET("/chat/:id/title", s.chatTitleForm, traveler) // the rename form (?cancel=1: the title again)
	e.POST("/chat/:id/title", s.chatRename, traveler)
	e.POST("/chat/:id/delete", s.chatDelete, traveler)

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

	// The traveler's part of the JSON API (SPEC §4). The "me" note routes
	// are static, so Echo picks them before the staff /users/:id routes;
	// a traveler using their own id is sent here by api_console.go.
	api := e.Group("/api/v1")
	travelers := s.requireAPI("traveler")
	api.GET("/sessions", s.apiListSessions, travelers)
	api.PATCH("/sessions/:id", s.apiRenameSession, travelers)
	api.DELETE("/sessions/:id", s.apiDeleteSession, travelers)
	api.POST("/users/me/notes", s.apiOwnerCreateNote, travelers)
	api.PATCH("/users/me/notes/:note", s.apiOwnerUpdateNote, travelers)
	api.DELETE("/users/me/notes/:note", s.apiOwnerDeleteNote, travelers)
	api.DELETE("/users/me/erasure-request", s.apiCancelErasure, travelers)
}
