package models

import (
	"context"
	"errors"
	"fmt"
	"time"

	"golang.org/x/crypto/bcrypt"
	"gorm.io/gorm"
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

// countAttempt counts one attempt of email (hashed) from address, and from
// every address, before its password is checked, so that guesses sent in
// parallel (on one instance or several) are all counted and only the
// policy's free attempts reach the check. It is one statement per counter:
// the pair's row is not counted while it is locked, and the attempt that
// reaches FreeAttempts locks it in the same statement (until MaxLock, made
// exact just after), so no parallel attempt slips in between. It returns
// the lock when the pair is locked, else how many attempts the email has had
// from everywhere before this one.
func (s *Store) countAttempt(ctx context.Context, key, address string, policy LoginPolicy) (before int, locked *LockedError, err error) {
	now := s.now()
	cutoff := now.Add(-policy.Window)
	provisional := now.Add(max(policy.MaxLock, policy.BaseLock))
	lockAt := max(policy.FreeAttempts, 1) // the attempt that locks the pair
	if policy.BaseLock <= 0 {
		lockAt = 1 << 30 // no lock at all
	}
	var firstLock *time.Time
	if lockAt <= 1 {
		firstLock = &provisional
	}
	ts := "?" // PostgreSQL cannot tell the type of a bare parameter in VALUES or CASE
	if s.postgres {
		ts = "CAST(? AS timestamptz)"
	}
	var n []int
	err = s.db.WithContext(ctx).Raw(`INSERT INTO login_attempts (email_hash, address, failures, locked_until, updated_at) VALUES (?, ?, 1, `+ts+`, ?)
		ON CONFLICT (email_hash, address) DO UPDATE SET
			failures = CASE WHEN login_attempts.updated_at < ? THEN 1 ELSE login_attempts.failures + 1 END,
			locked_until = CASE WHEN (CASE WHEN login_attempts.updated_at < ? THEN 1 ELSE login_attempts.failures + 1 END) >= ? THEN `+ts+` ELSE NULL END,
			updated_at = excluded.updated_at
		WHERE login_attempts.locked_until IS NULL OR login_attempts.locked_until <= ? OR login_attempts.updated_at < ?
		RETURNING failures`, key, address, firstLock, now, cutoff, cutoff, lockAt, provisional, now, cutoff).Scan(&n).Error
	if err != nil {
		return 0, nil, fmt.Errorf("models: count sign-in attempt: %w", err)
	}
	if len(n) == 0 {
		var row loginAttempt
		if err := s.db.WithContext(ctx).Where("email_hash = ? AND address = ?", key, address).Take(&row).Error; err != nil {
			return 0, nil, fmt.Errorf("models: sign-in lock: %w", err)
		}
		until := provisional
		if row.LockedUntil != nil {
			until = *row.LockedUntil
		}
		return 0, &LockedError{Until: until}, nil
	}
	if lock := backoff(n[0], policy.FreeAttempts, policy.BaseLock, policy.MaxLock); lock > 0 {
		if err := s.db.WithContext(ctx).Model(&loginAttempt{}).Where("email_hash = ? AND address = ?", key, address).
			Update("locked_until", now.Add(lock)).Error; err != nil {
			return 0, nil, fmt.Errorf("models: lock sign-in: %w", err)
		}
	}
	var all int
	err = s.db.WithContext(ctx).Raw(`INSERT INTO login_attempts (email_hash, address, failures, updated_at) VALUES (?, '', 1, ?)
		ON CONFLICT (email_hash, address) DO UPDATE SET
			failures = CASE WHEN login_attempts.updated_at < ? THEN 1 ELSE login_attempts.failures + 1 END,
			updated_at = excluded.updated_at
		RETURNING failures`, key, now, cutoff).Scan(&all).Error
	if err != nil {
		return 0, nil, fmt.Errorf("models: count sign-in attempt: %w", err)
	}
	return all - 1, nil, nil
}

// Authenticate checks an email and password tried from address under the
// policy (see LoginPolicy). Unknown emails, wrong passwords and disabled
// accounts give the same ErrBadCredentials after the same bcrypt work, and
// locks and delays apply to an email whether or not an account has it. The
// attempt is counted before the password is checked (countAttempt) and the
// count is cleared when it succeeds.
func (s *Store) Authenticate(ctx context.Context, email, password, address string, policy LoginPolicy) (*User, error) {
	if policy.Window <= 0 {
		policy.Window = DefaultLoginPolicy.Window
	}
	key := hashToken(NormalizeEmail(email))
	before, locked, err := s.countAttempt(ctx, key, address, policy)
	if err != nil {
		return nil, err
	}
	if locked != nil {
		return nil, locked
	}
	if d := backoff(before, policy.DelayAfter, policy.BaseDelay, policy.MaxDelay); d > 0 {
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
		return nil, ErrBadCredentials
	}
	// Bookkeeping: the password was right, so a counter left behind only
	// makes the next wrong guess count once more.
	s.bookkeeping(ctx, "clear_sign_in_failures", func(ctx context.Context) error {
		return s.db.WithContext(ctx).Where("email_hash = ? AND address IN (?, '')", key, address).Delete(&loginAttempt{}).Error
	})
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

// KeptCredential is the credential a password change was made with, which
// stays signed in: a web session's cookie value or an API token.
type KeptCredential struct {
	WebSession string
	APIToken   string
}

// ChangePassword changes the password of the account u, which must give its
// current one: checked like a sign-in from address under policy (counted,
// locked and delayed alike, ErrWrongPassword when wrong), then the new
// one by the password policy (a *PasswordError). Every other web session
// and API token of the account is ended; keep stays. The change is audited
// as the account's own act; no password is recorded.
func (s *Store) ChangePassword(ctx context.Context, u *User, current, next, address string, policy LoginPolicy, keep KeptCredential) error {
	if _, err := s.Authenticate(ctx, u.Email, current, address, policy); err != nil {
		if errors.Is(err, ErrBadCredentials) {
			return ErrWrongPassword
		}
		return err
	}
	if err := CheckPassword(next, u.Email, u.Name); err != nil {
		return err
	}
	hash, err := s.hashPassword(next)
	if err != nil {
		return err
	}
	err = s.write(ctx, func(tx *gorm.DB) error {
		if err := tx.Model(&User{}).Where("id = ?", u.ID).Updates(map[string]any{"password_hash": hash, "updated_at": s.now()}).Error; err != nil {
			return err
		}
		if err := tx.Exec(`INSERT INTO ended_web_sessions (id, reason, expires_at)
			SELECT id, ?, expires_at FROM web_sessions WHERE user_id = ? AND id <> ?`, EndedPasswordChanged, u.ID, hashToken(keep.WebSession)).Error; err != nil {
			return err
		}
		sessions := tx.Where("user_id = ?", u.ID)
		if keep.WebSession != "" {
			sessions = sessions.Where("id <> ?", hashToken(keep.WebSession))
		}
		if err := sessions.Delete(&WebSession{}).Error; err != nil {
			return err
		}
		tokens := tx.Where("user_id = ?", u.ID)
		if keep.APIToken != "" {
			tokens = tokens.Where("hash <> ?", hashToken(keep.APIToken))
		}
		if err := tokens.Delete(&APIToken{}).Error; err != nil {
			return err
		}
		return s.auditTx(tx, AuditEvent{UserID: u.ID, ActorID: u.ID, ActorKind: string(u.Role), Action: "account.password_change", Reason: "own password change"})
	})
	if err != nil {
		return fmt.Errorf("models: change password of %s: %w", u.ID, err)
	}
	return nil
}
