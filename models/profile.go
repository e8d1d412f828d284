package models

import (
	"context"
	"encoding/json"
	"fmt"

	"gorm.io/gorm"

	"concierge/memory"
)

// Profile returns a user's profile (empty when none was stored).
func (s *Store) Profile(ctx context.Context, userID string) (memory.Profile, error) {
	p, err := profileTx(s.db.WithContext(ctx), userID)
	if err != nil {
		return nil, fmt.Errorf("models: profile: %w", err)
	}
	return p, nil
}

// SetProfile replaces a user's profile, after the published schema passed
// it (ValidateProfile) and the guard its text (memory.CheckProfile), and records the change in the audit trail.
func (s *Store) SetProfile(ctx context.Context, userID string, profile memory.Profile, actor Actor, reason string) error {
	if err := ValidateProfile(profile); err != nil {
		return err
	}
	if r := memory.CheckProfile(profile); r != nil {
		return refused(&memory.NoteRefusal{Refusal: r})
	}
	data, err := json.Marshal(profile)
	if err != nil {
		return fmt.Errorf("models: set profile: %w", err)
	}
	err = s.write(ctx, func(tx *gorm.DB) error {
		return s.setProfileTx(tx, userID, data, actor, reason)
	})
	if err != nil {
		return fmt.Errorf("models: set profile: %w", err)
	}
	return nil
}

// setProfileTx stores a profile's JSON and its audit event inside tx.
func (s *Store) setProfileTx(tx *gorm.DB, userID string, data []byte, actor Actor, reason string) error {
	var old Profile
	before := ""
	if err := tx.Where("user_id = ?", userID).Take(&old).Error; err == nil {
		before = old.Data
	}
	if err := tx.Save(&Profile{UserID: userID, Data: string(data), UpdatedAt: s.now()}).Error; err != nil {
		return err
	}
	return s.auditTx(tx, AuditEvent{UserID: userID, ActorID: actor.ID, ActorKind: actor.Kind,
		Action: "profile.update", Reason: reason, Before: before, After: string(data)})
}

// profileTx reads a user's profile inside tx (empty when none was stored).
func profileTx(tx *gorm.DB, userID string) (memory.Profile, error) {
	var p Profile
	out := memory.Profile{}
	if err := tx.Where("user_id = ?", userID).Take(&p).Error; err != nil {
		if notFound(err) == ErrNotFound {
			return out, nil
		}
		return nil, err
	}
	if err := json.Unmarshal([]byte(p.Data), &out); err != nil {
		return nil, fmt.Errorf("profile %s: %w", userID, err)
	}
	return out, nil
}
