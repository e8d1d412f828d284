package models_test

import (
	"errors"
	"strings"
	"testing"

	"concierge/memory"
	"concierge/models"
)

// TestValidateProfile: the demo profile passes the published schema;
// anything else is refused with the path of the field at fault.
func TestValidateProfile(t *testing.T) {
	for _, tc := range []struct {
		name    string
		profile memory.Profile
		field   string // "" when valid
		rule    string // the ProfileError's rule, for the pages' wording
	}{
		{"minimal", memory.Profile{"name": "Priya Sharma", "home_city": "Pune", "currency": "INR"}, "", ""},
		{"unknown key", memory.Profile{"name": "P", "nickname": "x"}, "/nickname", models.ProfileUnknownKey},
		{"bad currency", memory.Profile{"currency": "rupees"}, "/currency", ""},
		{"nested unknown", memory.Profile{"loyalty_programs": []any{map[string]any{"program": "X", "tier": "Gold"}}}, "/loyalty_programs/0/tier", models.ProfileUnknownKey},
		{"missing program", memory.Profile{"loyalty_programs": []any{map[string]any{"status": "Gold"}}}, "/loyalty_programs/0/program", models.ProfileRequired},
		{"bad date", memory.Profile{"passport_expiry": "soon"}, "/passport_expiry", models.ProfileFormat},
		{"wrong type", memory.Profile{"visas": "Schengen"}, "/visas", models.ProfileType},
		{"long name", memory.Profile{"name": strings.Repeat("n", 500)}, "/name", models.ProfileTooLong},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := models.ValidateProfile(tc.profile)
			var de *memory.Error
			switch {
			case tc.field == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case tc.field != "" && (!errors.As(err, &de) || de.Code != memory.EBADPROFILE || de.Field != tc.field):
				t.Fatalf("err = %v (field %q), want %s at %s", err, fieldOf(de), memory.EBADPROFILE, tc.field)
			}
			var pe *models.ProfileError
			if tc.rule != "" && (!errors.As(err, &pe) || pe.Rule != tc.rule || pe.Path != tc.field) {
				t.Fatalf("err = %#v, want rule %s at %s", err, tc.rule, tc.field)
			}
		})
	}
}

func fieldOf(e *memory.Error) string {
	if e == nil {
		return ""
	}
	return e.Field
}
