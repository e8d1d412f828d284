package memory

import "testing"

func TestIsPrivateFieldSeesThroughDisguises(t *testing.T) {
	for _, k := range []string{"passport_number", "Passport_Number", "passport_number\u200b", "pаssport_number", "loyalty_id\u2060", " customer_ID "} {
		if !IsPrivateField(k) {
			t.Errorf("IsPrivateField(%q) = false, want true", k)
		}
	}
	for _, k := range []string{"home_city", "seat_preference", "identity_style"} {
		if IsPrivateField(k) {
			t.Errorf("IsPrivateField(%q) = true, want false", k)
		}
	}
}
