package models_test

import (
	"errors"
	"strings"
	"testing"

	"concierge/memory"
	"concierge/memory/consolidate"
	"concierge/models"
	"concierge/models/dbtest"
)

// closedSession makes John (seeded) a closed session holding the given
// session notes and returns the store's ids.
func closedSession(t *testing.T, s *models.Store, notes ...memory.Note) (userID string, job *models.ConsolidationJob, ids []string) {
	t.Helper()
	if _, err := s.SeedDemo(ctx, "demo"); err != nil {
		t.Fatal(err)
	}
	john, _ := s.UserByEmail(ctx, "john@example.com")
	cs, err := s.CreateChatSession(ctx, john.ID)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range notes {
		n.Source = memory.SourceAssistant
		row, err := s.Notes(memory.Limits{}).Add(ctx, models.NewNote{UserID: john.ID, Kind: models.KindSession, Note: n,
			Prov: models.Provenance{SessionID: cs.ID}}, models.Actor{Kind: models.ActorAssistant}, "")
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, row.ID)
	}
	job, err = s.CloseSession(ctx, cs.ID, "test")
	if err != nil {
		t.Fatal(err)
	}
	return john.ID, job, ids
}

// TestDeletedDuringConsolidationStaysDeleted deletes a session note after
// the worker read it but before the result is applied.
func TestDeletedDuringConsolidationStaysDeleted(t *testing.T) {
	dbtest.Backends(t, func(t *testing.T, s *models.Store) {
		uid, _, ids := closedSession(t, s, memory.Note{Text: "Likes the canary phrase mango-lantern.", Keywords: []string{"canary"}, Scope: memory.ScopeDurable})
		job, err := s.ClaimJob(ctx, "w1", 60e9)
		if err != nil {
			t.Fatal(err)
		}
		version, _ := s.MemoryVersion(ctx, uid)
		global, _ := s.GlobalNotes(ctx, uid)
		session, _ := s.SessionNotes(ctx, job.SessionID)
		res := consolidate.ByRules(global, session, consolidate.Options{Today: "2026-11-29", MaxGlobalNotes: 200})
		if err := s.Notes(memory.Limits{}).Delete(ctx, uid, ids[0], models.Actor{ID: uid, Kind: models.ActorTraveler}, "undo"); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Notes(memory.Limits{}).ApplyConsolidation(ctx, job, "w1", res, version); !errors.Is(err, models.ErrMemoryChanged) {
			t.Fatalf("applying a result computed before a delete: %v, want ErrMemoryChanged", err)
		}
		// Even a stale result applied under the new version (the store's
		// second line of defence) must not bring the note back.
		version, _ = s.MemoryVersion(ctx, uid)
		rep, err := s.Notes(memory.Limits{}).ApplyConsolidation(ctx, job, "w1", res, version)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.NoteByID(ctx, uid, ids[0]); err == nil {
			t.Error("consolidation brought a deleted note back")
		}
		if strings.Contains(rep.Report, "mango") {
			t.Error("the report repeats the deleted note's text")
		}
		var hits int64
		s.DB().Model(&models.AuditEvent{}).Where("before LIKE ? OR after LIKE ?", "%mango%", "%mango%").Count(&hits)
		if hits != 0 {
			t.Errorf("%d audit payloads hold the deleted text", hits)
		}
	})
}

// TestDeletingAGlobalNoteTakesMergedCopies merges a session note into an
// existing global note, then deletes the global note: the merged wording
// must go too.
func TestDeletingAGlobalNoteTakesMergedCopies(t *testing.T) {
	dbtest.Backends(t, func(t *testing.T, s *models.Store) {
		uid, _, _ := closedSession(t, s, memory.Note{Text: "Prefers aisle seats on flights.", Keywords: []string{"seat", "aisle"}, Scope: memory.ScopeDurable})
		job, err := s.ClaimJob(ctx, "w1", 60e9)
		if err != nil {
			t.Fatal(err)
		}
		global, _ := s.GlobalNotes(ctx, uid)
		session, _ := s.SessionNotes(ctx, job.SessionID)
		res := consolidate.ByRules(global, session, consolidate.Options{Today: "2026-11-29", MaxGlobalNotes: 200})
		into := ""
		for _, d := range res.Decisions {
			if d.Note.ID == session[0].ID {
				if d.Action != consolidate.ActionMerged {
					t.Fatalf("decision %s, want merged (the test needs a merge)", d.Action)
				}
				into = d.Into
			}
		}
		version, _ := s.MemoryVersion(ctx, job.UserID)
		if _, err := s.Notes(memory.Limits{}).ApplyConsolidation(ctx, job, "w1", res, version); err != nil {
			t.Fatal(err)
		}
		if err := s.Notes(memory.Limits{}).Delete(ctx, uid, into, models.Actor{ID: uid, Kind: models.ActorTraveler}, "no longer true"); err != nil {
			t.Fatal(err)
		}
		var hits int64
		s.DB().Model(&models.Note{}).Where("text LIKE ?", "%aisle%").Count(&hits)
		var versions int64
		s.DB().Model(&models.NoteVersion{}).Where("text LIKE ?", "%aisle%").Count(&versions)
		var reports int64
		s.DB().Model(&models.ConsolidationReport{}).Where("report LIKE ?", "%aisle%").Count(&reports)
		var audits int64
		// (the profile's seat_preference says "aisle" too: look for the notes' words)
		s.DB().Model(&models.AuditEvent{}).Where("before LIKE ? OR after LIKE ?", "%aisle seat%", "%aisle seat%").Count(&audits)
		if hits+versions+reports+audits != 0 {
			t.Errorf("aisle text remains: notes %d, versions %d, reports %d, audit %d", hits, versions, reports, audits)
		}
	})
}

func TestFailedJobBacksOff(t *testing.T) {
	dbtest.Backends(t, func(t *testing.T, s *models.Store) {
		_, job, _ := closedSession(t, s, memory.Note{Text: "Likes tea.", Keywords: []string{"tea"}, Scope: memory.ScopeDurable})
		claimed, err := s.ClaimJob(ctx, "w1", 60e9)
		if err != nil || claimed.ID != job.ID {
			t.Fatalf("claim: %v", err)
		}
		if err := s.FailJob(ctx, claimed, "w1", "boom"); err != nil {
			t.Fatal(err)
		}
		if _, err := s.ClaimJob(ctx, "w2", 60e9); err == nil {
			t.Error("a failed job was claimed again at once, without backoff")
		}
	})
}
