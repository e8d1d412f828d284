package handlers_test

import (
	"bytes"
	"net/http"
	"strings"
	"sync"
	"testing"
)

// lockedBuffer is a log sink safe for the server's goroutines.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// TestLogsCarryNoText runs a whole story — chat, a refused card number, a
// close and consolidation, a staff edit and a deletion — with debug logging,
// and checks that no message or note text reached the logs.
func TestLogsCarryNoText(t *testing.T) {
	t.Parallel()
	logs := &lockedBuffer{}
	e := newEnvWith(t, envOptions{logTo: logs})
	john, support := e.token("john@example.com"), e.token("support@example.com")
	s := e.openSession(john)
	e.say(john, s, "Remember that I am allergic to zanzibarberries")
	e.say(john, s, "My card is 4111 1111 1111 1111, keep it for bookings")
	if status, _ := e.apiCall("POST", "/api/v1/sessions/"+s+"/close", john, ""); status != http.StatusOK {
		t.Fatalf("close = %d", status)
	}
	johnID := mustUser(t, e, "john@example.com").ID
	status, note := e.apiCall("POST", "/api/v1/users/"+johnID+"/notes", support,
		`{"text":"Likes quokkaland tours.","keywords":["tours"],"pinned":false,"reason":"phone call"}`)
	if status != http.StatusCreated {
		t.Fatalf("staff note = %d %v", status, note)
	}
	if status, _ := e.request("DELETE", "/api/v1/users/"+johnID+"/notes/"+note["id"].(string), support, `{"reason":"asked"}`); status != http.StatusNoContent {
		t.Fatalf("delete = %d", status)
	}
	out := logs.String()
	if !strings.Contains(out, `"session_id"`) {
		t.Fatalf("the logs have no turn lines at all; is logging wired? %q", out[:min(len(out), 300)])
	}
	// The card as typed and as digits: a bare "4111" can turn up by chance
	// in a timestamp's nanoseconds ("…12.441113621Z").
	for _, secret := range []string{"zanzibar", "4111 1111", "4111111111111111", "quokkaland", "allergic", "phone call"} {
		if i := strings.Index(strings.ToLower(out), secret); i >= 0 {
			t.Errorf("the logs contain %q: …%s…", secret, out[max(0, i-200):min(len(out), i+100)])
		}
	}
}
