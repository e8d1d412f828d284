package models_test

import (
	"fmt"
	"path/filepath"
	"sync"
	"testing"

	"concierge/models"
)

// TestOpenNewFileTogether opens one new SQLite file from several stores at
// the same moment, again and again: the race to switch it to WAL must never
// surface as "database is locked" (instances started together on a new
// database all start).
func TestOpenNewFileTogether(t *testing.T) {
	dir := t.TempDir()
	for round := range 15 {
		path := filepath.Join(dir, fmt.Sprintf("new-%d.db", round))
		var wg sync.WaitGroup
		errs := make(chan error, 4)
		for range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				s, err := models.Open(path)
				if err != nil {
					errs <- err
					return
				}
				if err := s.Migrate(ctx); err != nil {
					errs <- err
				}
				s.Close()
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Errorf("round %d: %v", round, err)
		}
	}
}
