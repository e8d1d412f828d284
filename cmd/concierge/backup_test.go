package main

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"concierge/models"
)

// backupLoad is how long the load runs by default; the backup starts
// halfway through it. CONCIERGE_TEST_BACKUP_LOAD sets another length (the
// issue's figure is 30s: CONCIERGE_TEST_BACKUP_LOAD=30s).
const backupLoad = 8 * time.Second

func backupLoadTime(t *testing.T) time.Duration {
	t.Helper()
	v := os.Getenv("CONCIERGE_TEST_BACKUP_LOAD")
	if v == "" {
		return backupLoad
	}
	d, err := time.ParseDuration(v)
	if err != nil || d < 2*time.Second {
		t.Fatalf("CONCIERGE_TEST_BACKUP_LOAD=%q: want a duration of at least 2s", v)
	}
	return d
}

// TestBackupUnderLoadRestores backs up a live SQLite database with
// "concierge backup" while clients send messages and add notes through a
// real server, checks the copy, has "concierge restore" refuse to replace
// the database a server runs on, restores the copy to a new file, and
// starts a server on it that answers with the notes the copy holds —
// every note acknowledged before the backup began among them.
func TestBackupUnderLoadRestores(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and runs the binary; skipped with -short")
	}
	loadSlot.Lock()
	t.Cleanup(loadSlot.Unlock)
	load := backupLoadTime(t)
	bin := binary(t)
	dir := t.TempDir()
	db, copyPath, restored := filepath.Join(dir, "live.db"), filepath.Join(dir, "backup.db"), filepath.Join(dir, "restored.db")
	url, _ := serveBinary(t, bin, nil, "--db", db)
	token := apiToken(t, url)
	_, me := apiJSON(t, "GET", url+"/api/v1/me", token, "")
	johnID := me["user"].(map[string]any)["id"].(string)

	var noteN atomic.Int64
	addNote := func() (string, bool) {
		text := fmt.Sprintf("Prefers hotel number %d near the station.", noteN.Add(1))
		status, _ := apiJSON(t, "POST", url+"/api/v1/users/"+johnID+"/notes", token, fmt.Sprintf(`{"text":%q,"keywords":["hotel"]}`, text))
		return text, status == http.StatusCreated
	}
	var mu sync.Mutex
	acked := map[string]bool{} // note texts acknowledged, whenever
	before := []string{}       // acknowledged before the backup began
	for range 3 {
		if text, ok := addNote(); ok {
			acked[text] = true
			before = append(before, text)
		}
	}

	stop := make(chan struct{})
	var wg sync.WaitGroup
	var sends, notes atomic.Int64
	for c := range 4 {
		wg.Go(func() {
			_, out := apiJSON(t, "POST", url+"/api/v1/sessions", token, "")
			session, _ := out["id"].(string)
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				if c%2 == 0 {
					if text, ok := addNote(); ok {
						mu.Lock()
						acked[text] = true
						mu.Unlock()
						notes.Add(1)
					}
					continue
				}
				if status, _, err := sendKeyed(url, token, session, fmt.Sprintf("c%d-%d", c, i), fmt.Sprintf("Message %d about Lisbon.", i)); err == nil && status == http.StatusOK {
					sends.Add(1)
				}
			}
		})
	}
	loadBegan := time.Now()
	time.Sleep(load / 2)
	mu.Lock()
	for text := range acked {
		if !contains(before, text) {
			before = append(before, text)
		}
	}
	mu.Unlock()
	began := time.Now()
	out, err := exec.Command(bin, "backup", copyPath, "--db", db).CombinedOutput()
	took := time.Since(began)
	if err != nil {
		t.Fatalf("concierge backup: %v\n%s", err, out)
	}
	time.Sleep(time.Until(loadBegan.Add(load)))
	close(stop)
	wg.Wait()
	if !strings.Contains(string(out), "pages (100%)") || !strings.Contains(string(out), "integrity_check ok") {
		t.Errorf("backup output lacks progress or the check:\n%s", out)
	}
	info, _ := os.Stat(copyPath)
	t.Logf("backup %v into a %v load: %v, %d bytes; the whole load: %d sends, %d notes", began.Sub(loadBegan).Round(time.Second), load,
		took.Round(time.Millisecond), info.Size(), sends.Load(), notes.Load())
	if sends.Load() == 0 || notes.Load() == 0 {
		t.Errorf("the load did nothing: %d sends, %d notes", sends.Load(), notes.Load())
	}

	if out, err := exec.Command(bin, "restore", copyPath, "--db", db).CombinedOutput(); err == nil || !strings.Contains(string(out), "server is running") {
		t.Errorf("restore over the live database: err %v, output %s; want a refusal naming the running server", err, out)
	}
	if out, err := exec.Command(bin, "restore", copyPath, "--db", restored).CombinedOutput(); err != nil {
		t.Fatalf("concierge restore: %v\n%s", err, out)
	}

	// What the copy holds, read directly.
	store, err := models.Open(copyPath)
	if err != nil {
		t.Fatal(err)
	}
	held, err := store.GlobalNotes(context.Background(), johnID)
	store.Close()
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, n := range held {
		want = append(want, n.Text)
	}

	url2, _ := serveBinary(t, bin, nil, "--db", restored)
	token2 := apiToken(t, url2)
	status, mem := apiJSON(t, "GET", url2+"/api/v1/users/"+johnID+"/memory", token2, "")
	if status != http.StatusOK {
		t.Fatalf("memory from the restored server: %d %v", status, mem)
	}
	var got []string
	for _, n := range mem["global_notes"].([]any) {
		got = append(got, n.(map[string]any)["text"].(string))
	}
	sort.Strings(got)
	sort.Strings(want)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("the restored server's notes differ from the copy's:\n got %q\nwant %q", got, want)
	}
	for _, text := range before {
		if !contains(got, text) {
			t.Errorf("note acknowledged before the backup is missing after the restore: %q", text)
		}
	}
	for _, text := range got {
		if strings.HasPrefix(text, "Prefers hotel number") && !acked[text] {
			t.Errorf("the restored server has a note nobody acknowledged: %q", text)
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
