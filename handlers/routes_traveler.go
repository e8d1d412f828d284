package handlers

import "github.com/labstack/echo/v4"

// travelerRoutes registers the traveler's pages: the chat and the memory page.
func (s *Server) travelerRoutes(e *echo.Echo) {
	traveler := s.requirePage("traveler")
	e.GET("/chat", s.notYet("Chat", "The chat", 5), traveler)
	e.GET("/memory", s.notYet("What Concierge remembers", "The memory page", 5), traveler)
}
