package handlers_test

import (
	"os"
	"testing"

	"concierge/handlers/browsertest"
)

// TestMain ends the browser tests' shared Chromium after the tests.
func TestMain(m *testing.M) {
	code := m.Run()
	browsertest.Close()
	os.Exit(code)
}
