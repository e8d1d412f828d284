package agent_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"concierge/agent"
	"concierge/agent/openai"
	"concierge/agent/openai/fakeopenai"
	"concierge/memory"
	"concierge/memory/consolidate"
	"concierge/memory/longchat"
	"concierge/models"
)

// These tests run consolidation and turns through the real openai-go client
// against the fake server, which refuses a strict schema the real API would
// refuse, and check what was sent and what was stored.

func TestOpenAIStrictToolIsSent(t *testing.T) {
	fake := fakeopenai.New(t)
	fake.Reply("Hello! Where would you like to go?")
	a, _, sid := openaiAgent(t, fake, 10*time.Second)
	if _, err := a.Turn(ctx, sid, "Hi", nil); err != nil {
		t.Fatalf("Turn: %v", err) // a strict schema the API refuses fails here
	}
	reqs := fake.Requests()
	// John has notes, so forget_memory_note is offered beside the save and update_trip.
	if len(reqs) != 1 || len(reqs[0].Tools) != 3 || reqs[0].Tools[1].Function.Name != memory.UpdateTripToolName || reqs[0].Tools[2].Function.Name != memory.ForgetToolName {
		t.Fatalf("%d requests, want 1 with save_memory_note, update_trip and forget_memory_note", len(reqs))
	}
	fn := reqs[0].Tools[0].Function
	if fn.Name != memory.SaveNoteToolName || fn.Strict == nil || !*fn.Strict {
		t.Fatalf("tool %s strict=%v, want save_memory_note with strict true", fn.Name, fn.Strict)
	}
	required, _ := fn.Parameters["required"].([]any)
	props, _ := fn.Parameters["properties"].(map[string]any)
	if fn.Parameters["additionalProperties"] != false || len(required) != len(props) || len(props) != 4 {
		t.Errorf("parameters %v: want every property required and no others", fn.Parameters)
	}

	// Every tool goes out strict, so every tool's schema must be in strict
	// form: the fake refuses any other as the real API does.
	p := openai.New(openai.Config{BaseURL: fake.URL(), APIKey: "k", Model: "gpt-4o-mini", MaxRetries: openai.NoRetries})
	req := agent.Request{Instructions: "Plan trips.", Messages: []memory.Message{{Role: memory.RoleUser, Content: "Hi"}},
		Tools: []memory.Tool{memory.SaveNoteTool(), memory.UpdateTripTool(), longchat.SearchTool(), memory.ForgetTool()}}
	if _, err := p.Complete(ctx, req, nil); err != nil {
		t.Fatalf("the tools were refused: %v", err)
	}
	for _, tool := range fake.Requests()[1].Tools {
		if tool.Function.Strict == nil || !*tool.Function.Strict {
			t.Errorf("%s sent with strict %v", tool.Function.Name, tool.Function.Strict)
		}
	}
}

// memoryOf150 gives John 150 global notes (the five demo notes, a pinned
// allergy, a vegan note and 143 notes on unrelated topics) and three session
// notes. It returns the ids by short name.
func memoryOf150(t *testing.T, store *models.Store, uid, sid string) map[string]string {
	t.Helper()
	staff := models.Actor{ID: "test", Kind: models.ActorSupport}
	ids := map[string]string{}
	add := func(name, kind string, n memory.Note) {
		t.Helper()
		prov := models.Provenance{}
		if kind == models.KindSession {
			prov.SessionID = sid
		}
		row, err := store.Notes(memory.Limits{}).Add(ctx, models.NewNote{UserID: uid, Kind: kind, Note: n, Prov: prov}, staff, "test data")
		if err != nil {
			t.Fatal(err)
		}
		ids[name] = row.ID
	}
	global, err := store.GlobalNotes(ctx, uid)
	if err != nil || len(global) != 5 {
		t.Fatalf("demo notes: %d, %v", len(global), err)
	}
	for _, g := range global {
		if g.Text == "Prefers aisle seats." {
			ids["aisle"] = g.ID
		}
	}
	add("allergy", models.KindGlobal, memory.Note{Text: "Is allergic to shellfish.", Keywords: []string{"allergy"}, LastUpdateDate: "2023-04-02", Pinned: true, Source: memory.SourceStaff})
	add("vegan", models.KindGlobal, memory.Note{Text: "Prefers vegan restaurants.", Keywords: []string{"diet"}, LastUpdateDate: "2022-09-12", Source: memory.SourceStaff})
	topics := []struct {
		text string
		kw   []string
	}{
		{"Likes museums with audio guides in %s.", []string{"museum"}},
		{"Takes the train between %s and nearby towns.", []string{"train"}},
		{"Likes street food tours in %s.", []string{"food", "tour"}},
		{"Rents an automatic car in %s.", []string{"car"}},
		{"Visits friends when in %s.", []string{"friends"}},
		{"Likes rooftop bars in %s.", []string{"nightlife"}},
	}
	for i := range 143 {
		tp := topics[i%len(topics)]
		add(fmt.Sprintf("t%d", i), models.KindGlobal, memory.Note{Text: fmt.Sprintf(tp.text, fmt.Sprintf("town %d", i)), Keywords: tp.kw,
			LastUpdateDate: fmt.Sprintf("2024-%02d-%02d", 1+i%12, 1+i%28), Source: memory.SourceImport})
	}
	add("window", models.KindSession, memory.Note{Text: "Prefers window seats.", Keywords: []string{"seat", "window"}, Scope: memory.ScopeDurable, Source: memory.SourceAssistant})
	add("veg", models.KindSession, memory.Note{Text: "Is vegetarian.", Keywords: []string{"diet"}, Scope: memory.ScopeDurable, Source: memory.SourceAssistant})
	add("trip", models.KindSession, memory.Note{Text: "Wants a late flight on this trip.", Keywords: []string{"flight"}, Scope: memory.ScopeThisTrip, Source: memory.SourceAssistant})
	if global, _ := store.GlobalNotes(ctx, uid); len(global) != 150 {
		t.Fatalf("%d global notes, want 150", len(global))
	}
	return ids
}

// consolidationRequest is the user message of a consolidation call.
type consolidationRequest struct {
	Session []memory.Note `json:"session_notes"`
	Related []memory.Note `json:"related_global_notes"`
	Pinned  []memory.Note `json:"pinned_notes"`
}

func decodeConsolidationRequest(t *testing.T, r fakeopenai.ChatRequest) consolidationRequest {
	t.Helper()
	if len(r.Messages) != 2 || r.Messages[1].Role != "user" {
		t.Fatalf("consolidation messages %+v, want system and user", r.Messages)
	}
	var in consolidationRequest
	if err := json.Unmarshal([]byte(r.Messages[1].Content), &in); err != nil {
		t.Fatalf("consolidation input is not JSON: %v", err)
	}
	return in
}

func idsOf(ns []memory.Note) []string {
	var out []string
	for _, n := range ns {
		out = append(out, n.ID)
	}
	slices.Sort(out)
	return out
}

func decision(note, action, into, text, why string) map[string]any {
	d := map[string]any{"note": note, "action": action, "into": nil, "text": nil, "keywords": nil, "why": why}
	if into != "" {
		d["into"] = into
	}
	if text != "" {
		d["text"] = text
	}
	return d
}

func decisionsJSON(ds ...map[string]any) string {
	b, _ := json.Marshal(map[string]any{"decisions": ds})
	return string(b)
}

// runJob closes the session and runs its consolidation with the model.
func runJob(t *testing.T, store *models.Store, sid string, completer memory.Completer) models.ReportJSON {
	t.Helper()
	job, err := store.CloseSession(ctx, sid, "test")
	if err != nil {
		t.Fatal(err)
	}
	w := agent.NewWorker(agent.DefaultWorkerConfig(), store, completer, quietLog())
	if !w.RunOnce(ctx) {
		t.Fatal("no job ran")
	}
	rep, err := store.ReportForJob(ctx, job.ID)
	if err != nil {
		t.Fatal(err)
	}
	var r models.ReportJSON
	if err := json.Unmarshal([]byte(rep.Report), &r); err != nil {
		t.Fatal(err)
	}
	if r.Engine != rep.Engine {
		t.Errorf("report engine %s, stored %s", r.Engine, rep.Engine)
	}
	return r
}

func reportDecision(t *testing.T, r models.ReportJSON, id string) consolidate.Decision {
	t.Helper()
	for _, d := range r.Decisions {
		if d.Note.ID == id {
			return d
		}
	}
	t.Fatalf("no decision for %s in %+v", id, r.Decisions)
	return consolidate.Decision{}
}

// TestOpenAIConsolidationByDecisions: with 150 global notes the model is
// sent only the related ones (and the pinned one); its answer has one
// invalid decision, which falls back to the rules for that note only.
func TestOpenAIConsolidationByDecisions(t *testing.T) {
	store, uid, sid := seeded(t)
	ids := memoryOf150(t, store, uid, sid)
	fake := fakeopenai.New(t)
	fake.Reply(decisionsJSON(
		decision(ids["window"], "supersede", ids["aisle"], "", "seat preference changed"),
		decision(ids["veg"], "promote", "", "Is vegetarian and loves steakhouses.", "diet"), // invented
		decision(ids["trip"], "drop_trip", "", "", "this trip only"),
	))
	completer := openai.New(openai.Config{BaseURL: fake.URL(), APIKey: "k", Model: "gpt-4o-mini", MaxRetries: openai.NoRetries})
	rep := runJob(t, store, sid, completer)

	reqs := fake.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests, want 1 (a refused schema would make 2)", len(reqs))
	}
	r := reqs[0]
	if rf := r.ResponseFormat; rf == nil || rf.Type != "json_schema" || rf.JSONSchema == nil || !rf.JSONSchema.Strict {
		t.Fatalf("response_format %+v, want a strict json_schema", r.ResponseFormat)
	}
	if schema := string(r.ResponseFormat.JSONSchema.Schema); !strings.Contains(schema, `"decisions"`) || strings.Contains(schema, `"sources"`) {
		t.Errorf("schema %s, want the decisions schema", schema)
	}
	if r.Temperature == nil || *r.Temperature != 0 {
		t.Errorf("temperature %v, want 0", r.Temperature)
	}
	in := decodeConsolidationRequest(t, r)
	if got, want := idsOf(in.Session), idsOf([]memory.Note{{ID: ids["window"]}, {ID: ids["veg"]}, {ID: ids["trip"]}}); !slices.Equal(got, want) {
		t.Errorf("session notes sent %v, want %v", got, want)
	}
	if got, want := idsOf(in.Related), idsOf([]memory.Note{{ID: ids["aisle"]}, {ID: ids["vegan"]}}); !slices.Equal(got, want) {
		t.Errorf("related notes sent %v, want only the aisle and vegan notes %v", got, want)
	}
	if got := idsOf(in.Pinned); !slices.Equal(got, []string{ids["allergy"]}) {
		t.Errorf("pinned notes sent %v, want the allergy", got)
	}
	if strings.Contains(r.Messages[1].Content, "rooftop") || strings.Contains(r.Messages[1].Content, "museum") {
		t.Error("unrelated notes were sent")
	}

	if rep.Engine != consolidate.EngineModel || !strings.Contains(rep.FallbackReason, "1 of 3") {
		t.Errorf("engine %s, fallback %q; want the model with one note falling back", rep.Engine, rep.FallbackReason)
	}
	for name, want := range map[string]struct{ action, engine string }{
		"window": {consolidate.ActionPromoted, consolidate.EngineModel},
		"aisle":  {consolidate.ActionSuperseded, consolidate.EngineModel},
		"trip":   {consolidate.ActionDroppedTrip, consolidate.EngineModel},
		"veg":    {consolidate.ActionPromoted, consolidate.EngineRules},
	} {
		d := reportDecision(t, rep, ids[name])
		if d.Action != want.action || d.Engine != want.engine {
			t.Errorf("%s: %s by %s (%s), want %s by %s", name, d.Action, d.Engine, d.Why, want.action, want.engine)
		}
	}
	if d := reportDecision(t, rep, ids["veg"]); !strings.HasPrefix(d.Why, "model decision rejected (") || !strings.Contains(d.Why, "invented") {
		t.Errorf("the fallback does not say why: %q", d.Why)
	}

	global, _ := store.GlobalNotes(ctx, uid)
	texts := map[string]bool{}
	for _, g := range global {
		texts[g.Text] = true
	}
	if len(global) != 151 || !texts["Prefers window seats."] || !texts["Is vegetarian."] || texts["Prefers aisle seats."] {
		t.Errorf("%d global notes (window %v, vegetarian %v, aisle %v); want 151 with window and vegetarian, aisle superseded",
			len(global), texts["Prefers window seats."], texts["Is vegetarian."], texts["Prefers aisle seats."])
	}
	var steak int64
	store.DB().Model(&models.Note{}).Where("text LIKE ?", "%steak%").Count(&steak)
	if steak != 0 {
		t.Error("the invented text reached the notes")
	}
	aisle, err := store.NoteByID(ctx, uid, ids["aisle"])
	if err != nil || aisle.Status != models.StatusSuperseded || aisle.SupersededBy != ids["window"] {
		t.Errorf("aisle note %+v, %v: want superseded by the window note", aisle, err)
	}
}

// TestOpenAIConsolidationWithoutJSONSchema: a server that answers 400 to
// json_schema gets json_object, for this consolidation and the next ones.
func TestOpenAIConsolidationWithoutJSONSchema(t *testing.T) {
	store, uid, sid := seeded(t)
	fake := fakeopenai.New(t)
	fake.Handler(func(r fakeopenai.ChatRequest) fakeopenai.Response {
		if r.ResponseFormat != nil && r.ResponseFormat.Type == "json_schema" {
			return fakeopenai.Response{Status: http.StatusBadRequest,
				Body: `{"error":{"message":"response_format json_schema is not supported by this server","type":"invalid_request_error","param":"response_format","code":null}}`}
		}
		var in consolidationRequest
		_ = json.Unmarshal([]byte(r.Messages[1].Content), &in)
		var ds []map[string]any
		for _, s := range in.Session {
			ds = append(ds, decision(s.ID, "promote", "", "", "durable"))
		}
		return fakeopenai.Response{Content: decisionsJSON(ds...)}
	})
	completer := openai.New(openai.Config{BaseURL: fake.URL(), APIKey: "k", Model: "local-model", MaxRetries: openai.NoRetries})
	staff := models.Actor{ID: "test", Kind: models.ActorSupport}
	note := func(sid, text string, kw ...string) {
		t.Helper()
		_, err := store.Notes(memory.Limits{}).Add(ctx, models.NewNote{UserID: uid, Kind: models.KindSession, Prov: models.Provenance{SessionID: sid},
			Note: memory.Note{Text: text, Keywords: kw, Scope: memory.ScopeDurable, Source: memory.SourceAssistant}}, staff, "test data")
		if err != nil {
			t.Fatal(err)
		}
	}
	note(sid, "Travels with a small dog.", "pet")
	first := runJob(t, store, sid, completer)

	second, err := store.CreateChatSession(ctx, uid)
	if err != nil {
		t.Fatal(err)
	}
	note(second.ID, "Likes night trains.", "train")
	next := runJob(t, store, second.ID, completer)

	var formats []string
	for _, r := range fake.Requests() {
		formats = append(formats, r.ResponseFormat.Type)
	}
	if want := []string{"json_schema", "json_object", "json_object"}; !slices.Equal(formats, want) {
		t.Errorf("response formats %v, want %v", formats, want)
	}
	for i, rep := range []models.ReportJSON{first, next} {
		if rep.Engine != consolidate.EngineModel || rep.FallbackReason != "" || len(rep.Decisions) != 1 || rep.Decisions[0].Engine != consolidate.EngineModel {
			t.Errorf("consolidation %d: engine %s (%q), decisions %+v; want the model's", i, rep.Engine, rep.FallbackReason, rep.Decisions)
		}
	}
	global, _ := store.GlobalNotes(ctx, uid)
	if len(global) != 7 {
		t.Errorf("%d global notes, want the 5 demo notes and the 2 promoted", len(global))
	}
}
