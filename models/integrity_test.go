package models_test

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"concierge/memory"
	"concierge/memory/consolidate"
	"concierge/models"
	"concierge/models/dbtest"
)

func openSession(t *testing.T, s *models.Store) (*models.User, *models.ChatSession) {
	t.Helper()
	u, err := s.CreateUser(ctx, models.NewID()+"@example.com", "Ada", models.RoleTraveler, "secret-pass")
	if err != nil {
		t.Fatal(err)
	}
	cs, err := s.CreateChatSession(ctx, u.ID)
	if err != nil {
		t.Fatal(err)
	}
	return u, cs
}

// TestSubmitUserMessage: keys store once, turns come from the database,
// and a message is refused (nothing written) while another holder's lease
// runs.
func TestSubmitUserMessage(t *testing.T) {
	dbtest.Backends(t, func(t *testing.T, s *models.Store) {
		_, cs := openSession(t, s)
		m1, existed, err := submit(s, models.UserMessage{SessionID: cs.ID, Content: "one", IdempotencyKey: "k1"})
		if err != nil || existed || m1.Turn != 1 {
			t.Fatalf("first: %+v %v %v, want turn 1, new", m1, existed, err)
		}
		again, existed, err := submit(s, models.UserMessage{SessionID: cs.ID, Content: "one", IdempotencyKey: "k1"})
		if err != nil || !existed || again.ID != m1.ID {
			t.Errorf("same key: %+v %v %v, want the stored message", again, existed, err)
		}
		if _, err := s.SubmitHolding(ctx, models.UserMessage{SessionID: cs.ID, Content: "two", IdempotencyKey: "k1"}, nil); !errors.Is(err, models.ErrKeyReused) {
			t.Errorf("key reused for other text: %v, want ErrKeyReused", err)
		}
		// Without a key, the same text as the unanswered last message is a retry.
		m2, _, _ := submit(s, models.UserMessage{SessionID: cs.ID, Content: "two"})
		retry, existed, _ := submit(s, models.UserMessage{SessionID: cs.ID, Content: "two"})
		if m2.Turn != 2 || !existed || retry.ID != m2.ID {
			t.Errorf("text retry: turn %d existed %v, want turn 2 and the stored message", m2.Turn, existed)
		}

		lease, err := s.TakeAnswerLease(ctx, cs.ID, time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.SubmitHolding(ctx, models.UserMessage{SessionID: cs.ID, Content: "three"}, nil); !errors.Is(err, models.ErrBusy) {
			t.Errorf("while another holds the lease: %v, want ErrBusy", err)
		}
		if memory.ErrorCode(models.ErrBusy) != memory.ENOTSTORED {
			t.Errorf("ErrBusy's code = %q, want %q", memory.ErrorCode(models.ErrBusy), memory.ENOTSTORED)
		}
		m3, _, err := submitHolding(s, models.UserMessage{SessionID: cs.ID, Content: "three"}, lease)
		if err != nil || m3.Turn != 3 {
			t.Errorf("the holder: %+v %v, want turn 3", m3, err)
		}
		msgs, _ := s.Messages(ctx, cs.ID)
		if len(msgs) != 3 {
			t.Errorf("%d messages stored, want 3", len(msgs))
		}
	})
}

// submit is a lease-less submission's message and whether it existed.
func submit(s *models.Store, um models.UserMessage) (*models.Message, bool, error) {
	return submitHolding(s, um, nil)
}

// submitHolding is the message of a submission by lease's holder and
// whether it existed.
func submitHolding(s *models.Store, um models.UserMessage, lease *models.AnswerLease) (*models.Message, bool, error) {
	sub, err := s.SubmitHolding(ctx, um, lease)
	if err != nil {
		return nil, false, err
	}
	return sub.Message, sub.Existed, nil
}

// TestSubmitTakesLease: a submission that takes the answer lease stores
// the message and leases the session in one transaction, refuses (writing
// nothing) while another holder's lease runs, and a round committed with
// Release stores its snapshot and messages and gives the lease back.
func TestSubmitTakesLease(t *testing.T) {
	dbtest.Backends(t, func(t *testing.T, s *models.Store) {
		_, cs := openSession(t, s)
		if _, err := s.SubmitUserMessage(ctx, models.UserMessage{SessionID: cs.ID, Content: "hello"}); !errors.Is(err, models.ErrNoLeaseTime) {
			t.Errorf("submit without a lease time: %v, want ErrNoLeaseTime", err)
		}
		sub, err := s.SubmitUserMessage(ctx, models.UserMessage{SessionID: cs.ID, Content: "hello", TakeLease: time.Minute})
		if err != nil || sub.Lease == nil || sub.Message.Turn != 1 {
			t.Fatalf("submit taking the lease: %+v %v", sub, err)
		}
		if sub.Session.AnsweringBy != sub.Lease.Token || sub.Session.Title != "hello" {
			t.Errorf("returned session: answering_by %q title %q, want the lease's token and the title", sub.Session.AnsweringBy, sub.Session.Title)
		}
		if _, err := s.TakeAnswerLease(ctx, cs.ID, time.Minute); !errors.Is(err, models.ErrBusy) {
			t.Errorf("lease after the submit: %v, want ErrBusy (held)", err)
		}
		if _, err := s.SubmitUserMessage(ctx, models.UserMessage{SessionID: cs.ID, Content: "again", TakeLease: time.Minute}); !errors.Is(err, models.ErrBusy) {
			t.Errorf("second submit while leased: %v, want ErrBusy", err)
		}
		r := models.Round{Snapshot: &models.TurnSnapshot{SessionID: cs.ID, UserID: cs.UserID, Turn: 1, Round: 1, Instructions: "i"},
			Messages: []*models.Message{
				{SessionID: cs.ID, Role: "assistant", ToolCalls: `[{"id":"c1","name":"save_memory_note","arguments":"{}"}]`, Turn: 1},
				{SessionID: cs.ID, Role: "tool", Content: `{"ok":true}`, ToolCallID: "c1", Turn: 1},
			}, Renew: time.Minute}
		if err := s.Notes(memory.Limits{}).CommitRound(ctx, sub.Lease, r); err != nil {
			t.Fatal(err)
		}
		final := models.Round{Snapshot: &models.TurnSnapshot{SessionID: cs.ID, UserID: cs.UserID, Turn: 1, Round: 2, Instructions: "i"},
			Messages: []*models.Message{{SessionID: cs.ID, Role: "assistant", Content: "hi", Turn: 1}}, Release: true}
		if err := s.Notes(memory.Limits{}).CommitRound(ctx, sub.Lease, final); err != nil {
			t.Fatal(err)
		}
		msgs, _ := s.Messages(ctx, cs.ID)
		var seqs []int
		for _, m := range msgs {
			seqs = append(seqs, m.Seq)
		}
		if fmt.Sprint(seqs) != "[1 2 3 4]" {
			t.Errorf("sequence numbers %v, want [1 2 3 4]", seqs)
		}
		if snaps, _ := s.Snapshots(ctx, cs.ID); len(snaps) != 2 {
			t.Errorf("%d snapshots, want 2", len(snaps))
		}
		l, err := s.TakeAnswerLease(ctx, cs.ID, time.Minute)
		if err != nil {
			t.Fatalf("the released lease is free: %v", err)
		}
		if err := s.Notes(memory.Limits{}).CommitRound(ctx, sub.Lease, final); !errors.Is(err, models.ErrLeaseLost) {
			t.Errorf("a released lease commits: %v, want ErrLeaseLost", err)
		}
		_ = s.ReleaseAnswerLease(ctx, l)
	})
}

// TestSubmittedLeaseFencesItsRounds: a lease taken by a submission knows
// where the transcript ends, so its rounds commit without reading the
// session first; the update of the lease is then the fence. A holder whose
// lease ran out and was taken over by another submission writes nothing
// (ErrLeaseLost), and one whose conversation ended meanwhile is told so
// (ErrSessionClosed). The submission also reads the owner's language.
func TestSubmittedLeaseFencesItsRounds(t *testing.T) {
	dbtest.Backends(t, func(t *testing.T, s *models.Store) {
		u, cs := openSession(t, s)
		if err := s.SetUserLanguage(ctx, u.ID, "es"); err != nil {
			t.Fatal(err)
		}
		old, err := s.SubmitUserMessage(ctx, models.UserMessage{SessionID: cs.ID, Content: "hola", TakeLease: 50 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		if old.Language != "es" {
			t.Errorf("submitted language %q, want es", old.Language)
		}
		time.Sleep(120 * time.Millisecond)
		// The lease ran out: a new message takes the session over.
		taker, err := s.SubmitUserMessage(ctx, models.UserMessage{SessionID: cs.ID, Content: "otra vez", TakeLease: time.Minute})
		if err != nil {
			t.Fatalf("taking over a lease that ran out: %v", err)
		}
		late := models.Round{Snapshot: &models.TurnSnapshot{SessionID: cs.ID, UserID: u.ID, Turn: 1, Round: 1, Instructions: "late"},
			Messages: []*models.Message{{SessionID: cs.ID, Role: "assistant", Content: "late answer", Turn: 1}}, Release: true}
		if err := s.Notes(memory.Limits{}).CommitRound(ctx, old.Lease, late); !errors.Is(err, models.ErrLeaseLost) {
			t.Errorf("old holder commits: %v, want ErrLeaseLost", err)
		}
		if snaps, _ := s.Snapshots(ctx, cs.ID); len(snaps) != 0 {
			t.Errorf("the refused round left %d snapshots", len(snaps))
		}
		round := models.Round{Messages: []*models.Message{{SessionID: cs.ID, Role: "assistant", Content: "respuesta", Turn: 2}}, Renew: time.Minute}
		if err := s.Notes(memory.Limits{}).CommitRound(ctx, taker.Lease, round); err != nil {
			t.Fatalf("new holder commits: %v", err)
		}
		if _, err := s.CloseSession(ctx, cs.ID, "traveler"); err != nil {
			t.Fatal(err)
		}
		more := models.Round{Messages: []*models.Message{{SessionID: cs.ID, Role: "assistant", Content: "after the end", Turn: 2}}, Release: true}
		if err := s.Notes(memory.Limits{}).CommitRound(ctx, taker.Lease, more); !errors.Is(err, models.ErrSessionClosed) {
			t.Errorf("commit into an ended conversation: %v, want ErrSessionClosed", err)
		}
		msgs, _ := s.Messages(ctx, cs.ID)
		var got []string
		for _, m := range msgs {
			got = append(got, fmt.Sprint(m.Seq, m.Role, m.Turn))
		}
		if want := "[1user1 2user2 3assistant2]"; fmt.Sprint(got) != want {
			t.Errorf("transcript %v, want %s", got, want)
		}
	})
}

// TestConcurrentSubmitsGetUniqueTurns: 20 submits at once (no lease held),
// each with its own key: all stored, turns 1..20 each once.
func TestConcurrentSubmitsGetUniqueTurns(t *testing.T) {
	dbtest.Backends(t, func(t *testing.T, s *models.Store) {
		_, cs := openSession(t, s)
		var wg sync.WaitGroup
		errs := make(chan error, 20)
		for i := range 20 {
			wg.Go(func() {
				_, err := s.SubmitHolding(ctx, models.UserMessage{SessionID: cs.ID, Content: fmt.Sprint("m", i), IdempotencyKey: fmt.Sprint("k", i)}, nil)
				errs <- err
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			if err != nil {
				t.Errorf("submit: %v", err)
			}
		}
		msgs, _ := s.Messages(ctx, cs.ID)
		turns := map[int]bool{}
		for _, m := range msgs {
			turns[m.Turn] = true
		}
		if len(msgs) != 20 || len(turns) != 20 {
			t.Errorf("%d messages with %d distinct turns, want 20 and 20", len(msgs), len(turns))
		}
	})
}

// TestAnswerLeaseFencing: a lease that ran out is taken over; the old
// holder's renewal and writes then fail with ErrLeaseLost.
func TestAnswerLeaseFencing(t *testing.T) {
	dbtest.Backends(t, func(t *testing.T, s *models.Store) {
		_, cs := openSession(t, s)
		m, _, _ := submit(s, models.UserMessage{SessionID: cs.ID, Content: "hello"})
		old, err := s.TakeAnswerLease(ctx, cs.ID, 50*time.Millisecond)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.TakeAnswerLease(ctx, cs.ID, time.Minute); !errors.Is(err, models.ErrBusy) {
			t.Fatalf("while held: %v, want ErrBusy", err)
		}
		if err := s.RenewAnswerLease(ctx, old, 50*time.Millisecond); err != nil {
			t.Errorf("renewing a held lease: %v", err)
		}
		time.Sleep(120 * time.Millisecond)
		taker, err := s.TakeAnswerLease(ctx, cs.ID, time.Minute)
		if err != nil {
			t.Fatalf("taking over a lease that ran out: %v", err)
		}
		if err := s.RenewAnswerLease(ctx, old, time.Minute); !errors.Is(err, models.ErrLeaseLost) {
			t.Errorf("old holder renews: %v, want ErrLeaseLost", err)
		}
		stale := models.Round{Snapshot: &models.TurnSnapshot{SessionID: cs.ID, UserID: cs.UserID, Turn: m.Turn, Round: 1, Instructions: "late"},
			Messages: []*models.Message{{SessionID: cs.ID, Role: "assistant", Content: "late answer", Turn: m.Turn}}}
		if err := s.Notes(memory.Limits{}).CommitRound(ctx, old, stale); !errors.Is(err, models.ErrLeaseLost) {
			t.Errorf("old holder writes: %v, want ErrLeaseLost", err)
		}
		if snaps, _ := s.Snapshots(ctx, cs.ID); len(snaps) != 0 {
			t.Errorf("the old holder's refused round left %d snapshots", len(snaps))
		}
		if err := s.Notes(memory.Limits{}).CommitRound(ctx, taker, models.Round{Messages: []*models.Message{{SessionID: cs.ID, Role: "assistant", Content: "answer", Turn: m.Turn}},
			Renew: time.Minute}); err != nil {
			t.Errorf("new holder writes: %v", err)
		}
		_ = s.ReleaseAnswerLease(ctx, old) // leaves the taker's lease alone
		if _, err := s.TakeAnswerLease(ctx, cs.ID, time.Minute); !errors.Is(err, models.ErrBusy) {
			t.Errorf("after the old holder's release: %v, want the taker's lease to stand", err)
		}
	})
}

// TestStaleConsolidationIsNotApplied: two jobs of one traveler computed from
// the same notes; the second to apply is refused and, recomputed, merges
// into the first's note instead of duplicating it.
func TestStaleConsolidationIsNotApplied(t *testing.T) {
	dbtest.Backends(t, func(t *testing.T, s *models.Store) {
		sesame := memory.Note{Text: "Is allergic to sesame.", Keywords: []string{"allergy", "sesame"}, Scope: memory.ScopeDurable}
		uid, _, _ := closedSession(t, s, sesame)
		cs2, _ := s.CreateChatSession(ctx, uid)
		sesame.Source = memory.SourceAssistant
		if _, err := s.Notes(memory.Limits{}).Add(ctx, models.NewNote{UserID: uid, Kind: models.KindSession, Note: sesame,
			Prov: models.Provenance{SessionID: cs2.ID}}, models.Actor{Kind: models.ActorAssistant}, ""); err != nil {
			t.Fatal(err)
		}
		if _, err := s.CloseSession(ctx, cs2.ID, "test"); err != nil {
			t.Fatal(err)
		}
		a, _ := s.ClaimJob(ctx, "w1", time.Minute)
		b, _ := s.ClaimJob(ctx, "w2", time.Minute)
		if a == nil || b == nil {
			t.Fatal("want two claimed jobs")
		}
		opt := consolidate.Options{Today: "2026-11-29", MaxGlobalNotes: 200}
		compute := func(job *models.ConsolidationJob) (consolidate.Result, int64) {
			v, _ := s.MemoryVersion(ctx, uid)
			global, _ := s.GlobalNotes(ctx, uid)
			session, _ := s.SessionNotes(ctx, job.SessionID)
			return consolidate.ByRules(global, session, opt), v
		}
		resA, vA := compute(a)
		resB, vB := compute(b) // the same notes, the same version
		if _, err := s.Notes(memory.Limits{}).ApplyConsolidation(ctx, a, "w1", resA, vA); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Notes(memory.Limits{}).ApplyConsolidation(ctx, b, "w2", resB, vB); !errors.Is(err, models.ErrMemoryChanged) {
			t.Fatalf("stale apply: %v, want ErrMemoryChanged", err)
		}
		if _, _, err := s.Notes(memory.Limits{}).ApplyConsolidationLocked(ctx, b, "w2", func(global, session []memory.Note) consolidate.Result {
			return consolidate.ByRules(global, session, opt)
		}); err != nil {
			t.Fatalf("locked apply: %v", err)
		}
		global, _ := s.GlobalNotes(ctx, uid)
		n := 0
		for _, g := range global {
			if strings.Contains(g.Text, "sesame") {
				n++
			}
		}
		if n != 1 {
			t.Errorf("%d sesame notes, want 1", n)
		}
	})
}

// TestNoteWritesAdvanceTheMemoryVersion: create, update and delete each
// advance the version a consolidation compares against.
func TestNoteWritesAdvanceTheMemoryVersion(t *testing.T) {
	dbtest.Backends(t, func(t *testing.T, s *models.Store) {
		u, _ := openSession(t, s)
		v0, _ := s.MemoryVersion(ctx, u.ID)
		n, err := s.Notes(memory.Limits{}).Add(ctx, models.NewNote{UserID: u.ID, Kind: models.KindGlobal, Note: memory.Note{Text: "Likes tea.", Keywords: []string{"tea"}}},
			models.Actor{Kind: models.ActorSupport}, "call")
		if err != nil {
			t.Fatal(err)
		}
		v1, _ := s.MemoryVersion(ctx, u.ID)
		text := "Likes green tea."
		if _, err := s.Notes(memory.Limits{}).Edit(ctx, u.ID, n.ID, models.NotePatch{Text: &text}, models.Actor{Kind: models.ActorSupport}, "call"); err != nil {
			t.Fatal(err)
		}
		v2, _ := s.MemoryVersion(ctx, u.ID)
		if err := s.Notes(memory.Limits{}).Delete(ctx, u.ID, n.ID, models.Actor{Kind: models.ActorTraveler}, "no"); err != nil {
			t.Fatal(err)
		}
		v3, _ := s.MemoryVersion(ctx, u.ID)
		if !(v0 < v1 && v1 < v2 && v2 < v3) {
			t.Errorf("versions %d → %d → %d → %d, want strictly increasing", v0, v1, v2, v3)
		}
	})
}

// TestJobLeaseRenewal: a held job is renewed; once taken over after its
// lease ran out, the old claim can neither renew nor apply.
func TestJobLeaseRenewal(t *testing.T) {
	dbtest.Backends(t, func(t *testing.T, s *models.Store) {
		uid, _, _ := closedSession(t, s, memory.Note{Text: "Likes trains.", Keywords: []string{"train"}, Scope: memory.ScopeDurable})
		old, err := s.ClaimJob(ctx, "w1", 50*time.Millisecond)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.RenewJob(ctx, old, "w1", 50*time.Millisecond); err != nil {
			t.Errorf("renew a held job: %v", err)
		}
		if _, err := s.ClaimJob(ctx, "w1", time.Minute); !errors.Is(err, models.ErrNotFound) {
			t.Errorf("claiming a live job: %v, want nothing to do", err)
		}
		time.Sleep(120 * time.Millisecond)
		// Same worker id (a second goroutine of one instance) takes it over.
		if _, err := s.ClaimJob(ctx, "w1", time.Minute); err != nil {
			t.Fatalf("take over: %v", err)
		}
		if err := s.RenewJob(ctx, old, "w1", time.Minute); !errors.Is(err, models.ErrJobLost) {
			t.Errorf("old claim renews: %v, want ErrJobLost", err)
		}
		v, _ := s.MemoryVersion(ctx, uid)
		if _, err := s.Notes(memory.Limits{}).ApplyConsolidation(ctx, old, "w1", consolidate.Result{}, v); !errors.Is(err, models.ErrJobLost) {
			t.Errorf("old claim applies: %v, want ErrJobLost", err)
		}
	})
}

// TestMigrateAndSeedTogether runs MigrateAndSeed from several stores on
// one new database at once: every call succeeds and the demo is seeded once.
func TestMigrateAndSeedTogether(t *testing.T) {
	path := t.TempDir() + "/together.db"
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	seeded := make(chan bool, 4)
	for range 4 {
		wg.Go(func() {
			s, err := models.Open(path)
			if err != nil {
				errs <- err
				return
			}
			defer s.Close()
			ok, err := s.MigrateAndSeed(ctx, "demo")
			errs <- err
			seeded <- ok
		})
	}
	wg.Wait()
	close(errs)
	close(seeded)
	for err := range errs {
		if err != nil {
			t.Errorf("MigrateAndSeed: %v", err)
		}
	}
	n := 0
	for ok := range seeded {
		if ok {
			n++
		}
	}
	if n != 1 {
		t.Errorf("seeded %d times, want once", n)
	}
}

// TestPendingUserMessage: the last user message is pending only while its
// own turn has no final answer; an older unanswered turn never counts.
func TestPendingUserMessage(t *testing.T) {
	dbtest.Backends(t, func(t *testing.T, s *models.Store) {
		_, cs := openSession(t, s)
		if _, err := s.PendingUserMessage(ctx, cs.ID); !errors.Is(err, models.ErrNotFound) {
			t.Errorf("empty session: %v, want ErrNotFound", err)
		}
		for _, m := range []*models.Message{
			{SessionID: cs.ID, Role: "user", Content: "one"}, // never answered
			{SessionID: cs.ID, Role: "user", Content: "two"},
			{SessionID: cs.ID, Role: "assistant", ToolCalls: `[{"id":"c"}]`, Turn: 2},
		} {
			if err := s.AppendMessage(ctx, m); err != nil {
				t.Fatal(err)
			}
		}
		if p, err := s.PendingUserMessage(ctx, cs.ID); err != nil || p.Content != "two" {
			t.Errorf("a tool round is no answer: %+v %v, want turn 2 pending", p, err)
		}
		if err := s.AppendMessage(ctx, &models.Message{SessionID: cs.ID, Role: "assistant", Content: "answer", Turn: 2}); err != nil {
			t.Fatal(err)
		}
		if p, err := s.PendingUserMessage(ctx, cs.ID); !errors.Is(err, models.ErrNotFound) {
			t.Errorf("last turn answered, an older one not: %+v %v, want ErrNotFound", p, err)
		}
	})
}
