package models

import (
	"context"
	"errors"
	"fmt"
	"time"

	"golang.org/x/crypto/bcrypt"
)

// ErrBadCredentials is returned when an email and password do not match,
// and for a disabled account: a sign-in never tells which.
var ErrBadCredentials = errors.New("bad credentials")

// LockedError is returned while one address may not try one email.
type LockedError struct{ Until time.Time }

func (e *LockedError) Error() string {
	return "sign-in from this address locked until " + e.Until.Format(time.RFC3339)
}

// LoginPolicy says how failed sign-ins slow down guessing. Failures are
// counted per email — whether or not an account has it, so the answers never
// tell which accounts exist — in two ways:
//
//   - per email and client address: after FreeAttempts failures within
//     Window, that address may not try that email for BaseLock, doubling with
//     each further failure up to MaxLock. Other addresses are not affected, so
//     nobody can lock someone else out of their account.
//   - per email, from every address: after DelayAfter failures within Window,
//     every attempt on that email waits BaseDelay before the password is even
//     checked, doubling with each further failure up to MaxDelay. Waiting
//     before the check means a guesser cannot give up early on a wrong
//     password; the owner still gets in, only more slowly.
//
// A successful sign-in clears both counters of that email from that address.
type LoginPolicy struct {
	FreeAttempts int
	BaseLock     time.Duration
	MaxLock      time.Duration
	DelayAfter   int
	BaseDelay    time.Duration
	MaxDelay     time.Duration
	Window       time.Duration
}

// DefaultLoginPolicy: five failures from one address lock it out of that
// email for 30 s doubling to 15 min; ten failures from anywhere within an
// hour make every attempt on it wait 250 ms doubling to 8 s.
var DefaultLoginPolicy = LoginPolicy{
	FreeAttempts: 5, BaseLock: 30 * time.Second, MaxLock: 15 * time.Minute,
	DelayAfter: 10, BaseDelay: 250 * time.Millisecond, MaxDelay: 8 * time.Second,
	Window: time.Hour,
}

// backoff is base doubled for every step past free, capped at most.
func backoff(failures, free int, base, most time.Duration) time.Duration {
	over := failures - free
	if over < 0 || base <= 0 {
		return 0
	}
	d := base << min(over, 30)
	if d > most || d <= 0 {
		d = most
	}
	return d
}

// loginAttempt is the failure count of one email (hashed) from one address
// ("" counts every address).
type loginAttempt struct {
	EmailHash   string `gorm:"primaryKey"`
	Address     string `gorm:"primaryKey"`
	Failures    int
	LockedUntil *time.Time
	UpdatedAt   time.Time
}

func (loginAttempt) TableName() string { return "login_attempts" }

// attempts reads the counters of email from address and from everywhere;
// counters older than the window read as zero.
func (s *Store) attempts(ctx context.Context, key, address string, window time.Duration) (pair, all loginAttempt, err error) {
	var rows []loginAttempt
	if err := s.db.WithContext(ctx).Where("email_hash = ? AND address IN (?, '')", key, address).Find(&rows).Error; err != nil {
		return pair, all, fmt.Errorf("models: sign-in attempts: %w", err)
	}
	cutoff := s.now().Add(-window)
	for _, r := range rows {
		if r.UpdatedAt.Before(cutoff) {
			r.Failures = 0
		}
		if r.Address == "" {
			all = r
		}
		if r.Address == address {
			pair = r
		}
	}
	return pair, all, nil
}

// recordFailure counts one failure of email from address (and from
// everywhere) in the database, so parallel guesses on several instances all
// count, and locks the pair when the policy says so.
func (s *Store) recordFailure(ctx context.Context, key, address string, policy LoginPolicy) error {
	now := s.now()
	cutoff := now.Add(-policy.Window)
	addrs := []string{""}
	if address != "" {
		addrs = []string{address, ""}
	}
	for _, addr := range addrs {
		var failures int
		err := s.db.WithContext(ctx).Raw(`INSERT INTO login_attempts (email_hash, address, failures, updated_at) VALUES (?, ?, 1, ?)
			ON CONFLICT (email_hash, address) DO UPDATE SET
				failures = CASE WHEN login_attempts.updated_at < ? THEN 1 ELSE login_attempts.failures + 1 END,
				locked_until = CASE WHEN login_attempts.updated_at < ? THEN NULL ELSE login_attempts.locked_until END,
				updated_at = excluded.updated_at
			RETURNING failures`, key, addr, now, cutoff, cutoff).Scan(&failures).Error
		if err != nil {
			return fmt.Errorf("models: record failed sign-in: %w", err)
		}
		if addr == "" {
			continue
		}
		if lock := backoff(failures, policy.FreeAttempts, policy.BaseLock, policy.MaxLock); lock > 0 {
			until := now.Add(lock)
			if err := s.db.WithContext(ctx).Model(&loginAttempt{}).Where("email_hash = ? AND address = ?", key, addr).
				Update("locked_until", until).Error; err != nil {
				return fmt.Errorf("models: lock sign-in: %w", err)
			}
		}
	}
	return nil
}

// Authenticate checks an email and password tried from address under the
// policy (see LoginPolicy). Unknown emails, wrong passwords and disabled
// accounts give the same ErrBadCredentials after the same bcrypt work, and
// locks and delays apply to an email whether or not an account has it.
func (s *Store) Authenticate(ctx context.Context, email, password, address string, policy LoginPolicy) (*User, error) {
	if policy.Window <= 0 {
		policy.Window = DefaultLoginPolicy.Window
	}
	key := hashToken(NormalizeEmail(email))
	pair, all, err := s.attempts(ctx, key, address, policy.Window)
	if err != nil {
		return nil, err
	}
	if pair.LockedUntil != nil && pair.LockedUntil.After(s.now()) && pair.Failures > 0 {
		return nil, &LockedError{Until: *pair.LockedUntil}
	}
	if d := backoff(all.Failures, policy.DelayAfter, policy.BaseDelay, policy.MaxDelay); d > 0 {
		if err := s.sleep(ctx, d); err != nil {
			return nil, fmt.Errorf("models: sign-in delay: %w", err)
		}
	}
	u, err := s.UserByEmail(ctx, email)
	if err != nil && !errors.Is(err, ErrNotFound) {
		return nil, err
	}
	hash := s.dummyHash()
	if u != nil {
		hash = []byte(u.PasswordHash)
	}
	match := bcrypt.CompareHashAndPassword(hash, []byte(password)) == nil
	if u == nil || !match || u.DisabledAt != nil {
		if err := s.recordFailure(ctx, key, address, policy); err != nil {
			return nil, err
		}
		return nil, ErrBadCredentials
	}
	if pair.Failures > 0 || all.Failures > 0 {
		// Bookkeeping: the password was right, so a counter left behind
		// only makes the next wrong guess count once more.
		s.bookkeeping(ctx, "clear_sign_in_failures", func(ctx context.Context) error {
			return s.db.WithContext(ctx).Where("email_hash = ? AND address IN (?, '')", key, address).Delete(&loginAttempt{}).Error
		})
	}
	return u, nil
}

// sleep waits d unless ctx ends first; Store.Sleep replaces it in tests.
func (s *Store) sleep(ctx context.Context, d time.Duration) error {
	if s.Sleep != nil {
		return s.Sleep(ctx, d)
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// dummyHash is a bcrypt hash of a random string, compared against when the
// account does not exist so that the answer takes as long as a real check.
func (s *Store) dummyHash() []byte {
	s.dummyOnce.Do(func() {
		s.dummy, _ = bcrypt.GenerateFromPassword([]byte(NewID()), s.passwordCost())
	})
	return s.dummy
}
