package models_test

import (
	"errors"
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
	}{
		{"minimal", memory.Profile{"name": "Priya Sharma", "home_city": "Pune", "currency": "INR"}, ""},
		{"unknown key", memory.Profile{"name": "P", "nickname": "x"}, "/nickname"},
		{"bad currency", memory.Profile{"currency": "rupees"}, "/currency"},
		{"nested unknown", memory.Profile{"loyalty_programs": []any{map[string]any{"program": "X", "tier": "Gold"}}}, "/loyalty_programs/0/tier"},
		{"missing program", memory.Profile{"loyalty_programs": []any{map[string]any{"status": "Gold"}}}, "/loyalty_programs/0/program"},
		{"bad date", memory.Profile{"passport_expiry": "soon"}, "/passport_expiry"},
		{"wrong type", memory.Profile{"visas": "Schengen"}, "/visas"},
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
		})
	}
}

func fieldOf(e *memory.Error) string {
	if e == nil {
		return ""
	}
	return e.Field
}
