package main

import (
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestDiskFull serves a SQLite database on a 16 MB tmpfs of the test's own
// and fills the disk under load: reads keep answering, sends answer 200 or
// 503 with Retry-After (never 500), nothing acknowledged is lost, and once
// space returns the same keys store each refused message once and
// /healthz answers 200 again. It needs to mount a tmpfs (root); elsewhere it
// skips saying so.
func TestDiskFull(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and runs the binary; skipped with -short")
	}
	loadSlot.Lock()
	t.Cleanup(loadSlot.Unlock)
	mnt := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=16m", "tmpfs", mnt).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a size-limited tmpfs here (%v: %s): the disk-full test needs it", err, strings.TrimSpace(string(out)))
	}
	t.Cleanup(func() { _ = exec.Command("umount", "-l", mnt).Run() })
	bin := binary(t)
	url, _ := serveBinary(t, bin, nil, "--db", filepath.Join(mnt, "full.db"))
	token := apiToken(t, url)
	const clients = 4
	sessions := make([]string, clients)
	for i := range sessions {
		_, out := apiJSON(t, "POST", url+"/api/v1/sessions", token, "")
		sessions[i] = out["id"].(string)
	}

	type sent struct {
		session, key, text string
		status             int
	}
	var mu sync.Mutex
	var log []sent
	var readFails, bad []string
	text := strings.Repeat("A long message about trains across Europe. ", 80) // 3,440 characters
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for c := range clients {
		wg.Go(func() {
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				key := fmt.Sprintf("c%d-%d", c, i)
				status, out, err := sendKeyed(url, token, sessions[c], key, fmt.Sprintf("%d %s", i, text))
				rs, _ := apiJSON(t, "GET", url+"/api/v1/sessions/"+sessions[c], token, "")
				mu.Lock()
				log = append(log, sent{sessions[c], key, fmt.Sprintf("%d %s", i, text), status})
				if rs != http.StatusOK {
					readFails = append(readFails, fmt.Sprintf("GET session: %d", rs))
				}
				if err != nil || (status != http.StatusOK && status != http.StatusServiceUnavailable) {
					bad = append(bad, fmt.Sprintf("send %s: %d %v %v", key, status, out, err))
				}
				mu.Unlock()
				if status == http.StatusServiceUnavailable {
					time.Sleep(50 * time.Millisecond)
				}
			}
		})
	}
	// A second of load with space, then the disk is filled, leaving
	// nothing.
	time.Sleep(time.Second)
	filler := filepath.Join(mnt, "filler")
	_ = exec.Command("dd", "if=/dev/zero", "of="+filler, "bs=4k").Run()
	// Run until sends have been refused for a while.
	deadline := time.Now().Add(10 * time.Second)
	refused := func() int {
		mu.Lock()
		defer mu.Unlock()
		n := 0
		for _, s := range log {
			if s.status == http.StatusServiceUnavailable {
				n++
			}
		}
		return n
	}
	for refused() < 20 && time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond)
	}
	if acked := len(log) - refused(); acked == 0 {
		t.Errorf("no send was acknowledged before the disk filled")
	}
	if status, _ := apiJSON(t, "GET", url+"/healthz", "", ""); status != http.StatusServiceUnavailable {
		t.Errorf("/healthz with the disk full: %d, want 503", status)
	}
	close(stop)
	wg.Wait()
	for i, f := range append(readFails, bad...) {
		if i == 10 {
			t.Errorf("and %d more", len(readFails)+len(bad)-10)
			break
		}
		t.Error(f)
	}
	if refused() == 0 {
		t.Fatalf("no send was refused in 10 s with the disk full (%d sends)", len(log))
	}

	// Space returns.
	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 10*time.Second, "/healthz to answer 200 after space returned", func() bool {
		status, _ := apiJSON(t, "GET", url+"/healthz", "", "")
		return status == http.StatusOK
	})
	acked, retried := 0, 0
	for i, s := range log {
		if s.status == http.StatusOK {
			acked++
			continue
		}
		retried++
		// A message stored before its answer failed, with a newer one of
		// the same conversation refused after it, is superseded: the newer
		// one is the turn answered (agent.ErrSuperseded, 409 conflict), and
		// the check below still finds the older one stored once.
		newer := slices.ContainsFunc(log[i+1:], func(l sent) bool { return l.session == s.session && l.status != http.StatusOK })
		status, out, err := sendKeyed(url, token, s.session, s.key, s.text)
		e, _ := out["error"].(map[string]any)
		superseded := status == http.StatusConflict && newer && e["code"] == "conflict"
		if err != nil || status != http.StatusOK && !superseded {
			t.Fatalf("retry of %s after space returned: %d %v %v", s.key, status, out, err)
		}
	}
	for _, id := range sessions {
		_, out := apiJSON(t, "GET", url+"/api/v1/sessions/"+id, token, "")
		seen := map[string]int{}
		for _, m := range out["messages"].([]any) {
			m := m.(map[string]any)
			if m["role"] == "user" {
				seen[strings.TrimSpace(m["content"].(string))]++
			}
		}
		for _, s := range log {
			if s.session == id && seen[strings.TrimSpace(s.text)] != 1 {
				t.Errorf("message %s stored %d times, want once", s.key, seen[s.text])
			}
		}
	}
	t.Logf("disk full: %d sends acknowledged, %d refused with 503 and stored once on retry", acked, retried)
}
