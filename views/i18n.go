package views

import (
	"context"
	"time"

	"concierge/views/locale"
)

// T is the one translate helper the components call: the message id in
// the request's language (see locale), with {{.Name}} fields from pairs of
// name and value.
func T(ctx context.Context, id string, pairs ...any) string {
	return locale.From(ctx).T(id, pairs...)
}

// N is T for a message with plural forms, chosen for n.
func N(ctx context.Context, id string, n int, pairs ...any) string {
	return locale.From(ctx).N(id, n, pairs...)
}

// Number is n with the digit grouping of the request's language.
func Number(ctx context.Context, n int) string { return locale.From(ctx).Number(n) }

// Lang is the request's language code, for <html lang>.
func Lang(ctx context.Context) string { return locale.From(ctx).Lang() }

// Date is a day written in the request's language.
func Date(ctx context.Context, t time.Time) string { return locale.From(ctx).Date(t) }

// Day is a YYYY-MM-DD date written in the request's language; anything
// else is shown as it is.
func Day(ctx context.Context, day string) string { return locale.From(ctx).Day(day) }

// Untitled is a conversation's title, or "New conversation" in the
// request's language while it has none.
func Untitled(ctx context.Context, title string) string {
	if title == "" {
		return T(ctx, "chat.new")
	}
	return title
}

// LanguageName is a language's name in that language, for the choice of
// language on the account page.
func LanguageName(lang string) string {
	switch lang {
	case "en":
		return "English"
	case "es":
		return "Español"
	case "ru":
		return "Русский"
	}
	return lang
}
