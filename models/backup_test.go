package models_test

import (
	"os"
	"path/filepath"
	"testing"

	"concierge/models"
)

// TestBackupWithToolRowsAndPendingIndex: the search index leaves tool
// results out and takes new messages a second later, so it never holds
// every row of messages; a copy of such a database is sound and passes its
// check, while a copy whose pages are damaged does not.
func TestBackupWithToolRowsAndPendingIndex(t *testing.T) {
	dir := t.TempDir()
	live := filepath.Join(dir, "live.db")
	s, err := models.Open(live)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	u, err := s.CreateUser(ctx, "backup@example.com", "Backup", models.RoleTraveler, "correct horse battery")
	if err != nil {
		t.Fatal(err)
	}
	cs, err := s.CreateChatSession(ctx, u.ID)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []*models.Message{
		{SessionID: cs.ID, Role: "user", Content: "Remember that I am vegetarian", Turn: 1},
		{SessionID: cs.ID, Role: "tool", Content: `{"saved":true}`, ToolCallID: "c1", Turn: 1},
		{SessionID: cs.ID, Role: "assistant", Content: "Noted.", Turn: 1},
	} {
		if err := s.AppendMessage(ctx, m); err != nil {
			t.Fatal(err)
		}
	}
	copyPath := filepath.Join(dir, "copy.db")
	if err := models.BackupSQLite(ctx, live, copyPath, nil); err != nil {
		t.Fatalf("backup of a database with a tool row and messages waiting for the index: %v", err)
	}

	raw, err := os.ReadFile(copyPath)
	if err != nil {
		t.Fatal(err)
	}
	for i := 4096 + 100; i < len(raw) && i < 4096*6; i += 7 { // damage pages past the header
		raw[i] ^= 0x5a
	}
	damaged := filepath.Join(dir, "damaged.db")
	if err := os.WriteFile(damaged, raw, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := models.CheckSQLite(ctx, damaged); err == nil {
		t.Fatalf("a damaged copy passed its check: %v", err)
	}
}
