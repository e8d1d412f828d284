package models

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/trustelem/zxcvbn"
	"gorm.io/gorm"

	"concierge/memory"
)

// Password policy limits. bcrypt reads at most 72 bytes, so a longer
// password would be silently cut: it is refused instead.
const (
	MinPasswordChars = 8
	MaxPasswordBytes = 72
	// MinPasswordScore is the lowest zxcvbn score (0–4) accepted: 2 is
	// "somewhat guessable", safe from unthrottled online guessing.
	MinPasswordScore = 2
)

// Why the password policy refused a password: PasswordError.Reason, which
// the pages word in the reader's language ("error.password." + Reason).
const (
	PasswordMissing   = "missing"
	PasswordBadChars  = "characters"
	PasswordTooLong   = "too_long"
	PasswordTooShort  = "too_short"
	PasswordSpaces    = "spaces"
	PasswordGuessable = "guessable"
)

// PasswordError says why a password was refused: Reason for the pages'
// catalogue, Message in English words for the person choosing it (the API's
// message).
type PasswordError struct{ Reason, Message string }

func (e *PasswordError) Error() string { return e.Message }

// Unwrap makes a PasswordError the domain refusal memory.EWEAKPASSWORD.
func (e *PasswordError) Unwrap() error {
	return &memory.Error{Code: memory.EWEAKPASSWORD, Message: e.Message}
}

// CheckPassword applies the password policy: 8 characters to 72 bytes, not
// only spaces, and not easy to guess (zxcvbn, counting the account's email
// and name as known words).
func CheckPassword(password string, userInputs ...string) error {
	switch {
	case !utf8.ValidString(password) || strings.ContainsRune(password, 0):
		return &PasswordError{PasswordBadChars, "The password has characters that cannot be used."}
	case len(password) > MaxPasswordBytes:
		return &PasswordError{PasswordTooLong, fmt.Sprintf("The password is too long: at most %d bytes (about %d letters, fewer with accents or emoji).", MaxPasswordBytes, MaxPasswordBytes)}
	case utf8.RuneCountInString(password) < MinPasswordChars:
		return &PasswordError{PasswordTooShort, fmt.Sprintf("The password is too short: use at least %d characters.", MinPasswordChars)}
	case strings.TrimSpace(password) == "":
		return &PasswordError{PasswordSpaces, "The password cannot be only spaces."}
	}
	var inputs []string
	for _, in := range userInputs {
		inputs = append(inputs, strings.Fields(strings.NewReplacer("@", " ", ".", " ").Replace(strings.ToLower(in)))...)
	}
	if zxcvbn.PasswordStrength(password, inputs).Score < MinPasswordScore {
		return &PasswordError{PasswordGuessable, "The password is too easy to guess: avoid common words, names, dates and keyboard patterns, or use a few unrelated words together."}
	}
	return nil
}

// revokeCredentialsTx ends every browser session and API token of a user,
// noting why each browser session ended (see EndedWebSession).
func revokeCredentialsTx(tx *gorm.DB, userID, why string) error {
	if err := noteEndedSessionsTx(tx, userID, why); err != nil {
		return err
	}
	if err := tx.Where("user_id = ?", userID).Delete(&WebSession{}).Error; err != nil {
		return err
	}
	return tx.Where("user_id = ?", userID).Delete(&APIToken{}).Error
}

// SetUserDisabled disables an account (it cannot sign in, and its sessions
// and tokens are revoked) or enables it again, with an audit event.
func (s *Store) SetUserDisabled(ctx context.Context, id string, disabled bool, actor Actor, reason string) (*User, error) {
	var u User
	err := s.write(ctx, func(tx *gorm.DB) error {
		if err := tx.Where("id = ?", id).Take(&u).Error; err != nil {
			return notFound(err)
		}
		if (u.DisabledAt != nil) == disabled {
			return nil
		}
		now := s.now()
		action := "account.enable"
		u.DisabledAt = nil
		if disabled {
			action = "account.disable"
			u.DisabledAt = &now
			if err := revokeCredentialsTx(tx, id, EndedDisabled); err != nil {
				return err
			}
		}
		u.UpdatedAt = now
		if err := tx.Model(&User{}).Where("id = ?", id).Updates(map[string]any{"disabled_at": u.DisabledAt, "updated_at": now}).Error; err != nil {
			return err
		}
		before, _ := json.Marshal(map[string]bool{"disabled": !disabled})
		after, _ := json.Marshal(map[string]bool{"disabled": disabled})
		return s.auditTx(tx, AuditEvent{UserID: id, ActorID: actor.ID, ActorKind: actor.Kind, Action: action,
			Reason: reason, Before: string(before), After: string(after)})
	})
	if err != nil {
		return nil, fmt.Errorf("models: set disabled of %s: %w", id, err)
	}
	return &u, nil
}

// ResetPassword gives an account a new password (checked by the policy),
// signs it out everywhere and records who did it; the password itself is
// never recorded.
func (s *Store) ResetPassword(ctx context.Context, id, password string, actor Actor, reason string) error {
	u, err := s.UserByID(ctx, id)
	if err != nil {
		return err
	}
	if err := CheckPassword(password, u.Email, u.Name); err != nil {
		return err
	}
	hash, err := s.hashPassword(password)
	if err != nil {
		return err
	}
	err = s.write(ctx, func(tx *gorm.DB) error {
		if err := tx.Model(&User{}).Where("id = ?", id).Updates(map[string]any{"password_hash": hash, "updated_at": s.now()}).Error; err != nil {
			return err
		}
		if err := revokeCredentialsTx(tx, id, EndedPasswordReset); err != nil {
			return err
		}
		return s.auditTx(tx, AuditEvent{UserID: id, ActorID: actor.ID, ActorKind: actor.Kind, Action: "account.password", Reason: reason})
	})
	if err != nil {
		return fmt.Errorf("models: reset password of %s: %w", id, err)
	}
	return nil
}

// APITokens lists a user's unexpired API tokens, newest first (hashes only
// are stored; the token itself was shown once).
func (s *Store) APITokens(ctx context.Context, userID string) ([]APIToken, error) {
	var out []APIToken
	err := s.db.WithContext(ctx).Where("user_id = ? AND expires_at > ?", userID, s.now()).Order("created_at DESC, id").Find(&out).Error
	if err != nil {
		return nil, fmt.Errorf("models: api tokens: %w", err)
	}
	return out, nil
}

// APITokenByID looks up one unexpired API token.
func (s *Store) APITokenByID(ctx context.Context, id string) (*APIToken, error) {
	var t APIToken
	if err := s.db.WithContext(ctx).Where("id = ? AND expires_at > ?", id, s.now()).Take(&t).Error; err != nil {
		return nil, fmt.Errorf("models: api token %s: %w", id, notFound(err))
	}
	return &t, nil
}

// RevokeAPIToken deletes one of a user's API tokens.
func (s *Store) RevokeAPIToken(ctx context.Context, userID, id string) error {
	r := s.db.WithContext(ctx).Where("id = ? AND user_id = ?", id, userID).Delete(&APIToken{})
	if r.Error != nil {
		return fmt.Errorf("models: revoke token %s: %w", id, r.Error)
	}
	if r.RowsAffected == 0 {
		return fmt.Errorf("models: revoke token %s: %w", id, ErrNotFound)
	}
	return nil
}

// The reasons an admin can give for an erasure. The receipt keeps the code
// only: a free-text reason could carry the erased person's name or email.
const (
	ErasureDataSubjectRequest = "data_subject_request"
	ErasureAccountClosure     = "account_closure"
	ErasureLegalObligation    = "legal_obligation"
	ErasureOther              = "other"
)

// ErasureReasons are the reason codes, in the order the console lists them.
var ErasureReasons = []string{ErasureDataSubjectRequest, ErasureAccountClosure, ErasureLegalObligation, ErasureOther}

// ErrBadErasureReason and ErrBadTicket refuse an erasure's reason or ticket.
var (
	ErrBadErasureReason = &memory.Error{Code: memory.EBADREASON,
		Message: "Choose the reason from the list: " + strings.Join(ErasureReasons, ", ") + "."}
	ErrBadTicket = &memory.Error{Code: memory.EBADTICKET,
		Message: "A ticket is a reference of up to 40 letters, digits and dashes, such as DSR-2041; leave it empty if there is none."}
)

// MaxTicketChars bounds an erasure's ticket reference.
const MaxTicketChars = 40

// CheckErasureReason accepts one of ErasureReasons.
func CheckErasureReason(reason string) error {
	for _, r := range ErasureReasons {
		if reason == r {
			return nil
		}
	}
	return ErrBadErasureReason
}

// CheckTicket accepts an empty ticket or an opaque reference of 1–40 ASCII
// letters, digits and dashes: nothing that could spell an email address or
// a sentence about the person.
func CheckTicket(ticket string) error {
	if ticket == "" {
		return nil
	}
	if len(ticket) > MaxTicketChars {
		return ErrBadTicket
	}
	for _, r := range ticket {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-') {
			return ErrBadTicket
		}
	}
	return nil
}

// ErasureWhy is why an admin executes an erasure: a listed reason and an
// optional ticket reference.
type ErasureWhy struct {
	Reason string
	Ticket string
}

// NewErasureWhy is the ErasureWhy of an admin's reason code and ticket as
// typed (spaces around them dropped), checked.
func NewErasureWhy(reason, ticket string) (ErasureWhy, error) {
	why := ErasureWhy{Reason: strings.TrimSpace(reason), Ticket: strings.TrimSpace(ticket)}
	return why, why.Check()
}

// Check validates both parts.
func (w ErasureWhy) Check() error {
	if err := CheckErasureReason(w.Reason); err != nil {
		return err
	}
	return CheckTicket(w.Ticket)
}

// PendingErasureCount counts erasure requests waiting for an admin.
func (s *Store) PendingErasureCount(ctx context.Context) (int64, error) {
	var n int64
	if err := s.db.WithContext(ctx).Model(&ErasureRequest{}).Where("status = ?", ErasurePending).Count(&n).Error; err != nil {
		return 0, fmt.Errorf("models: count pending erasures: %w", err)
	}
	return n, nil
}

// SetUserLanguage records the language an account's pages are in ("" to
// follow the browser). The caller checks that the language is one the
// pages are written in.
func (s *Store) SetUserLanguage(ctx context.Context, id, lang string) error {
	r := s.db.WithContext(ctx).Model(&User{}).Where("id = ?", id).Updates(map[string]any{"language": lang, "updated_at": s.now()})
	if r.Error != nil {
		return fmt.Errorf("models: set language of %s: %w", id, r.Error)
	}
	if r.RowsAffected == 0 {
		return ErrNotFound
	}
	return nil
}
