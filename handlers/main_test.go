package handlers_test

import (
	"os"
	"testing"

	"concierge/handlers/browsertest"
)

// Every test builds its own server on its own database (newEnv), and each
// browser test gets a browser context of its own, so the tests call
// t.Parallel: a browser test mostly waits on Chromium, and the others on
// their server. The tests of chat_detached_test.go and
// shutdown_stream_test.go stay serial: they hold streams to write
// deadlines and drains of a few hundred milliseconds, and go test runs
// them first, before the parallel ones start.
//
// TestMain ends the browser tests' shared Chromium after the tests.
func TestMain(m *testing.M) {
	code := m.Run()
	browsertest.Close()
	os.Exit(code)
}
