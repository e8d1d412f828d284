// Package locale is Concierge's one way to speak the traveler's language:
// the message catalogues (one YAML file per language, beside this file),
// CLDR plural rules through go-i18n, and dates and numbers written as the
// language writes them. The handlers choose the language once per request
// (the account's setting, else Accept-Language, else English) and put a
// Localizer in the request's context; views and handlers translate with it.
package locale

import (
	"context"
	"embed"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/nicksnyder/go-i18n/v2/i18n"
	"go.yaml.in/yaml/v3"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
	"golang.org/x/text/number"
)

// Languages are the languages Concierge's pages are written in, the
// default first.
var Languages = []string{"en", "es", "ru"}

// Default is the language when nothing else says which.
const Default = "en"

//go:embed en.yaml es.yaml ru.yaml
var files embed.FS

// catalogue is the parsed catalogues, built once from the embedded files
// and never changed after.
var catalogue = sync.OnceValues(func() (*i18n.Bundle, error) {
	b := i18n.NewBundle(language.English)
	b.RegisterUnmarshalFunc("yaml", yaml.Unmarshal)
	for _, lang := range Languages {
		if _, err := b.LoadMessageFileFS(files, lang+".yaml"); err != nil {
			return nil, fmt.Errorf("locale: %s.yaml: %w", lang, err)
		}
	}
	return b, nil
})

var matcher = language.NewMatcher([]language.Tag{language.English, language.Spanish, language.Russian})

// Supported reports whether lang is one of Languages.
func Supported(lang string) bool {
	for _, l := range Languages {
		if l == lang {
			return true
		}
	}
	return false
}

// FromAcceptLanguage is the supported language an Accept-Language header
// asks for first, or "" when it asks for none of them.
func FromAcceptLanguage(header string) string {
	tags, _, err := language.ParseAcceptLanguage(header)
	if err != nil || len(tags) == 0 {
		return ""
	}
	_, i, conf := matcher.Match(tags...)
	if conf == language.No {
		return ""
	}
	return Languages[i]
}

// Localizer writes the messages, dates and numbers of one language.
type Localizer struct {
	lang    string
	l       *i18n.Localizer
	printer *message.Printer
}

var localizers = sync.OnceValues(func() (map[string]*Localizer, error) {
	b, err := catalogue()
	if err != nil {
		return nil, err
	}
	out := map[string]*Localizer{}
	for _, lang := range Languages {
		out[lang] = &Localizer{lang: lang, l: i18n.NewLocalizer(b, lang, Default), printer: message.NewPrinter(language.Make(lang))}
	}
	return out, nil
})

// For is the Localizer of lang (English for a language Concierge does not
// speak). It panics when the embedded catalogues do not parse, which the
// package's tests rule out.
func For(lang string) *Localizer {
	ls, err := localizers()
	if err != nil {
		panic(err)
	}
	if l, ok := ls[lang]; ok {
		return l
	}
	return ls[Default]
}

// Lang is the localizer's language code (en, es, ru), for <html lang>.
func (l *Localizer) Lang() string { return l.lang }

// T is the message id with its {{.Name}} fields filled from pairs of
// name and value ("Name", "Priya"). An id missing from every catalogue
// comes back as itself, so a test can find it.
func (l *Localizer) T(id string, pairs ...any) string {
	s, err := l.l.Localize(&i18n.LocalizeConfig{MessageID: id, TemplateData: data(pairs)})
	if err != nil {
		return id
	}
	return s
}

// N is the message id in the plural form the language uses for n (Russian
// has one, few and many), with {{.Count}} written as a number of the
// language and other fields from pairs.
func (l *Localizer) N(id string, n int, pairs ...any) string {
	d := data(pairs)
	d["Count"] = l.Number(n)
	s, err := l.l.Localize(&i18n.LocalizeConfig{MessageID: id, PluralCount: n, TemplateData: d})
	if err != nil {
		return id
	}
	return s
}

// Number writes n with the language's digit grouping (1,234 · 1234 · 1 234).
func (l *Localizer) Number(n int) string {
	return l.printer.Sprint(number.Decimal(n))
}

// Date writes a day as the language does: "2 Dec 2026", "2 dic 2026",
// "2 дек. 2026 г.".
func (l *Localizer) Date(t time.Time) string {
	months := strings.Fields(l.T("date.months"))
	month := t.Month().String()
	if len(months) == 12 {
		month = months[t.Month()-1]
	}
	return l.T("date.day_month_year", "Day", strconv.Itoa(t.Day()), "Month", month, "Year", strconv.Itoa(t.Year()))
}

// DayMonth writes a YYYY-MM-DD date without its year, short, for a
// chart's axis: "Mar 2", "2 mar", "2 мар."; anything else as it is.
func (l *Localizer) DayMonth(day string) string {
	t, err := time.Parse("2006-01-02", day)
	if err != nil {
		return day
	}
	months := strings.Fields(l.T("date.months"))
	month := t.Month().String()
	if len(months) == 12 {
		month = months[t.Month()-1]
	}
	return l.T("date.day_month", "Day", strconv.Itoa(t.Day()), "Month", month)
}

// Day writes a YYYY-MM-DD date as Date does; anything else as it is.
func (l *Localizer) Day(day string) string {
	t, err := time.Parse("2006-01-02", day)
	if err != nil {
		return day
	}
	return l.Date(t)
}

func data(pairs []any) map[string]any {
	d := make(map[string]any, len(pairs)/2+1)
	for i := 0; i+1 < len(pairs); i += 2 {
		if k, ok := pairs[i].(string); ok {
			d[k] = pairs[i+1]
		}
	}
	return d
}

type ctxKey struct{}

// With is ctx carrying l.
func With(ctx context.Context, l *Localizer) context.Context {
	return context.WithValue(ctx, ctxKey{}, l)
}

// From is the Localizer ctx carries, or English's.
func From(ctx context.Context) *Localizer {
	if l, ok := ctx.Value(ctxKey{}).(*Localizer); ok && l != nil {
		return l
	}
	return For(Default)
}
