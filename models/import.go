package models

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"gorm.io/gorm"

	"concierge/memory"
)

// ImportRecord is one traveler of an import file (one JSON object per
// line): identified by the system of record's external id, with a profile
// that must match the published schema and trips identified by their own
// external ids.
type ImportRecord struct {
	ExternalID string         `json:"external_id"`
	Email      string         `json:"email"`
	Name       string         `json:"name"`
	Profile    memory.Profile `json:"profile"`
	Trips      []memory.Trip  `json:"trips"`
}

// Import outcomes.
const (
	ImportCreated   = "created"
	ImportUpdated   = "updated"
	ImportUnchanged = "unchanged"
)

// ImportTraveler writes one record in one transaction: the traveler
// (created without a password: they sign in after a reset), their profile
// and their trips, each through the same checks as every other writer
// (the profile schema and guard, the trips' checks and guard). Run again
// with the same record it changes nothing (ImportUnchanged). A refused
// record writes nothing; the error says why, without its content.
func (s *Store) ImportTraveler(ctx context.Context, rec ImportRecord) (string, error) {
	rec.ExternalID = strings.TrimSpace(rec.ExternalID)
	if rec.ExternalID == "" {
		return "", memory.Errorf(memory.EINVALID, "external_id is required")
	}
	if err := memory.CheckTripText("external_id", rec.ExternalID); err != nil {
		return "", err
	}
	email := NormalizeEmail(rec.Email)
	if email == "" || !strings.Contains(email, "@") {
		return "", ErrInvalidEmail
	}
	if rec.Profile == nil {
		rec.Profile = memory.Profile{}
	}
	if err := ValidateProfile(rec.Profile); err != nil {
		return "", err
	}
	if r := memory.CheckProfile(rec.Profile); r != nil {
		return "", refused(&memory.NoteRefusal{Refusal: r})
	}
	seen := map[string]bool{}
	for i, t := range rec.Trips {
		if err := checkTrip(t); err != nil {
			return "", fmt.Errorf("trips[%d]: %w", i, err)
		}
		if t.ExternalID == "" || seen[t.ExternalID] {
			return "", memory.Errorf(memory.EINVALID, "trips[%d]: each trip needs its own external_id", i)
		}
		seen[t.ExternalID] = true
	}
	profile, _ := json.Marshal(rec.Profile)
	actor := Actor{Kind: ActorSystem, ID: "import"}
	trips := s.Notes(memory.Limits{}).Trips()
	outcome := ImportUnchanged
	err := s.write(ctx, func(tx *gorm.DB) error {
		var u User
		err := tx.Where("external_id = ?", rec.ExternalID).Take(&u).Error
		switch {
		case errors.Is(notFound(err), ErrNotFound):
			var n int64
			if err := tx.Model(&User{}).Where("email = ?", email).Count(&n).Error; err != nil {
				return err
			}
			if n > 0 {
				return fmt.Errorf("email already belongs to another account: %w", ErrEmailTaken)
			}
			now := s.now()
			u = User{ID: s.newID(), Email: email, Name: strings.TrimSpace(rec.Name), Role: RoleTraveler, CreatedAt: now, UpdatedAt: now}
			if err := tx.Create(&u).Error; err != nil {
				return conflict(err)
			}
			// users.external_id (migration 24) is not a User field: the
			// import is the only code that reads or writes it.
			if err := tx.Model(&User{}).Where("id = ?", u.ID).Update("external_id", rec.ExternalID).Error; err != nil {
				return conflict(err)
			}
			outcome = ImportCreated
		case err != nil:
			return err
		case u.Role != RoleTraveler:
			return memory.Errorf(memory.EINVALID, "external_id names a staff account")
		case u.Email != email || u.Name != strings.TrimSpace(rec.Name):
			if err := tx.Model(&User{}).Where("id = ?", u.ID).Updates(map[string]any{"email": email, "name": strings.TrimSpace(rec.Name), "updated_at": s.now()}).Error; err != nil {
				return conflict(err)
			}
			outcome = ImportUpdated
		}
		if err := s.bumpMemoryVersionTx(tx, u.ID); err != nil {
			return err
		}
		var old Profile
		if err := tx.Where("user_id = ?", u.ID).Limit(1).Find(&old).Error; err != nil {
			return err
		}
		if !sameJSON(old.Data, profile) {
			if err := s.setProfileTx(tx, u.ID, profile, actor, "import"); err != nil {
				return err
			}
			if outcome == ImportUnchanged {
				outcome = ImportUpdated
			}
		}
		for _, t := range rec.Trips {
			before := ""
			var cur Trip
			if err := tx.Where("user_id = ? AND external_id = ?", u.ID, t.ExternalID).Limit(1).Find(&cur).Error; err != nil {
				return err
			}
			if cur.ID != "" {
				before = tripPayload(&cur)
			}
			trip, created, err := trips.upsertTx(tx, u.ID, t, actor, "import")
			if err != nil {
				return err
			}
			if (created || tripPayload(trip) != before) && outcome == ImportUnchanged {
				outcome = ImportUpdated
			}
		}
		return nil
	})
	if err != nil {
		return "", err
	}
	return outcome, nil
}

// sameJSON reports whether a stored JSON document says what b says.
func sameJSON(stored string, b []byte) bool {
	if stored == "" {
		return false
	}
	var x, y any
	if json.Unmarshal([]byte(stored), &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	xb, _ := json.Marshal(x)
	yb, _ := json.Marshal(y)
	return string(xb) == string(yb)
}
