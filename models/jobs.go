package models

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"gorm.io/gorm"

	"concierge/memory"
	"concierge/memory/consolidate"
)

// ErrJobLost is returned when a worker tries to finish a job another worker
// has taken over (its lease ran out).
var ErrJobLost = errors.New("consolidation job no longer held by this worker")

// CloseSession moves an open session to closing and enqueues its durable
// consolidation job, in one transaction. Closing a session that is already
// closing or closed returns its existing job. It is safe when two instances
// race: only one update wins and a session has at most one job.
func (s *Store) CloseSession(ctx context.Context, sessionID, reason string) (*ConsolidationJob, error) {
	var job ConsolidationJob
	err := s.write(ctx, func(tx *gorm.DB) error {
		var cs ChatSession
		if err := tx.Where("id = ?", sessionID).Take(&cs).Error; err != nil {
			return notFound(err)
		}
		now := s.now()
		res := tx.Model(&ChatSession{}).Where("id = ? AND status = ?", sessionID, SessionOpen).
			Updates(map[string]any{"status": SessionClosing, "close_reason": reason})
		if res.Error != nil {
			return res.Error
		}
		if res.RowsAffected == 0 {
			return tx.Where("session_id = ?", sessionID).Take(&job).Error
		}
		job = ConsolidationJob{ID: s.newID(), SessionID: sessionID, UserID: cs.UserID, Status: JobQueued, CreatedAt: now}
		return tx.Create(&job).Error
	})
	if err != nil {
		return nil, fmt.Errorf("models: close session %s: %w", sessionID, notFound(err))
	}
	return &job, nil
}

// JobByID looks up a consolidation job.
func (s *Store) JobByID(ctx context.Context, id string) (*ConsolidationJob, error) {
	var j ConsolidationJob
	if err := s.db.WithContext(ctx).Where("id = ?", id).Take(&j).Error; err != nil {
		return nil, fmt.Errorf("models: job %s: %w", id, notFound(err))
	}
	return &j, nil
}

// ReportForJob returns the report a finished job wrote.
func (s *Store) ReportForJob(ctx context.Context, jobID string) (*ConsolidationReport, error) {
	var r ConsolidationReport
	if err := s.db.WithContext(ctx).Where("job_id = ?", jobID).Take(&r).Error; err != nil {
		return nil, fmt.Errorf("models: report for job %s: %w", jobID, notFound(err))
	}
	return &r, nil
}

// Reports lists a user's consolidation reports, newest first.
func (s *Store) Reports(ctx context.Context, userID string, limit int) ([]ConsolidationReport, error) {
	var out []ConsolidationReport
	if err := s.db.WithContext(ctx).Where("user_id = ?", userID).Order("created_at DESC, id").Limit(limit).Find(&out).Error; err != nil {
		return nil, fmt.Errorf("models: reports: %w", err)
	}
	return out, nil
}

// MaxJobAttempts is how often a job is tried before it is marked failed.
const MaxJobAttempts = 5

// ClaimJob takes the oldest job that is queued (and past its retry backoff), or running under a lease that
// ran out (its worker died), and leases it to worker until now+lease. Two
// workers racing for one job cannot both win: the claim is a conditional
// update. It returns ErrNotFound when there is nothing to do.
func (s *Store) ClaimJob(ctx context.Context, worker string, lease time.Duration) (*ConsolidationJob, error) {
	db := s.db.WithContext(ctx)
	for range 5 {
		now := s.SharedNow()
		var cand ConsolidationJob
		// A queued job may wait out a retry backoff; a running one is taken
		// over only when its worker's lease ran out, or when it was set
		// further ahead than any lease is (a clock that ran fast).
		err := db.Where("status IN ? AND (locked_until IS NULL OR locked_until < ? OR (status = ? AND locked_until > ?))",
			[]string{JobQueued, JobRunning}, now, JobRunning, now.Add(MaxLease)).
			Order("created_at, id").Take(&cand).Error
		if err != nil {
			return nil, fmt.Errorf("models: claim job: %w", notFound(err))
		}
		res := db.Model(&ConsolidationJob{}).
			// attempts changes on every claim, so it serves as the version
			// that makes this update a compare-and-swap.
			Where("id = ? AND status = ? AND attempts = ?", cand.ID, cand.Status, cand.Attempts).
			Updates(map[string]any{"status": JobRunning, "locked_by": worker, "locked_until": now.Add(lease),
				"attempts": cand.Attempts + 1, "started_at": now})
		if res.Error != nil {
			return nil, fmt.Errorf("models: claim job: %w", res.Error)
		}
		if res.RowsAffected == 1 {
			return s.JobByID(ctx, cand.ID)
		}
		// Another worker won this one; look again.
	}
	return nil, fmt.Errorf("models: claim job: %w", ErrNotFound)
}

// FailJob records a failed attempt: the job goes back to the queue after a
// backoff, or is
// marked failed after MaxJobAttempts. The error text must not hold notes.
func (s *Store) FailJob(ctx context.Context, job *ConsolidationJob, worker, reason string) error {
	status := JobQueued
	// Back off before the next try: 10 s, 40 s, 90 s, 160 s.
	backoff := time.Duration(job.Attempts*job.Attempts) * 10 * time.Second
	upd := map[string]any{"error": reason, "locked_by": "", "locked_until": s.SharedNow().Add(backoff)}
	if job.Attempts >= MaxJobAttempts {
		status = JobFailed
		upd["finished_at"] = s.now()
	}
	upd["status"] = status
	res := s.db.WithContext(ctx).Model(&ConsolidationJob{}).Where(heldJob, job.ID, worker, JobRunning, job.Attempts).Updates(upd)
	if res.Error != nil {
		return fmt.Errorf("models: fail job %s: %w", job.ID, res.Error)
	}
	if res.RowsAffected == 0 {
		return ErrJobLost
	}
	return nil
}

// heldJob matches a job still held by the claim a worker made: its worker
// id, and the attempt number that claim set (two workers of one instance
// share the id, and a job taken over after its lease ran out has a higher
// attempt number).
const heldJob = "id = ? AND locked_by = ? AND status = ? AND attempts = ?"

// RenewJob extends a held job's lease to now+lease; the worker's heartbeat
// calls it while the job runs. It fails with ErrJobLost when the claim is
// no longer the job's (the lease ran out and another worker took it over),
// so the worker stops.
func (s *Store) RenewJob(ctx context.Context, job *ConsolidationJob, worker string, lease time.Duration) error {
	res := s.db.WithContext(ctx).Model(&ConsolidationJob{}).Where(heldJob, job.ID, worker, JobRunning, job.Attempts).
		Update("locked_until", s.SharedNow().Add(lease))
	if res.Error != nil {
		return fmt.Errorf("models: renew job %s: %w", job.ID, res.Error)
	}
	if res.RowsAffected == 0 {
		return ErrJobLost
	}
	return nil
}

// ErrMemoryChanged is returned by ApplyConsolidation, applying nothing, when
// the user's notes changed since the consolidation read them: the worker
// computes again from the new notes.
var ErrMemoryChanged = errors.New("the traveler's memory changed while the consolidation ran")

// MemoryVersion returns the user's memory version: it advances with every
// write to their notes. Read it before the notes a computation is based on.
func (s *Store) MemoryVersion(ctx context.Context, userID string) (int64, error) {
	var v int64
	err := s.db.WithContext(ctx).Raw("SELECT memory_version FROM users WHERE id = ?", userID).Row().Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		err = ErrNotFound
	}
	if err != nil {
		return 0, fmt.Errorf("models: memory version of %s: %w", userID, err)
	}
	return v, nil
}

// bumpMemoryVersionTx advances the user's memory version inside tx. Every
// transaction that writes a user's notes calls it first, so the user's row
// is the first lock it takes (the same order everywhere: no deadlock).
func (s *Store) bumpMemoryVersionTx(tx *gorm.DB, userID string) error {
	return tx.Exec("UPDATE users SET memory_version = memory_version + 1 WHERE id = ?", userID).Error
}

// ReleaseJob hands a job back to the queue without counting the attempt, for
// a worker that stops (shutdown) before finishing it.
func (s *Store) ReleaseJob(ctx context.Context, job *ConsolidationJob, worker string) error {
	res := s.db.WithContext(ctx).Model(&ConsolidationJob{}).Where(heldJob, job.ID, worker, JobRunning, job.Attempts).
		Updates(map[string]any{"status": JobQueued, "locked_by": "", "locked_until": time.Time{}, "attempts": gorm.Expr("attempts - 1")})
	if res.Error != nil {
		return fmt.Errorf("models: release job %s: %w", job.ID, res.Error)
	}
	return nil
}

// RetryJob puts a failed job back in the queue (staff re-run).
func (s *Store) RetryJob(ctx context.Context, id string) error {
	res := s.db.WithContext(ctx).Model(&ConsolidationJob{}).Where("id = ? AND status = ?", id, JobFailed).
		Updates(map[string]any{"status": JobQueued, "attempts": 0, "error": "", "finished_at": nil, "locked_until": time.Time{}})
	if res.Error != nil {
		return fmt.Errorf("models: retry job %s: %w", id, res.Error)
	}
	if res.RowsAffected == 0 {
		return fmt.Errorf("models: retry job %s: %w (%w)", id, ErrJobNotFailed, ErrConflict)
	}
	return nil
}

// ErrJobNotFailed refuses re-running a consolidation that did not fail;
// it is also an ErrConflict.
var ErrJobNotFailed = &memory.Error{Code: memory.ENOTFAILED, Message: "Only a failed consolidation can be re-run."}

// ReportJSON is the stored and served shape of a consolidation report.
type ReportJSON struct {
	Engine         string                 `json:"engine"`
	FallbackReason string                 `json:"fallback_reason,omitempty"`
	Decisions      []consolidate.Decision `json:"decisions"`
	GlobalNotes    []memory.Note          `json:"global_notes"`
}

// applyConsolidation writes a consolidation result in one transaction: the
// session notes' fates, promoted, refreshed, pinned, superseded and forgotten
// global notes with their history and audit events, the report, the job's
// completion and the session's closing. It fails with ErrJobLost, applying
// nothing, if worker no longer holds the job — so a job is applied once —
// and with ErrMemoryChanged if the user's memory version is no longer
// version, the one read before the notes res was computed from — so two
// consolidations of one traveler never both apply results computed from
// the same notes.
func (s *Store) applyConsolidation(ctx context.Context, job *ConsolidationJob, worker string, res consolidate.Result, version int64) (*ConsolidationReport, error) {
	var report *ConsolidationReport
	err := s.write(ctx, func(tx *gorm.DB) error {
		// Compare-and-swap on the user's memory version, first: it locks
		// the user's row (PostgreSQL: a concurrent apply waits here and
		// then sees the new version; SQLite: writers are serialised).
		cas := tx.Exec("UPDATE users SET memory_version = memory_version + 1 WHERE id = ? AND memory_version = ?", job.UserID, version)
		if cas.Error != nil {
			return cas.Error
		}
		if cas.RowsAffected == 0 {
			return ErrMemoryChanged
		}
		var err error
		report, err = s.applyTx(tx, job, worker, res)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("models: apply consolidation %s: %w", job.ID, err)
	}
	s.checkpointIfForgot(ctx, res)
	return report, nil
}

// checkpointIfForgot scrubs the files after a consolidation that deleted
// notes (expired or pruned), as every other deletion does.
func (s *Store) checkpointIfForgot(ctx context.Context, res consolidate.Result) {
	for _, d := range res.Decisions {
		if d.Action == consolidate.ActionExpired || d.Action == consolidate.ActionPruned {
			s.checkpoint(ctx)
			return
		}
	}
}

// applyConsolidationLocked is the last resort of a consolidation that kept
// finding the traveler's memory changed: it locks the user's row (the
// version bump every note write takes first), reads the notes inside that
// transaction, computes the result with compute — which must be fast and
// local, the rules engine, never a model call — and applies it. Nothing can
// change the notes in between, so it always succeeds (unless the job was
// lost): a job cannot starve. It fails with ErrJobLost like
// ApplyConsolidation.
func (s *Store) applyConsolidationLocked(ctx context.Context, job *ConsolidationJob, worker string,
	compute func(global, session []memory.Note) consolidate.Result) (*ConsolidationReport, consolidate.Result, error) {
	var report *ConsolidationReport
	var res consolidate.Result
	err := s.write(ctx, func(tx *gorm.DB) error {
		if err := s.bumpMemoryVersionTx(tx, job.UserID); err != nil {
			return err
		}
		var global, session []Note
		if err := tx.Where("user_id = ? AND kind = ? AND status = ?", job.UserID, KindGlobal, StatusActive).
			Order("last_update_date, created_at, id").Find(&global).Error; err != nil {
			return err
		}
		if err := tx.Where("session_id = ? AND kind = ? AND status = ?", job.SessionID, KindSession, StatusActive).
			Order("created_at, id").Find(&session).Error; err != nil {
			return err
		}
		res = compute(domainNotes(global), domainNotes(session))
		var err error
		report, err = s.applyTx(tx, job, worker, res)
		return err
	})
	if err != nil {
		return nil, res, fmt.Errorf("models: apply consolidation %s (locked): %w", job.ID, err)
	}
	s.checkpointIfForgot(ctx, res)
	return report, res, nil
}

// applyTx writes a consolidation result inside tx, which already holds the
// user's row.
func (s *Store) applyTx(tx *gorm.DB, job *ConsolidationJob, worker string, res consolidate.Result) (*ConsolidationReport, error) {
	var report *ConsolidationReport
	err := func() error {
		now := s.now()
		// Take the job back from the queue: this fails if another worker
		// claimed it, before anything else is written.
		claim := tx.Model(&ConsolidationJob{}).Where(heldJob, job.ID, worker, JobRunning, job.Attempts).
			Updates(map[string]any{"status": JobDone, "finished_at": now, "error": "", "locked_until": time.Time{}})
		if claim.Error != nil {
			return claim.Error
		}
		if claim.RowsAffected == 0 {
			return ErrJobLost
		}
		actor := Actor{ID: job.ID, Kind: ActorConsolidation}
		prov := Provenance{SessionID: job.SessionID, ConsolidationID: job.ID}
		// gone collects notes deleted while the job ran and notes this run
		// forgets: their text must not come back, not even in the report.
		gone := map[string]bool{}
		for _, d := range res.Decisions {
			forgotten, err := s.applyDecisionTx(tx, job, d, actor, prov)
			if err != nil {
				return fmt.Errorf("decision %s on %s: %w", d.Action, d.Note.ID, err)
			}
			if forgotten {
				gone[d.Note.ID] = true
			}
		}
		for _, sup := range res.Superseded {
			if err := s.setNoteFieldsTx(tx, job.UserID, sup.NoteID, map[string]any{"status": StatusSuperseded, "superseded_by": sup.ByID},
				actor, "superseded by a newer note", "note.supersede", prov); err != nil {
				return err
			}
		}
		// Sync the resulting global notes: promoted notes become global,
		// and refreshed dates or automatic pins are recorded.
		kept := make([]memory.Note, 0, len(res.Global))
		for _, n := range res.Global {
			exists, err := s.syncGlobalTx(tx, job, n, actor, prov)
			if err != nil {
				return fmt.Errorf("sync note %s: %w", n.ID, err)
			}
			if !exists {
				gone[n.ID] = true
				continue
			}
			kept = append(kept, n)
		}
		body, err := json.Marshal(ReportJSON{Engine: res.Engine, FallbackReason: res.FallbackReason, Decisions: res.Decisions, GlobalNotes: kept})
		if err != nil {
			return err
		}
		if len(gone) > 0 {
			red, _ := redactJSON(string(body), gone)
			body = []byte(red)
		}
		report = &ConsolidationReport{ID: s.newID(), JobID: job.ID, UserID: job.UserID, SessionID: job.SessionID,
			Engine: res.Engine, FallbackReason: res.FallbackReason, Report: string(body), CreatedAt: now}
		if err := tx.Create(report).Error; err != nil {
			return err
		}
		if res.FallbackReason != "" {
			// The report holds the rejected decisions and why; the item
			// points at it.
			if err := s.addReviewTx(tx, ReviewItem{UserID: job.UserID, Kind: ReviewFallback, SessionID: job.SessionID, ConsolidationID: job.ID}); err != nil {
				return err
			}
		}
		return tx.Model(&ChatSession{}).Where("id = ?", job.SessionID).
			Updates(map[string]any{"status": SessionClosed, "closed_at": now}).Error
	}()
	return report, err
}

// applyDecisionTx records the fate of one input note. It reports whether the
// note is gone: deleted by its owner while the job ran, or forgotten now.
func (s *Store) applyDecisionTx(tx *gorm.DB, job *ConsolidationJob, d consolidate.Decision, actor Actor, prov Provenance) (bool, error) {
	var n Note
	if err := tx.Where("id = ? AND user_id = ?", d.Note.ID, job.UserID).Take(&n).Error; err != nil {
		if errors.Is(err, gorm.ErrRecordNotFound) {
			return true, nil // deleted while the job ran: nothing to decide
		}
		return false, err
	}
	switch d.Action {
	case consolidate.ActionPromoted:
		return false, nil // syncGlobalTx turns it into a global note
	case consolidate.ActionExpired, consolidate.ActionPruned:
		if n.Kind == KindGlobal {
			return true, s.forgetNoteTx(tx, &n, actor, d.Action)
		}
	case consolidate.ActionSuperseded:
		if n.Kind == KindGlobal {
			return false, nil // handled through Result.Superseded
		}
	}
	if n.Kind != KindSession {
		return false, nil
	}
	// A merged note remembers what it was merged into, so deleting that
	// note later takes this copy of the fact with it.
	fields := map[string]any{"status": StatusConsumed, "consolidation_id": job.ID, "superseded_by": d.Into}
	return false, s.setNoteFieldsTx(tx, job.UserID, n.ID, fields, actor, d.Why, "note."+d.Action, prov)
}

// forgetNoteTx removes an expired or pruned global note and its history.
func (s *Store) forgetNoteTx(tx *gorm.DB, n *Note, actor Actor, action string) error {
	// Redact first, while the note and its history can still say what
	// they said (the copies are found by those texts).
	if err := s.redactNoteTx(tx, n.UserID, map[string]bool{n.ID: true}); err != nil {
		return err
	}
	if err := tx.Where("note_id = ?", n.ID).Delete(&NoteVersion{}).Error; err != nil {
		return err
	}
	if err := tx.Delete(n).Error; err != nil {
		return err
	}
	return s.auditTx(tx, AuditEvent{UserID: n.UserID, ActorID: actor.ID, ActorKind: actor.Kind, Action: "note." + action,
		NoteID: n.ID, ConsolidationID: actor.ID})
}

// setNoteFieldsTx updates a note, adds a version and an audit event.
func (s *Store) setNoteFieldsTx(tx *gorm.DB, userID, id string, fields map[string]any, actor Actor, reason, action string, prov Provenance) error {
	var n Note
	if err := tx.Where("id = ? AND user_id = ?", id, userID).Take(&n).Error; err != nil {
		if errors.Is(err, gorm.ErrRecordNotFound) {
			return nil
		}
		return err
	}
	before := notePayload(&n)
	fields["updated_at"] = s.now()
	if err := tx.Model(&Note{}).Where("id = ?", id).Updates(fields).Error; err != nil {
		return err
	}
	if err := tx.Where("id = ?", id).Take(&n).Error; err != nil {
		return err
	}
	if err := s.addVersionTx(tx, &n, actor, reason); err != nil {
		return err
	}
	return s.auditTx(tx, AuditEvent{UserID: userID, ActorID: actor.ID, ActorKind: actor.Kind, Action: action, NoteID: id,
		Reason: reason, Before: before, After: notePayload(&n), SessionID: prov.SessionID, ConsolidationID: prov.ConsolidationID})
}

// syncGlobalTx makes the stored note match a resulting global note. It
// reports false, writing nothing, when the note no longer exists (deleted
// while the job ran: consolidation never brings a deleted note back).
func (s *Store) syncGlobalTx(tx *gorm.DB, job *ConsolidationJob, g memory.Note, actor Actor, prov Provenance) (bool, error) {
	var n Note
	err := tx.Where("id = ? AND user_id = ?", g.ID, job.UserID).Take(&n).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if n.Kind == KindGlobal && job.StartedAt != nil && n.UpdatedAt.After(*job.StartedAt) {
		// Someone (staff) changed the note while the engine worked on an
		// older copy: their change wins.
		return true, nil
	}
	fields := map[string]any{}
	action := "note.update"
	if n.Kind != KindGlobal || n.Status != StatusActive {
		fields["kind"], fields["status"], fields["scope"] = KindGlobal, StatusActive, string(memory.ScopeDurable)
		fields["source"], fields["consolidation_id"] = string(memory.SourceConsolidation), job.ID
		action = "note.promote"
	}
	if n.Text != g.Text {
		if err := screenConsolidated(g.Text); err != nil {
			return true, err
		}
		fields["text"] = g.Text
	}
	if kw := encodeKeywords(g.Keywords); kw != n.Keywords && len(g.Keywords) > 0 {
		fields["keywords"] = kw
	}
	if g.LastUpdateDate != "" && g.LastUpdateDate != n.LastUpdateDate {
		fields["last_update_date"] = g.LastUpdateDate
	}
	if g.ExpiresOn != n.ExpiresOn {
		fields["expires_on"] = g.ExpiresOn
	}
	if g.Pinned != n.Pinned {
		fields["pinned"] = g.Pinned
		if action == "note.update" {
			action = "note.pin"
		}
	}
	if len(fields) == 0 {
		return true, nil
	}
	if err := s.setNoteFieldsTx(tx, job.UserID, g.ID, fields, actor, "consolidation", action, prov); err != nil {
		return true, err
	}
	return true, s.reviewConsolidatedTx(tx, job, g.ID, fields)
}
