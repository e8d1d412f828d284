package main

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"concierge/agent/openai/fakeopenai"
	"concierge/memory"
	"concierge/models"
)

// TestCrashDuringConsolidation kills the server (SIGKILL) while a
// consolidation job waits for the model, restarts it, and checks the job
// completes exactly once.
func TestCrashDuringConsolidation(t *testing.T) {
	t.Parallel()
	bin := binary(t)
	dir := t.TempDir()
	db := filepath.Join(dir, "crash.db")
	ctx := context.Background()

	// A closed session with two notes waits for consolidation.
	store, err := openStore(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := store.SeedDemo(ctx, "demo"); err != nil {
		t.Fatal(err)
	}
	john, _ := store.UserByEmail(ctx, "john@example.com")
	cs, _ := store.CreateChatSession(ctx, john.ID)
	for _, n := range []memory.Note{
		{Text: "Is vegetarian.", Keywords: []string{"diet", "vegetarian"}, Scope: memory.ScopeDurable},
		{Text: "Wants a window seat on this trip to sleep.", Keywords: []string{"seat", "window"}, Scope: memory.ScopeThisTrip},
	} {
		n.Source = memory.SourceAssistant
		if _, err := store.Notes(memory.Limits{}).Add(ctx, models.NewNote{UserID: john.ID, Kind: models.KindSession, Note: n,
			Prov: models.Provenance{SessionID: cs.ID}}, models.Actor{Kind: models.ActorAssistant}, ""); err != nil {
			t.Fatal(err)
		}
	}
	job, err := store.CloseSession(ctx, cs.ID, "ended by the traveler")
	if err != nil {
		t.Fatal(err)
	}
	store.Close()

	// First life: the consolidation model hangs; the process is killed.
	fake := fakeopenai.New(t)
	fake.Delay(time.Minute)
	fake.Reply(`{"notes":[],"decisions":[]}`)
	first := startBinary(t, bin, db, "OPENAI_API_KEY=test-key", "OPENAI_BASE_URL="+fake.URL())
	waitFor(t, 30*time.Second, "the consolidation call", func() bool { return len(fake.Requests()) > 0 })
	if err := first.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = first.Wait()

	store, err = models.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	j, _ := store.JobByID(ctx, job.ID)
	if j.Status != models.JobRunning || j.Attempts != 1 {
		t.Fatalf("after the crash: job %s attempts %d, want running 1", j.Status, j.Attempts)
	}
	if _, err := store.ReportForJob(ctx, job.ID); err == nil {
		t.Fatal("a report exists although the process died before applying")
	}

	// Second life, offline: the job is taken over when its lease runs out.
	second := startBinary(t, bin, db)
	waitFor(t, 30*time.Second, "the job to finish", func() bool {
		j, err := store.JobByID(ctx, job.ID)
		return err == nil && j.Status == models.JobDone
	})
	if err := second.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := second.Wait(); err != nil {
		t.Errorf("graceful stop after SIGTERM: %v", err)
	}

	j, _ = store.JobByID(ctx, job.ID)
	if j.Attempts != 2 {
		t.Errorf("attempts %d, want 2 (one crash, one success)", j.Attempts)
	}
	var reports, promotions int64
	store.DB().Model(&models.ConsolidationReport{}).Where("job_id = ?", job.ID).Count(&reports)
	store.DB().Model(&models.AuditEvent{}).Where("consolidation_id = ? AND action = ?", job.ID, "note.promote").Count(&promotions)
	if reports != 1 || promotions != 1 {
		t.Errorf("%d reports and %d promotions, want exactly 1 of each", reports, promotions)
	}
	global, _ := store.GlobalNotes(ctx, john.ID)
	veg := 0
	for _, g := range global {
		if g.Text == "Is vegetarian." {
			veg++
		}
		if strings.Contains(g.Text, "window") {
			t.Errorf("the trip-only note became global: %q", g.Text)
		}
	}
	if veg != 1 {
		t.Errorf("vegetarian appears %d times in global memory, want 1", veg)
	}
}

// startBinary runs the built server on a free port against db.
func startBinary(t *testing.T, bin, db string, env ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(bin, "serve", "--addr", "127.0.0.1:0", "--db", db, "--job-lease", "2s", "--no-demo", "--log-level", "warn")
	cmd.Env = append(os.Environ(), env...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	ready := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if strings.HasPrefix(sc.Text(), "Concierge is listening on") {
				close(ready)
				break
			}
		}
		for sc.Scan() {
		}
	}()
	select {
	case <-ready:
	case <-time.After(30 * time.Second):
		t.Fatal("the binary did not start")
	}
	return cmd
}

func waitFor(t *testing.T, limit time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
