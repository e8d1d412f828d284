package models

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"gorm.io/gorm"
)

// AuditFilter narrows an audit query. Zero fields do not filter.
type AuditFilter struct {
	UserID string // whose data changed
	// SubjectRole, when set, keeps only events about accounts of this role
	// (support's global timeline shows travelers' events only).
	SubjectRole Role
	ActorKind   string    // traveler, assistant, consolidation, support, admin, system
	Action      string    // exact action, e.g. note.update
	From        time.Time // inclusive
	To          time.Time // exclusive
	Limit       int       // at most this many, newest first; 0 means 200
}

// AuditEvents returns the audit events that match f, newest first. Audit
// events are never changed through the product, except that deleting a note
// removes its text from their payloads and erasure removes them entirely.
func (s *Store) AuditEvents(ctx context.Context, f AuditFilter) ([]AuditEvent, error) {
	db := s.db.WithContext(ctx)
	if f.UserID != "" {
		db = db.Where("user_id = ?", f.UserID)
	}
	if f.SubjectRole != "" {
		db = db.Where("user_id IN (?)", s.db.Model(&User{}).Select("id").Where("role = ?", f.SubjectRole))
	}
	if f.ActorKind != "" {
		db = db.Where("actor_kind = ?", f.ActorKind)
	}
	if f.Action != "" {
		db = db.Where("action = ?", f.Action)
	}
	if !f.From.IsZero() {
		db = db.Where("created_at >= ?", f.From.UTC())
	}
	if !f.To.IsZero() {
		db = db.Where("created_at < ?", f.To.UTC())
	}
	limit := f.Limit
	if limit <= 0 {
		limit = 200
	}
	var out []AuditEvent
	if err := db.Order("created_at DESC, id DESC").Limit(limit).Find(&out).Error; err != nil {
		return nil, fmt.Errorf("models: audit events: %w", err)
	}
	return out, nil
}

// AuditActions lists the distinct actions recorded, for filters.
func (s *Store) AuditActions(ctx context.Context) ([]string, error) {
	var out []string
	if err := s.db.WithContext(ctx).Model(&AuditEvent{}).Distinct("action").Order("action").Pluck("action", &out).Error; err != nil {
		return nil, fmt.Errorf("models: audit actions: %w", err)
	}
	return out, nil
}

// ChangeUserRole changes an account's role and records who did it and why
// in the audit trail, in one transaction.
func (s *Store) ChangeUserRole(ctx context.Context, id string, role Role, actor Actor, reason string) error {
	if !role.Valid() {
		return fmt.Errorf("models: change role: invalid role %q", role)
	}
	err := s.write(ctx, func(tx *gorm.DB) error {
		var u User
		if err := tx.Where("id = ?", id).Take(&u).Error; err != nil {
			return notFound(err)
		}
		if u.Role == role {
			return nil
		}
		if err := tx.Model(&User{}).Where("id = ?", id).Updates(map[string]any{"role": role, "updated_at": s.now()}).Error; err != nil {
			return err
		}
		before, _ := json.Marshal(map[string]string{"role": string(u.Role)})
		after, _ := json.Marshal(map[string]string{"role": string(role)})
		return s.auditTx(tx, AuditEvent{UserID: id, ActorID: actor.ID, ActorKind: actor.Kind, Action: "account.role",
			Reason: reason, Before: string(before), After: string(after)})
	})
	if err != nil {
		return fmt.Errorf("models: change role of %s: %w", id, err)
	}
	return nil
}
