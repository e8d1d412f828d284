package prompt

import (
	"strings"
	"testing"

	"concierge/memory"
)

// TestDisguisedPrivateKeyStaysOutOfThePrompt: a private field whose key is
// disguised (a zero-width space) is still left out of the profile block
// (memory's TestIsPrivateFieldSeesThroughDisguises checks the key itself).
func TestDisguisedPrivateKeyStaysOutOfThePrompt(t *testing.T) {
	text := BuildInstructions(memory.State{Profile: memory.Profile{"passport_number\u200b": "X1234567", "home_city": "Lisbon"}}, InjectOptions{}).Text
	if strings.Contains(text, "X1234567") {
		t.Errorf("a disguised private key reached the prompt:\n%s", text)
	}
}
