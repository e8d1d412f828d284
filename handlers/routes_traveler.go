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

	e.GET("/memory", s.myMemory, traveler)
	e.POST("/memory/notes/:note/delete", s.myMemoryDelete, traveler)
	e.POST("/memory/notes/delete-all", s.myMemoryDeleteAll, traveler)
	e.GET("/memory/export", s.myMemoryExport, traveler)
	e.POST("/memory/erasure", s.myMemoryErase, traveler)
}
