package models

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"golang.org/x/crypto/bcrypt"
	"gorm.io/gorm"

	"concierge/memory"
)

// ErrInvalidEmail, ErrInvalidRole and ErrEmailTaken refuse a new
// account's email or role.
var (
	ErrInvalidEmail = &memory.Error{Code: memory.EBADEMAIL, Message: "Give a valid email address."}
	ErrInvalidRole  = &memory.Error{Code: memory.EBADROLE, Message: "Choose traveler, support or admin."}
	// ErrEmailTaken is also an ErrConflict.
	ErrEmailTaken = &memory.Error{Code: memory.EEMAILTAKEN, Message: "An account with this email already exists."}
)

// NormalizeEmail lowercases and trims an email address.
func NormalizeEmail(email string) string { return strings.ToLower(strings.TrimSpace(email)) }

// hashPassword hashes a password with bcrypt at the store's cost.
func (s *Store) hashPassword(password string) (string, error) {
	h, err := bcrypt.GenerateFromPassword([]byte(password), s.passwordCost())
	if err != nil {
		return "", fmt.Errorf("models: hash password: %w", err)
	}
	return string(h), nil
}

// CreateUser stores a new account with a bcrypt hash of password. It only
// refuses what bcrypt cannot hash faithfully (empty, over 72 bytes); the
// places where people choose a password (the console, the API, "concierge
// user add") apply the whole policy with CheckPassword first.
func (s *Store) CreateUser(ctx context.Context, email, name string, role Role, password string) (*User, error) {
	email = NormalizeEmail(email)
	if email == "" || !strings.Contains(email, "@") {
		return nil, fmt.Errorf("models: create user: %w", ErrInvalidEmail)
	}
	if !role.Valid() {
		return nil, fmt.Errorf("models: create user: role %q: %w", role, ErrInvalidRole)
	}
	if password == "" {
		return nil, fmt.Errorf("models: create user: %w", &PasswordError{PasswordMissing, "Give a password."})
	}
	if len(password) > MaxPasswordBytes {
		return nil, fmt.Errorf("models: create user: %w", CheckPassword(password))
	}
	hash, err := s.hashPassword(password)
	if err != nil {
		return nil, err
	}
	now := s.now()
	u := &User{ID: s.newID(), Email: email, Name: strings.TrimSpace(name), Role: role, PasswordHash: hash, CreatedAt: now, UpdatedAt: now}
	var n int64
	if err := s.db.WithContext(ctx).Model(&User{}).Where("email = ?", email).Count(&n).Error; err != nil {
		return nil, fmt.Errorf("models: create user: %w", err)
	}
	if n > 0 {
		return nil, fmt.Errorf("models: create user %s: %w (%w)", email, ErrEmailTaken, ErrConflict)
	}
	// A new account has no language yet: the column keeps its default,
	// also on a database from before migration 30.
	if err := s.db.WithContext(ctx).Omit("Language").Create(u).Error; err != nil {
		return nil, fmt.Errorf("models: create user: %w", err)
	}
	return u, nil
}

// UserByID looks up an account.
func (s *Store) UserByID(ctx context.Context, id string) (*User, error) {
	var u User
	if err := s.db.WithContext(ctx).Where("id = ?", id).Take(&u).Error; err != nil {
		return nil, fmt.Errorf("models: user %s: %w", id, notFound(err))
	}
	return &u, nil
}

// UserByEmail looks up an account by email.
func (s *Store) UserByEmail(ctx context.Context, email string) (*User, error) {
	var u User
	if err := s.db.WithContext(ctx).Where("email = ?", NormalizeEmail(email)).Take(&u).Error; err != nil {
		return nil, fmt.Errorf("models: user by email: %w", notFound(err))
	}
	return &u, nil
}

// MaxSearchChars bounds a customer search (a long LIKE pattern is refused
// by SQLite and slow everywhere).
const MaxSearchChars = 100

// ErrSearchTooLong refuses a customer search over MaxSearchChars.
var ErrSearchTooLong = memory.Errorf(memory.EINVALID, "Search for at most %d characters: a name or an e-mail address.", MaxSearchChars)

// SearchUsers finds accounts whose name or email contains q (all when q is
// empty), ordered by name, at most limit.
func (s *Store) SearchUsers(ctx context.Context, q string, limit int) ([]User, error) {
	if utf8.RuneCountInString(q) > MaxSearchChars {
		return nil, ErrSearchTooLong
	}
	db := s.db.WithContext(ctx).Order("name, email").Limit(limit)
	if q = strings.ToLower(strings.TrimSpace(q)); q != "" {
		like := "%" + strings.NewReplacer(`\`, `\\`, "%", `\%`, "_", `\_`).Replace(q) + "%"
		db = db.Where(`LOWER(name) LIKE ? ESCAPE '\' OR email LIKE ? ESCAPE '\'`, like, like)
	}
	var users []User
	if err := db.Find(&users).Error; err != nil {
		return nil, fmt.Errorf("models: search users: %w", err)
	}
	return users, nil
}

func (s *Store) passwordCost() int {
	if s.PasswordCost != 0 {
		return s.PasswordCost
	}
	return bcrypt.DefaultCost
}

func hashToken(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

// CreateAPIToken issues a bearer token for user that expires after ttl. The
// token is returned once; only its hash is stored.
func (s *Store) CreateAPIToken(ctx context.Context, userID string, ttl time.Duration) (string, *APIToken, error) {
	return s.CreateLabelledAPIToken(ctx, userID, "", ttl)
}

// TokenPrefixLen is how many of a token's first characters are kept in the
// clear to recognise it: "cnc_" and eight random ones, far too few to
// guess the rest from.
const TokenPrefixLen = 12

// MaxTokenLabel bounds a token's label, in characters.
const MaxTokenLabel = 60

// CreateLabelledAPIToken is CreateAPIToken with the owner's label for the
// token, which must be at most MaxTokenLabel characters.
func (s *Store) CreateLabelledAPIToken(ctx context.Context, userID, label string, ttl time.Duration) (string, *APIToken, error) {
	token := "cnc_" + NewID() + NewID()
	now := s.SharedNow()
	t := &APIToken{ID: s.newID(), UserID: userID, Hash: hashToken(token), Label: label, Prefix: token[:TokenPrefixLen],
		ExpiresAt: now.Add(ttl), CreatedAt: now}
	if err := s.db.WithContext(ctx).Create(t).Error; err != nil {
		return "", nil, fmt.Errorf("models: create token: %w", err)
	}
	return token, t, nil
}

// UserByAPIToken resolves a bearer token to its account; expired and unknown
// tokens, and those of disabled accounts, are ErrNotFound.
func (s *Store) UserByAPIToken(ctx context.Context, token string) (*User, error) {
	now := s.SharedNow()
	var found struct {
		User       `gorm:"embedded"`
		TokenID    string
		LastUsedAt *time.Time
	}
	if err := s.credentialUser(ctx, "api_tokens", "api_tokens.id AS token_id, api_tokens.last_used_at AS last_used_at",
		"api_tokens.hash = ? AND api_tokens.expires_at > ?", &found, hashToken(token), now); err != nil {
		return nil, fmt.Errorf("models: token: %w", err)
	}
	// Last use to the minute: one write a minute per token, not one per
	// request. It is bookkeeping: a database that refuses it (disk full)
	// must not turn every request, reads included, into an error.
	if found.LastUsedAt == nil || now.Sub(*found.LastUsedAt) >= time.Minute {
		s.bookkeeping(ctx, "token_last_use", func(ctx context.Context) error {
			return s.db.WithContext(ctx).Model(&APIToken{}).Where("id = ?", found.TokenID).Update("last_used_at", now).Error
		})
	}
	return &found.User, nil
}

// credentialUser reads the active account a credential row (an API token
// or a web session) belongs to, with the credential's columns extra, in one
// statement: every request authenticates, so this is one query, not two.
// It scans into out: a User, or a struct embedding one beside the extra
// columns (none when extra is "").
func (s *Store) credentialUser(ctx context.Context, table, extra, where string, out any, args ...any) error {
	cols := "users.*"
	if extra != "" {
		cols += ", " + extra
	}
	// Find, not Scan: every request comes here, and Scan renders the
	// statement's SQL for GORM's logger on each call.
	q := s.db.WithContext(ctx).Table(table).Select(cols).
		Joins("JOIN users ON users.id = "+table+".user_id").
		Where(where+" AND users.disabled_at IS NULL", args...).Limit(1).Find(out)
	if q.Error != nil {
		return q.Error
	}
	if q.RowsAffected == 0 {
		return ErrNotFound
	}
	return nil
}

// CreateWebSession starts a browser login and returns the cookie value. It
// lasts ttl at most, and ends sooner when left unused for idle (0: no idle
// limit); each use moves the idle end on (UserByWebSession).
func (s *Store) CreateWebSession(ctx context.Context, userID string, ttl, idle time.Duration) (string, error) {
	token := NewID() + NewID()
	now := s.SharedNow()
	ws := &WebSession{ID: hashToken(token), UserID: userID, ExpiresAt: webSessionEnd(now, now, ttl, idle), CreatedAt: now}
	if err := s.db.WithContext(ctx).Create(ws).Error; err != nil {
		return "", fmt.Errorf("models: create web session: %w", err)
	}
	return token, nil
}

// webSessionEnd is when a web session created at created and last used at
// now ends: ttl after it was created, or idle after its last use if sooner.
func webSessionEnd(created, now time.Time, ttl, idle time.Duration) time.Time {
	end := created.Add(ttl)
	if idle > 0 && now.Add(idle).Before(end) {
		end = now.Add(idle)
	}
	return end
}

// UserByWebSession resolves a session cookie value to its account and, when
// the session has an idle limit, moves its end on to idle from now (at most
// once a minute, within ttl from its start). ttl and idle are the ones it
// was created with.
func (s *Store) UserByWebSession(ctx context.Context, token string, ttl, idle time.Duration) (*User, error) {
	now := s.SharedNow()
	var found struct {
		User             `gorm:"embedded"`
		SessionID        string
		SessionExpiresAt time.Time
		SessionCreatedAt time.Time
	}
	if err := s.credentialUser(ctx, "web_sessions", "web_sessions.id AS session_id, web_sessions.expires_at AS session_expires_at, web_sessions.created_at AS session_created_at",
		"web_sessions.id = ? AND web_sessions.expires_at > ?", &found, hashToken(token), now); err != nil {
		return nil, fmt.Errorf("models: web session: %w", err)
	}
	if idle > 0 {
		if end := webSessionEnd(found.SessionCreatedAt, now, ttl, idle); end.Sub(found.SessionExpiresAt) >= time.Minute {
			if err := s.db.WithContext(ctx).Model(&WebSession{}).Where("id = ?", found.SessionID).Update("expires_at", end).Error; err != nil {
				return nil, fmt.Errorf("models: web session use: %w", err)
			}
		}
	}
	return &found.User, nil
}

// DeleteWebSession ends a browser login.
func (s *Store) DeleteWebSession(ctx context.Context, token string) error {
	return s.db.WithContext(ctx).Where("id = ?", hashToken(token)).Delete(&WebSession{}).Error
}

// Why a browser session was ended by someone other than its owner.
const (
	EndedErased        = "erased"
	EndedDisabled      = "disabled"
	EndedPasswordReset = "password_reset"
	// EndedPasswordChanged: the owner changed their password in another
	// browser, which signs out every other one.
	EndedPasswordChanged = "password_changed"
)

// EndedWebSession is what is left of a browser session that someone else
// ended: the hash of its cookie, why, and when it would have expired. It
// names no account, so it survives the account's erasure.
type EndedWebSession struct {
	ID        string `gorm:"primaryKey"`
	Reason    string
	ExpiresAt time.Time
}

// noteEndedSessionsTx records why each live browser session of a user is
// about to end.
func noteEndedSessionsTx(tx *gorm.DB, userID, why string) error {
	return tx.Exec(`INSERT INTO ended_web_sessions (id, reason, expires_at)
		SELECT id, ?, expires_at FROM web_sessions WHERE user_id = ?`, why, userID).Error
}

// WhyWebSessionEnded says why the browser session with this cookie value
// was ended by someone else (EndedErased, …), or "" when it was not (it
// never existed, expired, or its owner signed out).
func (s *Store) WhyWebSessionEnded(ctx context.Context, token string) (string, error) {
	var e EndedWebSession
	err := s.db.WithContext(ctx).Where("id = ? AND expires_at > ?", hashToken(token), s.SharedNow()).Take(&e).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("models: ended web session: %w", err)
	}
	return e.Reason, nil
}

// DeleteExpiredCredentials removes expired web sessions and API tokens,
// and sign-in failure counters older than the default policy's window.
func (s *Store) DeleteExpiredCredentials(ctx context.Context) (int64, error) {
	var total int64
	err := s.write(ctx, func(tx *gorm.DB) error {
		now := s.SharedNow()
		r := tx.Where("expires_at <= ?", now).Delete(&WebSession{})
		if r.Error != nil {
			return r.Error
		}
		total += r.RowsAffected
		r = tx.Where("expires_at <= ?", now).Delete(&EndedWebSession{})
		total += r.RowsAffected
		if r.Error != nil {
			return r.Error
		}
		r = tx.Where("expires_at <= ?", now).Delete(&APIToken{})
		total += r.RowsAffected
		if r.Error != nil {
			return r.Error
		}
		r = tx.Where("updated_at < ?", now.Add(-DefaultLoginPolicy.Window)).Delete(&loginAttempt{})
		total += r.RowsAffected
		return r.Error
	})
	if err != nil {
		return 0, fmt.Errorf("models: delete expired credentials: %w", err)
	}
	return total, nil
}
