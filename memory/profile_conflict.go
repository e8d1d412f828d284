package memory

import (
	"fmt"
	"regexp"
	"strings"
)

// ProfileSuggestion is a change to one profile field that a durable note
// implies because it contradicts what the field says now: "Prefers window
// seats." beside seat_preference "aisle" suggests seat_preference "window".
type ProfileSuggestion struct {
	Field    string `json:"field"`
	Current  string `json:"current"`
	Proposed string `json:"proposed"`
}

// profileField is one profile field that a note can contradict, and how to
// read the value a note states for it.
type profileField struct {
	field string
	// value reads the note's value for the field from its Features and
	// text; "" when the note says nothing definite about it.
	value func(f Features, text string) string
}

// contradictableFields are the profile fields notes can contradict. A new
// row here is all a new field needs.
var contradictableFields = []profileField{
	{field: "seat_preference", value: axisValue("seat")},
	{field: "home_city", value: func(f Features, text string) string {
		if f.city == "" {
			return ""
		}
		if m := cityRe.FindStringSubmatch(text); m != nil {
			return m[1]
		}
		return ""
	}},
	{field: "currency", value: func(_ Features, text string) string {
		if m := currencyRe.FindStringSubmatch(strings.ToLower(text)); m != nil {
			return currencyCodes[m[1]]
		}
		return ""
	}},
}

// currencyRe finds the currency a traveler wants prices in ("Prefers prices
// in euros.", "Pays in pounds."); a budget's currency is not one ("Budget
// is 3000 euros on this trip."), since it often follows the destination.
var currencyRe = regexp.MustCompile(`\b(?:prices?|quotes?|currency|pays?|paying)\b(?: \w+){0,2} in (euros?|eur|dollars|usd|us dollars|pounds|gbp|sterling|yen|jpy|rupees|inr|francs|chf)\b`)

// currencyCodes are the ISO codes of currencyRe's words, as the profile
// holds them.
var currencyCodes = map[string]string{"euro": "EUR", "euros": "EUR", "eur": "EUR", "dollars": "USD", "usd": "USD", "us dollars": "USD",
	"pounds": "GBP", "gbp": "GBP", "sterling": "GBP", "yen": "JPY", "jpy": "JPY", "rupees": "INR", "inr": "INR", "francs": "CHF", "chf": "CHF"}

// axisValue reads a note's single value on one of the contradiction axes
// (similarity.go): "Prefers window seats." is "window" on "seat"; a note
// naming two values ("aisle or window") states none.
func axisValue(axis string) func(f Features, _ string) string {
	return func(f Features, _ string) string {
		if vals := f.axes[axis]; len(vals) == 1 {
			return vals[0]
		}
		return ""
	}
}

// ProfileConflicts lists the profile fields a durable note contradicts,
// with the change it suggests. A field the profile does not hold, a
// negated note ("Does not like window seats") and a trip-scoped note
// suggest nothing: only a lasting, positive statement that differs from
// the field's current value does.
func ProfileConflicts(p Profile, n Note) []ProfileSuggestion {
	if n.Scope == ScopeThisTrip || len(p) == 0 {
		return nil
	}
	f := FeaturesOf(n.Text)
	if f.Negative {
		return nil
	}
	var out []ProfileSuggestion
	for _, pf := range contradictableFields {
		cur, ok := p[pf.field]
		if !ok {
			continue
		}
		current := strings.TrimSpace(fmt.Sprint(cur))
		proposed := pf.value(f, n.Text)
		if current == "" || proposed == "" || strings.EqualFold(Stem(strings.ToLower(current)), Stem(strings.ToLower(proposed))) {
			continue
		}
		out = append(out, ProfileSuggestion{Field: pf.field, Current: current, Proposed: proposed})
	}
	return out
}

// ApplySuggestion returns a copy of p with the suggestion's field set to
// its proposed value.
func ApplySuggestion(p Profile, s ProfileSuggestion) Profile {
	out := make(Profile, len(p)+1)
	for k, v := range p {
		out[k] = v
	}
	out[s.Field] = s.Proposed
	return out
}
