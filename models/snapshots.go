package models

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"
)

// promptTextID is the id a shared prompt text is stored under: the hash of
// its content, so a text is stored once however many snapshots hold it,
// and an id always means the same text.
func promptTextID(text string) string {
	sum := sha256.Sum256([]byte(text))
	return hex.EncodeToString(sum[:])
}

// saveSnapshotTx stores a snapshot inside tx, and the texts its
// instructions share (ShareStatic) unless they are known to be stored.
func (s *Store) saveSnapshotTx(tx *gorm.DB, sn *TurnSnapshot) error {
	for _, part := range []struct {
		text string
		id   *string
	}{{sn.head, &sn.InstructionsHead}, {sn.tail, &sn.InstructionsTail}} {
		if part.text == "" {
			continue
		}
		id := promptTextID(part.text)
		if _, known := s.promptTexts.Load(id); !known {
			err := tx.Clauses(clause.OnConflict{DoNothing: true}).Create(&PromptText{ID: id, Text: part.text}).Error
			if err != nil {
				return err
			}
		}
		*part.id = id
	}
	sn.ID, sn.CreatedAt = s.newID(), s.now()
	return tx.Create(sn).Error
}

// savedSnapshot records, once the transaction that stored sn committed,
// that its shared texts are in the database.
func (s *Store) savedSnapshot(sn *TurnSnapshot) {
	if sn.head != "" {
		s.promptTexts.Store(sn.InstructionsHead, sn.head)
	}
	if sn.tail != "" {
		s.promptTexts.Store(sn.InstructionsTail, sn.tail)
	}
}

// wholeInstructions gives snapshots read from the database their
// instructions whole, the shared texts put back around what each holds.
// The texts are immutable (an id is the hash of its text), so the ones
// read once are kept.
func (s *Store) wholeInstructions(ctx context.Context, snaps []TurnSnapshot) error {
	var missing []string
	for _, sn := range snaps {
		for _, id := range []string{sn.InstructionsHead, sn.InstructionsTail} {
			if _, known := s.promptTexts.Load(id); id != "" && !known {
				missing = append(missing, id)
			}
		}
	}
	if len(missing) > 0 {
		var texts []PromptText
		if err := s.db.WithContext(ctx).Where("id IN ?", missing).Find(&texts).Error; err != nil {
			return fmt.Errorf("models: prompt texts: %w", err)
		}
		for _, t := range texts {
			s.promptTexts.Store(t.ID, t.Text)
		}
	}
	text := func(id string) (string, error) {
		if id == "" {
			return "", nil
		}
		t, ok := s.promptTexts.Load(id)
		if !ok {
			return "", fmt.Errorf("models: prompt text %s is missing", id)
		}
		return t.(string), nil
	}
	for i := range snaps {
		sn := &snaps[i]
		head, err := text(sn.InstructionsHead)
		if err != nil {
			return err
		}
		tail, err := text(sn.InstructionsTail)
		if err != nil {
			return err
		}
		sn.Instructions, sn.InstructionsHead, sn.InstructionsTail = head+sn.Instructions+tail, "", ""
	}
	return nil
}
