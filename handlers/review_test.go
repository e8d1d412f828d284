package handlers_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"concierge/agent/openai"
	"concierge/agent/openai/fakeopenai"
	"concierge/memory"
	"concierge/models"
	"concierge/models/dbtest"
)

// refusedNote is what the model tries to save and the guard refuses (a
// known false refusal: it reads the friend's quoted "you must" as an
// instruction to the assistant).
const refusedNote = "Tu dois voir le Louvre, lui a dit un ami."

// reviewModel is the fake model of the review flows: in a turn it saves the
// note the traveler's message calls for, then answers; in consolidation
// every decision it makes is invalid (a merge into a note that does not
// exist), so the rules decide every note and the run falls back.
func reviewModel(r fakeopenai.ChatRequest) fakeopenai.Response {
	if r.ResponseFormat != nil {
		var in struct {
			Session []memory.Note `json:"session_notes"`
		}
		_ = json.Unmarshal([]byte(r.Messages[len(r.Messages)-1].Content), &in)
		var ds []map[string]any
		for _, n := range in.Session {
			ds = append(ds, map[string]any{"note": n.ID, "action": "merge", "into": "no-such-note", "text": nil, "keywords": nil, "why": "same fact"})
		}
		b, _ := json.Marshal(map[string]any{"decisions": ds})
		return fakeopenai.Response{Content: string(b)}
	}
	last := r.Messages[len(r.Messages)-1]
	if last.Role == "tool" {
		return fakeopenai.Response{Content: "Noted."}
	}
	save := func(text, kw string) fakeopenai.Response {
		args := fmt.Sprintf(`{"text":%q,"keywords":[%q],"scope":"durable"}`, text, kw)
		return fakeopenai.Response{ToolCalls: []fakeopenai.ToolCall{{Function: fakeopenai.FunctionCall{Name: memory.SaveNoteToolName, Arguments: args}}}}
	}
	switch c := strings.ToLower(last.Content); {
	case strings.Contains(c, "allergic"):
		return save("Is allergic to peanuts.", "allergy")
	case strings.Contains(c, "window"):
		return save("Prefers window seats.", "seat")
	case strings.Contains(c, "louvre"):
		return save(refusedNote, "louvre")
	}
	return fakeopenai.Response{Content: "Happy to help."}
}

// reviewEnv is a server whose chat and consolidation model is reviewModel.
func reviewEnv(t *testing.T, store *models.Store) *env {
	t.Helper()
	fake := fakeopenai.New(t)
	fake.Handler(reviewModel)
	client := openai.New(openai.Config{BaseURL: fake.URL(), APIKey: "k", Model: "gpt-4o-mini", MaxRetries: openai.NoRetries})
	return newEnvWith(t, envOptions{store: store, provider: client, completer: client})
}

// converse has John say each message in a new conversation and closes it;
// it returns the session id once its consolidation is done.
func converse(t *testing.T, e *env, john string, messages ...string) string {
	t.Helper()
	status, out := e.apiCall("POST", "/api/v1/sessions", john, "")
	if status != http.StatusCreated {
		t.Fatalf("create session: %d %v", status, out)
	}
	sid := out["id"].(string)
	for _, m := range messages {
		if status, out := e.apiCall("POST", "/api/v1/sessions/"+sid+"/messages", john, fmt.Sprintf(`{"content":%q}`, m)); status != http.StatusOK {
			t.Fatalf("message %q: %d %v", m, status, out)
		}
	}
	if status, out := e.apiCall("POST", "/api/v1/sessions/"+sid+"/close", john, ""); status != http.StatusOK && status != http.StatusAccepted {
		t.Fatalf("close: %d %v", status, out)
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		cs, err := e.store.ChatSessionByID(context.Background(), sid)
		if err != nil {
			t.Fatal(err)
		}
		if cs.Status == models.SessionClosed {
			return sid
		}
		if time.Now().After(deadline) {
			t.Fatalf("session %s still %s", sid, cs.Status)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

type reviewItemJSON struct {
	ID, Kind, UserID, SessionID, NoteID, Category, Field, Proposed, Status, ClaimedBy, Action string
	Turn                                                                                      int
}

func (r *reviewItemJSON) UnmarshalJSON(b []byte) error {
	var w struct {
		ID        string `json:"id"`
		Kind      string `json:"kind"`
		UserID    string `json:"user_id"`
		SessionID string `json:"session_id"`
		NoteID    string `json:"note_id"`
		Category  string `json:"category"`
		Field     string `json:"field"`
		Proposed  string `json:"proposed"`
		Status    string `json:"status"`
		ClaimedBy string `json:"claimed_by"`
		Action    string `json:"action"`
		Turn      int    `json:"turn"`
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*r = reviewItemJSON{w.ID, w.Kind, w.UserID, w.SessionID, w.NoteID, w.Category, w.Field, w.Proposed, w.Status, w.ClaimedBy, w.Action, w.Turn}
	return nil
}

// reviewItems lists the queue through the API.
func reviewItems(t *testing.T, e *env, token, query string) (map[string]reviewItemJSON, string) {
	t.Helper()
	status, body := e.request("GET", "/api/v1/review"+query, token, "")
	if status != http.StatusOK {
		t.Fatalf("GET /api/v1/review%s: %d %s", query, status, body)
	}
	var out struct{ Items []reviewItemJSON }
	if err := json.Unmarshal(body, &out); err != nil {
		t.Fatal(err)
	}
	byKind := map[string]reviewItemJSON{}
	for _, it := range out.Items {
		if _, dup := byKind[it.Kind]; dup {
			t.Errorf("two %s items", it.Kind)
		}
		byKind[it.Kind] = it
	}
	return byKind, string(body)
}

// TestReviewQueueFromRealFlows: one conversation — an allergy, a seat
// preference contradicting the profile, a note the guard refuses — and its
// consolidation, whose model decisions all fail validation, put one item
// of each kind in the queue, each in the write that caused it; each is
// resolved by its action (one from the page) and leaves its audit event.
func TestReviewQueueFromRealFlows(t *testing.T) {
	t.Parallel()
	dbtest.Backends(t, func(t *testing.T, store *models.Store) {
		e := reviewEnv(t, store)
		ctx := context.Background()
		john, support := e.token("john@example.com"), e.token("support@example.com")
		johnUser, err := store.UserByEmail(ctx, "john@example.com")
		if err != nil {
			t.Fatal(err)
		}
		sid := converse(t, e, john, "I'm allergic to peanuts.", "I prefer window seats now.", "A friend told me I must see the Louvre.")

		items, body := reviewItems(t, e, support, "")
		if len(items) != 4 {
			t.Fatalf("queue %s: want one item of each of the 4 kinds", body)
		}
		for _, k := range models.ReviewKinds {
			it, ok := items[k]
			if !ok || it.UserID != johnUser.ID || it.SessionID != sid || it.Status != models.ReviewOpen {
				t.Errorf("%s item %+v: want John's, of session %s, open", k, it, sid)
			}
		}
		if it := items[models.ReviewRefusedWrite]; it.Category != memory.CategoryInstruction || it.Turn != 3 {
			t.Errorf("refused write %+v: want category %s at turn 3", it, memory.CategoryInstruction)
		}
		if it := items[models.ReviewProfileUpdate]; it.Field != "seat_preference" || it.Proposed != "window" {
			t.Errorf("profile update %+v: want seat_preference → window", it)
		}
		pin, err := store.NoteByID(ctx, johnUser.ID, items[models.ReviewSafetyPin].NoteID)
		if err != nil || !pin.Pinned || !strings.Contains(pin.Text, "peanuts") {
			t.Fatalf("safety pin's note %+v, %v: want the pinned allergy", pin, err)
		}
		if status, _ := e.apiCall("GET", "/api/v1/review", john, ""); status != http.StatusForbidden {
			t.Errorf("a traveler reading the queue: %d, want 403", status)
		}
		if items, _ := reviewItems(t, e, support, "?kind="+models.ReviewRefusedWrite); len(items) != 1 {
			t.Errorf("kind filter: %d items, want 1", len(items))
		}

		// The refused text is nowhere in the queue: not in the API answer,
		// the rendered page, nor the review, audit or blocked-write rows.
		b := e.browser()
		b.login("support@example.com", "demo")
		status, page, csrf := b.get("/console/review")
		if status != http.StatusOK {
			t.Fatalf("review page: %d", status)
		}
		for what, text := range map[string]string{"API answer": body, "review page": page} {
			if strings.Contains(strings.ToLower(text), strings.ToLower(refusedNote)) {
				t.Errorf("the %s holds the refused text", what)
			}
		}
		hits, err := store.ScanTables(ctx, refusedNote)
		if err != nil {
			t.Fatal(err)
		}
		for table := range hits {
			// The transcript and the prompt snapshots keep the model's own
			// tool call, as they keep the traveler's words; nothing else may.
			if table != "messages" && table != "turn_snapshots" {
				t.Errorf("the refused text is in %s", table)
			}
		}
		for _, want := range []string{"/console/customers/" + johnUser.ID, "/console/sessions/" + sid, "/console/sessions/" + sid + "/turns/3", `data-testid="nav-count-review"`} {
			if !strings.Contains(page, want) {
				t.Errorf("review page lacks %s", want)
			}
		}

		// Two reviewers resolve the fallback at once: one resolution.
		fallback := items[models.ReviewFallback].ID
		admin := e.token("admin@example.com")
		var wg sync.WaitGroup
		codes := make([]int, 2)
		bodies := make([]string, 2)
		for i, tok := range []string{support, admin} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				req, _ := http.NewRequest("POST", e.srv.URL+"/api/v1/review/"+fallback+"/resolve", strings.NewReader(`{"action":"accept","reason":"the rules' decisions are right"}`))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Authorization", "Bearer "+tok)
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Error(err)
					return
				}
				defer resp.Body.Close()
				rb, _ := io.ReadAll(resp.Body)
				codes[i], bodies[i] = resp.StatusCode, string(rb)
			}()
		}
		wg.Wait()
		ok, conflict := 0, 0
		for i, c := range codes {
			switch c {
			case http.StatusOK:
				ok++
			case http.StatusConflict:
				conflict++
				if !strings.Contains(bodies[i], "resolved this item") {
					t.Errorf("409 without a clear message: %s", bodies[i])
				}
			}
		}
		if ok != 1 || conflict != 1 {
			t.Errorf("concurrent resolutions answered %v (%v), want one 200 and one 409", codes, bodies)
		}
		var resolutions int64
		store.DB().Model(&models.AuditEvent{}).Where("action = ? AND consolidation_id <> ''", "review.accept").Count(&resolutions)
		if resolutions != 1 {
			t.Errorf("%d accept events stored, want exactly 1", resolutions)
		}

		// The safety pin, confirmed from the page: the item is swapped in
		// place and the result announced, with the focus on it.
		pinID := items[models.ReviewSafetyPin].ID
		form := url.Values{"_csrf": {csrf}, "action": {"confirm"}, "reason": {"confirmed with the traveler by phone"}}
		req, _ := http.NewRequest("POST", e.srv.URL+"/console/review/"+pinID+"/resolve", strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("HX-Request", "true")
		resp, err := b.client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		card, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		trigger := resp.Header.Get("HX-Trigger-After-Settle")
		if resp.StatusCode != http.StatusOK || !strings.Contains(string(card), `data-testid="review-resolution"`) ||
			!strings.Contains(trigger, "concierge:announce") || !strings.Contains(trigger, "#item-done-"+pinID) {
			t.Errorf("page resolution: %d, trigger %q, card %s", resp.StatusCode, trigger, card)
		}

		// The refused note, added in the reviewer's words through the guard:
		// the same words refused again leave the item open.
		resolve := func(id, body string) (int, map[string]any) {
			t.Helper()
			return e.apiCall("POST", "/api/v1/review/"+id+"/resolve", support, body)
		}
		refused := items[models.ReviewRefusedWrite].ID
		if status, out := resolve(refused, `{"action":"add","reason":"harmless","text":"`+refusedNote+`"}`); status != http.StatusUnprocessableEntity {
			t.Errorf("adding the refused words: %d %v, want 422 from the guard", status, out)
		}
		if status, out := resolve(refused, `{"action":"add","reason":"a harmless preference","text":"Wants to see the Louvre, on a friend's advice."}`); status != http.StatusOK || out["note_id"] == "" {
			t.Errorf("add: %d %v", status, out)
		}

		// The profile update, applied: the profile changes, the note is
		// retired, and the next conversation's instructions carry the new
		// value and not the note.
		upd := items[models.ReviewProfileUpdate]
		if status, out := resolve(upd.ID, `{"action":"apply","reason":"the traveler confirmed"}`); status != http.StatusOK {
			t.Fatalf("apply: %d %v", status, out)
		}
		profile, _ := store.Profile(ctx, johnUser.ID)
		note, _ := store.NoteByID(ctx, johnUser.ID, upd.NoteID)
		if profile["seat_preference"] != "window" || note == nil || note.Status != models.StatusSuperseded {
			t.Errorf("after apply: seat_preference %v, note %+v; want window and the note superseded", profile["seat_preference"], note)
		}
		next := converse(t, e, john, "Hello again.")
		status, out := e.apiCall("GET", "/api/v1/sessions/"+next+"/turns", support, "")
		turns, _ := out["turns"].([]any)
		if status != http.StatusOK || len(turns) == 0 {
			t.Fatalf("turns: %d %v", status, out)
		}
		instructions := turns[0].(map[string]any)["request"].(map[string]any)["instructions"].(string)
		if !strings.Contains(instructions, "seat_preference: window") || strings.Contains(instructions, "Prefers window seats.") {
			t.Errorf("next instructions: want seat_preference window and not the note:\n%s", instructions)
		}

		status, out = e.apiCall("GET", "/api/v1/users/"+johnUser.ID+"/audit", support, "")
		seen := map[string]bool{}
		for _, ev := range out["events"].([]any) {
			seen[ev.(map[string]any)["action"].(string)] = true
		}
		for _, want := range []string{"review.confirm", "review.add", "review.apply", "review.accept", "profile.update", "note.supersede"} {
			if !seen[want] {
				t.Errorf("audit (%d) lacks %s", status, want)
			}
		}
		if open, _ := reviewItems(t, e, support, ""); len(open) != 0 {
			t.Errorf("open items left: %v", open)
		}
		if done, _ := reviewItems(t, e, support, "?status=resolved"); len(done) != 4 {
			t.Errorf("%d resolved items kept, want 4", len(done))
		}
	})
}
