package handlers

// This file holds what every console page shares: how it shows instants,
// accounts and the flash after a change.

import (
	"time"

	"concierge/models"
	"concierge/views"
	"concierge/views/locale"
)

// fmtTime is how the console shows an instant: the day in the reader's
// language and the time of day, in UTC.
func fmtTime(l *locale.Localizer, t time.Time) string {
	t = t.UTC()
	return l.T("date.time", "Date", l.Date(t), "Time", t.Format("15:04"))
}

func toConsoleUser(u *models.User) views.ConsoleUser {
	return views.ConsoleUser{ID: u.ID, Name: u.Name, Email: u.Email, Role: string(u.Role), Language: u.Language}
}

// flashMessage turns a post-redirect-get marker into a confirmation in
// the reader's language.
func flashMessage(l *locale.Localizer, done string) string {
	switch done {
	case "profile", "note", "erasure", "retry":
		return l.T("flash." + done)
	}
	return ""
}
