package handlers

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"testing"
)

// TestErrorMapping: a request whose context ended is a client that left
// (499, not our failure, logged at debug), however deeply it is wrapped;
// an unknown error is a 500 and internal.
func TestErrorMapping(t *testing.T) {
	e, internal := toError(fmt.Errorf("models: create chat session: %w", context.Canceled))
	if e.Status != statusClientGone || internal {
		t.Errorf("canceled: %d internal=%v, want %d and not internal", e.Status, internal, statusClientGone)
	}
	e, internal = toError(errors.New("disk on fire"))
	if e.Status != http.StatusInternalServerError || !internal {
		t.Errorf("unknown: %d internal=%v, want 500 and internal", e.Status, internal)
	}
}
