package models

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"gorm.io/gorm"
)

// TestWriterBatch: one commit carries a batch; a transaction that fails,
// panics or whose caller gave up is undone alone, and the others stand.
func TestWriterBatch(t *testing.T) {
	s, err := Open(filepath.Join(t.TempDir(), "w.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	s.PasswordCost = 4
	if _, err := s.MigrateAndSeed(ctx, "demo"); err != nil {
		t.Fatal(err)
	}
	u, err := s.UserByEmail(ctx, "john@example.com")
	if err != nil {
		t.Fatal(err)
	}
	cs, err := s.CreateChatSession(ctx, u.ID)
	if err != nil {
		t.Fatal(err)
	}
	insert := func(id string) func(tx *gorm.DB) error {
		return func(tx *gorm.DB) error {
			return tx.Create(&BlockedWrite{ID: id, UserID: u.ID, SessionID: cs.ID, Category: "c", CreatedAt: s.now()}).Error
		}
	}
	gone, cancel := context.WithCancel(context.Background())
	cancel()
	boom := errors.New("boom")
	ops := []*writeOp{
		{ctx: context.Background(), fn: insert("a")},
		{ctx: context.Background(), fn: func(tx *gorm.DB) error {
			if err := insert("b")(tx); err != nil {
				return err
			}
			return boom // b is rolled back with it
		}},
		{ctx: context.Background(), fn: insert("a")}, // duplicate key
		{ctx: context.Background(), fn: func(tx *gorm.DB) error { _ = insert("p")(tx); panic("bug") }},
		{ctx: gone, fn: insert("g")},
		{ctx: context.Background(), fn: insert("c")},
	}
	for _, op := range ops {
		op.done = make(chan error, 1)
	}
	s.writer.run(ops)
	errs := make([]error, len(ops))
	for i, op := range ops {
		errs[i] = <-op.done
	}
	if errs[0] != nil || errs[5] != nil {
		t.Errorf("good transactions failed: %v, %v", errs[0], errs[5])
	}
	if !errors.Is(errs[1], boom) || !errors.Is(errs[2], gorm.ErrDuplicatedKey) || errs[3] == nil || !errors.Is(errs[4], context.Canceled) {
		t.Errorf("failures: %v / %v / %v / %v", errs[1], errs[2], errs[3], errs[4])
	}
	var ids []string
	if err := s.db.Model(&BlockedWrite{}).Order("id").Pluck("id", &ids).Error; err != nil {
		t.Fatal(err)
	}
	if len(ids) != 2 || ids[0] != "a" || ids[1] != "c" {
		t.Errorf("stored %v, want [a c]", ids)
	}
}
