package offline

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"concierge/memory"
)

var update = flag.Bool("update", false, "rewrite the generated files the tests check: testdata/sgd_durable.golden (TestSGD…), gate.json.gz (TestTrainedGateIsCurrent)")

// sgdPath finds the SGD extract: $CONCIERGE_SGD_DATA, or shared/data in a
// parent directory of the package.
func sgdPath() string {
	if p := os.Getenv("CONCIERGE_SGD_DATA"); p != "" {
		return p
	}
	dir, _ := os.Getwd()
	for ; dir != filepath.Dir(dir); dir = filepath.Dir(dir) {
		if p := filepath.Join(dir, "shared", "data", "sgd_train_travel.json"); fileExists(p) {
			return p
		}
	}
	return ""
}

func fileExists(p string) bool { _, err := os.Stat(p); return err == nil }

// TestSGDDurableNotes runs every traveler turn of the SGD travel dialogues
// through the model, conversation by conversation, and compares every
// note it saves (durable and trip-only) with testdata/sgd_durable.golden, which was read
// note by note: each must be something the traveler really said about
// themselves.
func TestSGDDurableNotes(t *testing.T) {
	path := sgdPath()
	if path == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("shared/data/sgd_train_travel.json not found; set CONCIERGE_SGD_DATA")
		}
		t.Skip("shared/data/sgd_train_travel.json not found (set CONCIERGE_SGD_DATA; mandatory when CI=true)")
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read %s: %v", path, err)
	}
	var corpus struct {
		Source    string `json:"source"`
		Dialogues []struct {
			ID   string   `json:"id"`
			User []string `json:"user"`
		} `json:"dialogues"`
	}
	if err := json.Unmarshal(raw, &corpus); err != nil {
		t.Fatalf("parse %s: %v", path, err)
	}
	var got strings.Builder
	fmt.Fprintf(&got, "# Durable notes the offline model saves from the SGD travel dialogues, reviewed by hand.\n")
	fmt.Fprintf(&got, "# Quoted traveler turns come from: %s\n", corpus.Source)
	turns, durable, trip := 0, 0, 0
	for _, d := range corpus.Dialogues {
		c := newChat(t, memory.State{})
		for i, text := range d.User {
			turns++
			before := len(c.saved)
			c.say(text)
			for _, n := range c.saved[before:] {
				if n.Scope == memory.ScopeDurable {
					durable++
				} else {
					trip++
				}
				fmt.Fprintf(&got, "%s turn %d: %q\n  → %s [%s]\n", d.ID, i+1, text, n.Text, n.Scope)
			}
		}
	}
	fmt.Fprintf(&got, "# %d dialogues, %d traveler turns, %d durable notes (%.2f per 1,000 turns), %d trip-only notes\n",
		len(corpus.Dialogues), turns, durable, 1000*float64(durable)/float64(max(turns, 1)), trip)
	t.Logf("%d dialogues, %d turns: %d durable notes (%.2f per 1,000 turns), %d trip-only notes",
		len(corpus.Dialogues), turns, durable, 1000*float64(durable)/float64(max(turns, 1)), trip)
	golden := filepath.Join("testdata", "sgd_durable.golden")
	if *update {
		if err := os.WriteFile(golden, []byte(got.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("read golden file (run with -update to write it, then review every note): %v", err)
	}
	if got.String() != string(want) {
		t.Errorf("durable notes differ from %s; review the new notes by hand before running with -update:\n%s", golden, got.String())
	}
}
