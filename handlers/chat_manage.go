package handlers

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"concierge/views"
)

// The traveler renames and deletes conversations from the chat page; the
// JSON API twins are in api_traveler.go and share its functions.

// chatDeletedNotice is shown on the page a deleted conversation leads to.
const chatDeletedNotice = "chat.deleted"

// chatTitleForm is the rename form, or (with ?cancel=1) the title again.
func (s *Server) chatTitleForm(c echo.Context) error {
	cs, err := s.sessionFor(c, false)
	if err != nil {
		return err
	}
	if c.QueryParam("cancel") != "" {
		announce(c, "", "#rename-session")
		return render(c, http.StatusOK, views.ChatTitle(cs.ID, chatTitle(cs)))
	}
	return render(c, http.StatusOK, views.ChatTitleForm(cs.ID, cs.Title, csrfToken(c)))
}

// chatRename gives the conversation the title the traveler typed.
func (s *Server) chatRename(c echo.Context) error {
	cs, err := s.renameSession(c, c.FormValue("title"))
	if err != nil {
		return err
	}
	if !fromHTMX(c) {
		return c.Redirect(http.StatusSeeOther, "/chat/"+cs.ID)
	}
	announce(c, localizer(c).T("chat.say.renamed", "Title", cs.Title), "#rename-session")
	return render(c, http.StatusOK, views.RenameResult(cs.ID, chatTitle(cs)))
}

// chatDelete deletes the conversation and goes back to the chat.
func (s *Server) chatDelete(c echo.Context) error {
	if err := s.deleteSession(c); err != nil {
		return err
	}
	if fromHTMX(c) {
		c.Response().Header().Set(hxRedirect, "/chat?deleted=1")
		return c.NoContent(http.StatusOK)
	}
	return c.Redirect(http.StatusSeeOther, "/chat?deleted=1")
}

// chatNotice is the status line a page shows after a change made elsewhere.
func chatNotice(c echo.Context) string {
	if c.QueryParam("deleted") != "" {
		return localizer(c).T(chatDeletedNotice)
	}
	return ""
}
