package handlers

// This file holds what every console page shares: how it shows instants,
// accounts and the flash after a change.

import (
	"time"

	"concierge/models"
	"concierge/views"
)

// consoleTime is how the console shows instants (UTC).
const consoleTime = "2006-01-02 15:04 UTC"

func fmtTime(t time.Time) string { return t.UTC().Format(consoleTime) }

func toConsoleUser(u *models.User) views.ConsoleUser {
	return views.ConsoleUser{ID: u.ID, Name: u.Name, Email: u.Email, Role: string(u.Role), Language: u.Language}
}

// flashMessage turns a post-redirect-get marker into a confirmation.
func flashMessage(done string) string {
	switch done {
	case "profile":
		return "Profile saved. The change is in the audit trail."
	case "note":
		return "Note added. The change is in the audit trail."
	case "erasure":
		return "Erasure request created. Execute it from the erasure queue."
	case "retry":
		return "The consolidation was queued again."
	}
	return ""
}
