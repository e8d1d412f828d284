package models_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"concierge/models"
	"concierge/models/dbtest"
)

// TestSignInLockIsPerEmailAndAddress: failures from one address lock that
// address out of that email only; another address still signs in, and an
// unknown email answers exactly as a known one does.
func TestSignInLockIsPerEmailAndAddress(t *testing.T) {
	dbtest.Backends(t, func(t *testing.T, s *models.Store) {
		now := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
		s.Now = func() time.Time { return now }
		if _, err := s.CreateUser(ctx, "lock@example.com", "Lock", models.RoleTraveler, "right-pass"); err != nil {
			t.Fatal(err)
		}
		policy := models.LoginPolicy{FreeAttempts: 3, BaseLock: time.Minute, MaxLock: 10 * time.Minute, DelayAfter: 1000, Window: time.Hour}
		const attacker, owner = "203.0.113.9", "198.51.100.7"
		for _, email := range []string{"lock@example.com", "nobody@example.com"} {
			for i := 0; i < 3; i++ {
				if _, err := s.Authenticate(ctx, email, "wrong", attacker, policy); !errors.Is(err, models.ErrBadCredentials) {
					t.Fatalf("%s attempt %d: got %v, want ErrBadCredentials", email, i, err)
				}
			}
			var locked *models.LockedError
			if _, err := s.Authenticate(ctx, email, "right-pass", attacker, policy); !errors.As(err, &locked) {
				t.Fatalf("%s after 3 failures: got %v, want LockedError", email, err)
			}
			if want := now.Add(time.Minute); !locked.Until.Equal(want) {
				t.Errorf("%s locked until %v, want %v", email, locked.Until, want)
			}
		}
		if _, err := s.Authenticate(ctx, "lock@example.com", "right-pass", owner, policy); err != nil {
			t.Fatalf("the owner from another address is locked out too: %v", err)
		}
		now = now.Add(2 * time.Minute)
		// One more failure after the lock ran out locks for twice as long.
		if _, err := s.Authenticate(ctx, "lock@example.com", "wrong", attacker, policy); !errors.Is(err, models.ErrBadCredentials) {
			t.Fatalf("after the lock: %v", err)
		}
		var locked *models.LockedError
		if _, err := s.Authenticate(ctx, "lock@example.com", "right-pass", attacker, policy); !errors.As(err, &locked) || !locked.Until.Equal(now.Add(2*time.Minute)) {
			t.Fatalf("fourth failure: got %v, want a lock of 2m", err)
		}
		now = now.Add(3 * time.Minute)
		if _, err := s.Authenticate(ctx, "lock@example.com", "right-pass", attacker, policy); err != nil {
			t.Fatalf("after the second lock: %v", err)
		}
	})
}

// TestSignInDelayGrowsPerEmail: failures spread over many addresses make
// every later attempt on that email wait, doubling, before the password is
// checked — the right one included, so a guesser cannot give up early — and
// never lock the owner out.
func TestSignInDelayGrowsPerEmail(t *testing.T) {
	dbtest.Backends(t, func(t *testing.T, s *models.Store) {
		var mu sync.Mutex
		var waits []time.Duration
		s.Sleep = func(_ context.Context, d time.Duration) error {
			mu.Lock()
			defer mu.Unlock()
			waits = append(waits, d)
			return nil
		}
		if _, err := s.CreateUser(ctx, "admin2@example.com", "Admin Two", models.RoleAdmin, "right-pass"); err != nil {
			t.Fatal(err)
		}
		policy := models.LoginPolicy{FreeAttempts: 3, BaseLock: time.Minute, MaxLock: time.Hour,
			DelayAfter: 4, BaseDelay: 100 * time.Millisecond, MaxDelay: 400 * time.Millisecond, Window: time.Hour}
		for i := 0; i < 7; i++ {
			addr := "203.0.113." + string(rune('1'+i)) // a new address each time: no pair lock
			if _, err := s.Authenticate(ctx, "admin2@example.com", "wrong", addr, policy); !errors.Is(err, models.ErrBadCredentials) {
				t.Fatalf("guess %d: %v", i, err)
			}
		}
		want := []time.Duration{100 * time.Millisecond, 200 * time.Millisecond, 400 * time.Millisecond}
		if len(waits) != len(want) {
			t.Fatalf("waits %v, want %v", waits, want)
		}
		for i := range want {
			if waits[i] != want[i] {
				t.Errorf("wait %d = %v, want %v", i, waits[i], want[i])
			}
		}
		waits = nil
		if _, err := s.Authenticate(ctx, "admin2@example.com", "right-pass", "198.51.100.7", policy); err != nil {
			t.Fatalf("the owner cannot sign in: %v", err)
		}
		if len(waits) != 1 || waits[0] != 400*time.Millisecond {
			t.Errorf("the right password waited %v, want [400ms]: a wrong one must not answer faster", waits)
		}
		// The owner's success clears the counter: the next attempt does not wait.
		waits = nil
		if _, err := s.Authenticate(ctx, "admin2@example.com", "right-pass", "198.51.100.7", policy); err != nil || len(waits) != 0 {
			t.Errorf("after a success: err %v, waits %v", err, waits)
		}
	})
}

// TestParallelFailedSignInsAllCount guesses in parallel: every failure must
// count, or parallel guessing would slip past the lock.
func TestParallelFailedSignInsAllCount(t *testing.T) {
	dbtest.Backends(t, func(t *testing.T, s *models.Store) {
		if _, err := s.CreateUser(ctx, "par@example.com", "Par", models.RoleTraveler, "right-pass"); err != nil {
			t.Fatal(err)
		}
		policy := models.LoginPolicy{FreeAttempts: 8, BaseLock: time.Minute, MaxLock: time.Hour, DelayAfter: 1000, Window: time.Hour}
		var wg sync.WaitGroup
		for range 7 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, _ = s.Authenticate(ctx, "par@example.com", "wrong", "203.0.113.1", policy)
			}()
		}
		wg.Wait()
		if _, err := s.Authenticate(ctx, "par@example.com", "right-pass", "203.0.113.1", policy); err != nil {
			t.Fatalf("7 failures of 8 free locked already: %v", err)
		}
		for range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, _ = s.Authenticate(ctx, "par@example.com", "wrong", "203.0.113.1", policy)
			}()
		}
		wg.Wait()
		var locked *models.LockedError
		if _, err := s.Authenticate(ctx, "par@example.com", "right-pass", "203.0.113.1", policy); !errors.As(err, &locked) {
			t.Fatalf("8 parallel failures did not all count: %v", err)
		}
	})
}

// TestDisabledAccount cannot sign in, and its sessions and tokens stop
// working; enabled again, it signs in.
func TestDisabledAccount(t *testing.T) {
	dbtest.Backends(t, func(t *testing.T, s *models.Store) {
		u, err := s.CreateUser(ctx, "gone@example.com", "Gone", models.RoleSupport, "right-pass")
		if err != nil {
			t.Fatal(err)
		}
		token, _, err := s.CreateAPIToken(ctx, u.ID, time.Hour)
		if err != nil {
			t.Fatal(err)
		}
		cookie, err := s.CreateWebSession(ctx, u.ID, time.Hour, 0)
		if err != nil {
			t.Fatal(err)
		}
		admin := models.Actor{ID: "admin", Kind: models.ActorAdmin}
		if _, err := s.SetUserDisabled(ctx, u.ID, true, admin, "left the company"); err != nil {
			t.Fatal(err)
		}
		if _, err := s.UserByAPIToken(ctx, token); !errors.Is(err, models.ErrNotFound) {
			t.Errorf("token of a disabled account: %v, want ErrNotFound", err)
		}
		if _, err := s.UserByWebSession(ctx, cookie, time.Hour, 0); !errors.Is(err, models.ErrNotFound) {
			t.Errorf("session of a disabled account: %v, want ErrNotFound", err)
		}
		if _, err := s.Authenticate(ctx, "gone@example.com", "right-pass", "127.0.0.1", models.DefaultLoginPolicy); !errors.Is(err, models.ErrBadCredentials) {
			t.Errorf("sign-in of a disabled account: %v, want ErrBadCredentials", err)
		}
		if _, err := s.SetUserDisabled(ctx, u.ID, false, admin, "came back"); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Authenticate(ctx, "gone@example.com", "right-pass", "127.0.0.2", models.DefaultLoginPolicy); err != nil {
			t.Errorf("sign-in after enabling: %v", err)
		}
		ev, _ := s.AuditEvents(ctx, models.AuditFilter{UserID: u.ID})
		var actions []string
		for _, e := range ev {
			actions = append(actions, e.Action)
		}
		if got := strings.Join(actions, ","); !strings.Contains(got, "account.disable") || !strings.Contains(got, "account.enable") {
			t.Errorf("audit actions %q lack account.disable and account.enable", got)
		}
	})
}

func TestCheckPassword(t *testing.T) {
	tests := []struct {
		name, password string
		wantOK         bool
		wantIn         string
	}{
		{"common word", "password", false, "easy to guess"},
		{"eight spaces", "        ", false, "only spaces"},
		{"too short", "Tq7!x", false, "at least 8"},
		{"keyboard walk", "qwertyuiop", false, "easy to guess"},
		{"the account's own name", "adalovelace", false, "easy to guess"},
		{"73 bytes", strings.Repeat("kx7Qm", 14) + "abc", false, "at most 72 bytes"},
		{"72 bytes", strings.Repeat("kx7Qm", 14) + "ab", true, ""},
		{"multibyte past 72 bytes", strings.Repeat("é", 37), false, "at most 72 bytes"},
		{"four unrelated words", "lantern orbit velvet cactus", true, ""},
		{"long mixed", "Tr4vel-light-2031!", true, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := models.CheckPassword(tt.password, "ada@example.com", "Ada Lovelace")
			if tt.wantOK {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			var pe *models.PasswordError
			if !errors.As(err, &pe) || !strings.Contains(pe.Message, tt.wantIn) {
				t.Fatalf("got %v, want a PasswordError saying %q", err, tt.wantIn)
			}
		})
	}
}

func TestCheckTicket(t *testing.T) {
	for _, ok := range []string{"", "DSR-2041", "a", strings.Repeat("x", 40)} {
		if err := models.CheckTicket(ok); err != nil {
			t.Errorf("CheckTicket(%q) = %v, want nil", ok, err)
		}
	}
	for _, bad := range []string{strings.Repeat("x", 41), "john@example.com", "John Doe", "DSR_1", "ticket\n1", "ДСР-1"} {
		if err := models.CheckTicket(bad); err == nil {
			t.Errorf("CheckTicket(%q) = nil, want an error", bad)
		}
	}
}

// TestParallelGuessesCheckedAtMostFree sends 20 wrong passwords at once from
// one address: the attempts are counted before the check, so at most the
// five free ones reach the password check and the rest meet the lock.
func TestParallelGuessesCheckedAtMostFree(t *testing.T) {
	dbtest.Backends(t, func(t *testing.T, s *models.Store) {
		if _, err := s.CreateUser(ctx, "race@example.com", "Race", models.RoleTraveler, "right-pass"); err != nil {
			t.Fatal(err)
		}
		policy := models.LoginPolicy{FreeAttempts: 5, BaseLock: time.Minute, MaxLock: time.Hour, DelayAfter: 1000, Window: time.Hour}
		var (
			wg                 sync.WaitGroup
			mu                 sync.Mutex
			checked, lockedOut int
		)
		start := make(chan struct{})
		for range 20 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				_, err := s.Authenticate(ctx, "race@example.com", "wrong", "203.0.113.20", policy)
				var locked *models.LockedError
				mu.Lock()
				defer mu.Unlock()
				switch {
				case errors.Is(err, models.ErrBadCredentials):
					checked++ // only a checked password answers this
				case errors.As(err, &locked):
					lockedOut++
				default:
					t.Errorf("attempt: %v", err)
				}
			}()
		}
		close(start)
		wg.Wait()
		if checked > 5 || checked+lockedOut != 20 {
			t.Fatalf("20 parallel guesses: %d checked, %d locked out; want at most 5 checked, the rest locked", checked, lockedOut)
		}
		var locked *models.LockedError
		if _, err := s.Authenticate(ctx, "race@example.com", "right-pass", "203.0.113.20", policy); !errors.As(err, &locked) {
			t.Fatalf("after the guesses the right password from that address: %v, want locked", err)
		}
	})
}
