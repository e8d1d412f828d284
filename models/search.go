package models

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"gorm.io/gorm"

	"concierge/memory"
	"concierge/memory/longchat"
)

// searchMigration indexes the user and assistant messages of every
// conversation for full text, with each database's own engine, and gives
// chat sessions a summary of the turns that left the window.
//
// SQLite: an FTS4 table over messages as external content (the text lives
// once, in messages), kept in step by triggers; FTS4 because mattn's driver
// compiles FTS5 only under a build tag, which the plain `go run` and
// `go test` would not set. Its docids are the messages' rowids, so the
// database is never VACUUMed without rebuilding the index
// (INSERT INTO message_fts(message_fts) VALUES('rebuild')).
// PostgreSQL: a generated tsvector column with a GIN index. Both use the
// language-neutral tokenisers (unicode61, simple): travelers write in many
// languages, and the two engines then agree on what a word is.
func searchMigration(postgres bool) []string {
	summary := []string{
		`ALTER TABLE chat_sessions ADD COLUMN summary TEXT NOT NULL DEFAULT ''`,
		`ALTER TABLE chat_sessions ADD COLUMN summary_through INTEGER NOT NULL DEFAULT 0`,
		`ALTER TABLE chat_sessions ADD COLUMN summary_tokens INTEGER NOT NULL DEFAULT 0`,
	}
	if postgres {
		return append(summary,
			`ALTER TABLE messages ADD COLUMN search tsvector GENERATED ALWAYS AS
				(CASE WHEN role IN ('user', 'assistant') THEN to_tsvector('simple', content) END) STORED`,
			`CREATE INDEX messages_search ON messages USING GIN (search)`,
		)
	}
	return append(summary,
		`CREATE VIRTUAL TABLE message_fts USING fts4(content="messages", content, tokenize=unicode61 "remove_diacritics=2")`,
		indexAllMessages,
		`CREATE TRIGGER messages_fts_insert AFTER INSERT ON messages WHEN new.role IN ('user', 'assistant') BEGIN
			INSERT INTO message_fts(docid, content) VALUES (new.rowid, new.content);
		END`,
		`CREATE TRIGGER messages_fts_delete BEFORE DELETE ON messages WHEN old.role IN ('user', 'assistant') BEGIN
			DELETE FROM message_fts WHERE docid = old.rowid;
		END`,
		`CREATE TRIGGER messages_fts_update_old BEFORE UPDATE OF content, role ON messages WHEN old.role IN ('user', 'assistant') BEGIN
			DELETE FROM message_fts WHERE docid = old.rowid;
		END`,
		`CREATE TRIGGER messages_fts_update_new AFTER UPDATE OF content, role ON messages WHEN new.role IN ('user', 'assistant') BEGIN
			INSERT INTO message_fts(docid, content) VALUES (new.rowid, new.content);
		END`,
	)
}

// searchLaterMigration takes SQLite's full-text indexing of new messages
// off the transaction that stores them. Indexing a message wrote a new
// segment of the FTS4 index (its leaf, its directory row and, now and
// then, a merge) in the commit of every turn, about 0.07 ms of SQLite's
// CPU per turn of two messages; now the insert trigger only notes the
// message's rowid in message_fts_pending (one small B-tree row), and
// indexPending moves the noted messages into the index in one transaction
// within a second (see indexLoop), or before any search.
//
// A deleted or redacted message still leaves the index at once: the
// delete and update triggers take an indexed message's old words out as
// before, and a message still pending never entered the index, so only
// its note goes (the triggers send FTS4 no delete for a document it never
// had). An update of a pending message needs nothing: the step indexes
// the text the message has then, once. Notes are keyed
// by rowid, which SQLite may hand out again after the newest message is
// deleted; the delete takes its note along, so a reused rowid is noted
// afresh.
func searchLaterMigration(postgres bool) []string {
	if postgres {
		return nil
	}
	const pending = `EXISTS (SELECT 1 FROM message_fts_pending p WHERE p.docid = %s.rowid)`
	return []string{
		`CREATE TABLE message_fts_pending (docid INTEGER PRIMARY KEY)`,
		`DROP TRIGGER messages_fts_insert`,
		`CREATE TRIGGER messages_fts_insert AFTER INSERT ON messages WHEN new.role IN ('user', 'assistant') BEGIN
			INSERT OR IGNORE INTO message_fts_pending(docid) VALUES (new.rowid);
		END`,
		`DROP TRIGGER messages_fts_delete`,
		`CREATE TRIGGER messages_fts_delete BEFORE DELETE ON messages WHEN old.role IN ('user', 'assistant') AND NOT ` + fmt.Sprintf(pending, "old") + ` BEGIN
			DELETE FROM message_fts WHERE docid = old.rowid;
		END`,
		// AFTER, so that it runs once messages_fts_delete has read the note.
		`CREATE TRIGGER messages_fts_pending_delete AFTER DELETE ON messages BEGIN
			DELETE FROM message_fts_pending WHERE docid = old.rowid;
		END`,
		`DROP TRIGGER messages_fts_update_old`,
		`CREATE TRIGGER messages_fts_update_old BEFORE UPDATE OF content, role ON messages WHEN old.role IN ('user', 'assistant') AND NOT ` + fmt.Sprintf(pending, "old") + ` BEGIN
			DELETE FROM message_fts WHERE docid = old.rowid;
		END`,
		`DROP TRIGGER messages_fts_update_new`,
		`CREATE TRIGGER messages_fts_update_new AFTER UPDATE OF content, role ON messages WHEN new.role IN ('user', 'assistant') AND NOT ` + fmt.Sprintf(pending, "new") + ` BEGIN
			INSERT INTO message_fts(docid, content) VALUES (new.rowid, new.content);
		END`,
	}
}

// searchIndexEvery is how often the background step looks for messages to
// index (SQLite).
const searchIndexEvery = time.Second

// indexPending moves the messages noted in message_fts_pending into
// SQLite's full-text index, in one write transaction, and reports how
// many it indexed. It reads first, on the read pool, whether any wait, so
// an idle store writes nothing. PostgreSQL indexes as it stores (a
// generated column), so there it does nothing.
func (s *Store) indexPending(ctx context.Context) (int, error) {
	if s.postgres {
		return 0, nil
	}
	var waiting bool
	if err := s.db.WithContext(ctx).Raw(`SELECT EXISTS (SELECT 1 FROM message_fts_pending)`).Row().Scan(&waiting); err != nil || !waiting {
		return 0, err
	}
	var n int64
	err := s.write(ctx, func(tx *gorm.DB) error {
		res := tx.Exec(`INSERT INTO message_fts(docid, content) SELECT m.rowid, m.content FROM message_fts_pending p
			JOIN messages m ON m.rowid = p.docid WHERE m.role IN ('user', 'assistant') ORDER BY p.docid`)
		if res.Error != nil {
			return res.Error
		}
		n = res.RowsAffected
		return tx.Exec(`DELETE FROM message_fts_pending`).Error
	})
	if err != nil {
		return 0, fmt.Errorf("models: index new messages for search: %w", err)
	}
	return int(n), nil
}

// IndexPendingMessages indexes for full text, now, the messages stored
// since the background step last ran (see searchLaterMigration); tests
// and tools that read the index directly call it.
func (s *Store) IndexPendingMessages(ctx context.Context) (int, error) { return s.indexPending(ctx) }

// indexLoop runs indexPending every searchIndexEvery until stop closes.
// Before the migration that made the pending table (a store opened on an
// older database) it finds no table and tries again at the next tick.
func (s *Store) indexLoop(stop <-chan struct{}) {
	t := time.NewTicker(searchIndexEvery)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
		}
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		if _, err := s.indexPending(ctx); err != nil && s.Log != nil && !strings.Contains(err.Error(), "no such table") {
			s.Log.Warn("search index step failed; it runs again in a second", "err", err)
		}
		cancel()
	}
}

// indexAllMessages fills SQLite's full-text index from the messages.
const indexAllMessages = `INSERT INTO message_fts(docid, content) SELECT rowid, content FROM messages WHERE role IN ('user', 'assistant')`

// SearchMessages finds the user and assistant messages of one session,
// before turn beforeTurn, that hold any of terms (as word prefixes; terms
// come from longchat.SearchTerms and are letters and digits only), newest
// first, at most limit. Only that session is ever searched. The caller
// ranks them (longchat.RankFragments weighs each term by its rarity among
// them), so limit is meant to hold every match of a long conversation.
func (s *Store) SearchMessages(ctx context.Context, sessionID string, beforeTurn int, terms []string, limit int) ([]longchat.Fragment, error) {
	if len(terms) == 0 || beforeTurn <= 1 {
		return nil, nil
	}
	var rows []Message
	db := s.db.WithContext(ctx)
	var err error
	if s.postgres {
		q := strings.Join(terms, ":* | ") + ":*"
		err = db.Where("session_id = ? AND turn < ? AND search @@ to_tsquery('simple', ?)", sessionID, beforeTurn, q).
			Order("seq DESC").Limit(limit).Find(&rows).Error
	} else {
		// A search sees every message stored before it: what the
		// background step has not indexed yet is indexed first.
		if _, err := s.indexPending(ctx); err != nil {
			return nil, err
		}
		q := strings.Join(terms, "* OR ") + "*"
		err = db.Raw(`SELECT m.* FROM message_fts JOIN messages m ON m.rowid = message_fts.docid
			WHERE message_fts MATCH ? AND m.session_id = ? AND m.turn < ? ORDER BY m.seq DESC LIMIT ?`,
			q, sessionID, beforeTurn, limit).Scan(&rows).Error
	}
	if err != nil {
		return nil, fmt.Errorf("models: search messages of %s: %w", sessionID, err)
	}
	out := make([]longchat.Fragment, 0, len(rows))
	for _, m := range rows {
		out = append(out, longchat.Fragment{Turn: m.Turn, Role: memory.Role(m.Role), Text: m.Content, Seq: m.Seq})
	}
	return out, nil
}

// SaveSummary stores a session's summary of the turns up to through,
// unless the session already has one of later turns: the summary is
// written after the turn's answer lease is given back, so a slow summary
// of an earlier turn never replaces a newer one.
func (s *Store) SaveSummary(ctx context.Context, sessionID, text string, through, tokens int) error {
	err := s.write(ctx, func(tx *gorm.DB) error {
		return tx.Model(&ChatSession{}).Where("id = ? AND summary_through <= ?", sessionID, through).
			Updates(map[string]any{"summary": text, "summary_through": through, "summary_tokens": tokens}).Error
	})
	if err != nil {
		return fmt.Errorf("models: save summary of %s: %w", sessionID, err)
	}
	return nil
}

// PastConversationLengths returns the number of user turns in the user's
// most recent closed conversations that have any (at most limit), newest
// first. It runs on every long turn, so it walks the user's sessions by
// index and reads each one's last user turn from the partial index on user
// turns, instead of grouping every message the user ever sent. The limit is
// written into the statement: bound, it made SQLite take three times as
// long (BenchmarkTurnReads).
func (s *Store) PastConversationLengths(ctx context.Context, userID string, limit int) ([]int, error) {
	var out []int
	err := s.db.WithContext(ctx).Raw(`SELECT (SELECT MAX(m.turn) FROM messages m WHERE m.session_id = cs.id AND m.role = 'user') FROM chat_sessions cs
		WHERE cs.user_id = ? AND cs.status = ? AND EXISTS (SELECT 1 FROM messages m WHERE m.session_id = cs.id AND m.role = 'user')
		ORDER BY cs.created_at DESC, cs.id DESC LIMIT `+strconv.Itoa(limit), userID, SessionClosed).Scan(&out).Error
	if err != nil {
		return nil, fmt.Errorf("models: past conversation lengths: %w", err)
	}
	return out, nil
}

// optimizeSearch merges the SQLite full-text index's segments so that the
// entries of deleted messages leave the index's pages too (FTS4 deletes by
// writing tombstones until segments merge); secure_delete then zeroes the
// freed pages. PostgreSQL's index follows the table's vacuum.
func (s *Store) optimizeSearch(ctx context.Context) error {
	if s.postgres {
		return nil
	}
	return s.db.WithContext(ctx).Exec("INSERT INTO message_fts(message_fts) VALUES('optimize')").Error
}
