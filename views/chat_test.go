package views_test

import (
	"context"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"concierge/views"
)

func testid(doc *goquery.Document, id string) *goquery.Selection {
	return doc.Find(`[data-testid="` + id + `"]`)
}

func TestChatMarkdown(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"paragraphs and breaks", "One\ntwo\n\nThree", "<p>One<br>two</p><p>Three</p>"},
		{"bold italic code", "**Aisle** or *window*, see `SFO`", "<p><strong>Aisle</strong> or <em>window</em>, see <code>SFO</code></p>"},
		{"lists", "- one\n- two\n\n1. first\n2. second", "<ul><li>one</li><li>two</li></ul><ol><li>first</li><li>second</li></ol>"},
		{"headings", "## Options\n### Details", "<h3>Options</h3><h4>Details</h4>"},
		{"https link", "[Map](https://example.com/a?b=1&c=2)", `<p><a href="https://example.com/a?b=1&amp;c=2" rel="noopener nofollow" target="_blank">Map</a></p>`},
		{"code keeps markup literal", "`**not bold**`", "<p><code>**not bold**</code></p>"},
		{"arithmetic is not italic", "2 * 3 * 4", "<p>2 * 3 * 4</p>"},
		// Hostile input: nothing becomes a tag, an attribute or a script URL.
		{"script tag", "<script>alert(1)</script>", "<p>&lt;script&gt;alert(1)&lt;/script&gt;</p>"},
		{"img onerror", `<img src=x onerror="alert(1)">`, "<p>&lt;img src=x onerror=&#34;alert(1)&#34;&gt;</p>"},
		{"javascript link", "[click](javascript:alert(1))", "<p>click (javascript:alert(1))</p>"},
		{"data link", "[x](data:text/html,hi)", "<p>x (data:text/html,hi)</p>"},
		{"quote breaking out of href", `[x](https://a.example/"onmouseover="alert(1))`, `<p><a href="https://a.example/&#34;onmouseover=&#34;alert(1)" rel="noopener nofollow" target="_blank">x</a></p>`},
		{"html inside bold", "**<b>hi</b>**", "<p><strong>&lt;b&gt;hi&lt;/b&gt;</strong></p>"},
		{"nul placeholders", "a\x000\x00b `c`", "<p>a0b <code>c</code></p>"},
		{"protocol-relative link", "[a](//evil.example/x)", "<p>a (//evil.example/x)</p>"},
		{"html block", "<div>\nhi\n</div>", "<p>&lt;div&gt;<br>hi<br>&lt;/div&gt;</p>"},
		{"image is its description", "![map](https://e.example/x.png)", "<p>map</p>"},
		{"autolinks", "<https://x.example/> <mailto:a@b.c>", `<p><a href="https://x.example/" rel="noopener nofollow" target="_blank">https://x.example/</a> mailto:a@b.c</p>`},
		// The "compare options side by side" answer a real model writes.
		{"table", "| Hotel | Price |\n|:--|--:|\n| Alfama | 120 |",
			`<div class="table-scroll" tabindex="0"><table><thead><tr><th align="left">Hotel</th><th align="right">Price</th></tr></thead>` +
				`<tbody><tr><td align="left">Alfama</td><td align="right">120</td></tr></tbody></table></div>`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// goldmark ends blocks with a newline; the markup is what counts.
			if got := strings.ReplaceAll(views.ChatMarkdown(tt.in), "\n", ""); got != tt.want {
				t.Errorf("ChatMarkdown(%q)\n got %s\nwant %s", tt.in, got, tt.want)
			}
		})
	}
}

// TestChatMarkdownNeverMakesTags parses the output of hostile inputs and
// checks that only the renderer's own elements appear.
func TestChatMarkdownNeverMakesTags(t *testing.T) {
	allowed := map[string]bool{"html": true, "head": true, "body": true, "p": true, "br": true, "strong": true, "em": true,
		"code": true, "ul": true, "ol": true, "li": true, "h3": true, "h4": true, "a": true, "pre": true, "blockquote": true,
		"hr": true, "del": true, "div": true, "table": true, "thead": true, "tbody": true, "tr": true, "th": true, "td": true}
	allowedAttr := map[string]bool{"a href": true, "a rel": true, "a target": true, "th align": true, "td align": true,
		"div class": true, "div tabindex": true, "code class": true}
	for _, in := range []string{
		"<svg onload=alert(1)>", "**<iframe src=//evil>**", "[a](https://x.example/)<script>", "`</code><script>`",
		"- <style>*{}</style>", "[**x**](javascript:void(0))", "<a href=\"javascript:alert(1)\">x</a>",
		"| <b>a</b> | [x](javascript:1) |\n|--|--|\n| <img src=x> | ![y](javascript:2) |", "<div onclick=x>\n*a*\n</div>",
		"[x](JaVaScRiPt:alert(1))", "[x](  javascript:alert(1))", "[x](https://a.example/ \"title\" onclick=\"y\")",
		"<table><tr><td>x</td></tr></table>", "```html\n<script>x</script>\n```", "~~<s>x</s>~~",
	} {
		doc, err := goquery.NewDocumentFromReader(strings.NewReader(views.ChatMarkdown(in)))
		if err != nil {
			t.Fatal(err)
		}
		doc.Find("*").Each(func(_ int, s *goquery.Selection) {
			if tag := goquery.NodeName(s); !allowed[tag] {
				t.Errorf("input %q produced a <%s>", in, tag)
			}
			for _, a := range s.Nodes[0].Attr {
				if !allowedAttr[goquery.NodeName(s)+" "+a.Key] {
					t.Errorf("input %q produced attribute %s on <%s>", in, a.Key, goquery.NodeName(s))
				}
				if a.Key == "href" && !strings.HasPrefix(a.Val, "https://") && !strings.HasPrefix(a.Val, "http://") {
					t.Errorf("input %q produced href %q", in, a.Val)
				}
			}
		})
	}
}

func TestChip(t *testing.T) {
	tests := []struct {
		name      string
		chip      views.MemoryChip
		wantText  []string
		wantUndo  bool
		wantState string
	}{
		{"durable", views.MemoryChip{SessionID: "s1", NoteID: "n1", Text: "Is vegetarian."}, []string{"Saved:", "Is vegetarian.", "All trips"}, true, "saved"},
		{"this trip", views.MemoryChip{SessionID: "s1", NoteID: "n2", Text: "Wants a window seat.", ThisTrip: true}, []string{"This trip only"}, true, "saved"},
		{"locked", views.MemoryChip{SessionID: "s1", NoteID: "n3", Text: "Likes tea.", Locked: true}, []string{"Likes tea."}, false, "saved"},
		{"undone", views.MemoryChip{SessionID: "s1", NoteID: "n1", Text: "Is vegetarian.", Undone: true}, []string{"Undone", "will not be remembered"}, false, "undone"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc := renderDoc(t, views.Chip(tt.chip))
			chip := testid(doc, "memory-chip")
			for _, w := range tt.wantText {
				if !strings.Contains(chip.Text(), w) {
					t.Errorf("chip %q lacks %q", chip.Text(), w)
				}
			}
			if st, _ := chip.Attr("data-state"); st != tt.wantState {
				t.Errorf("state %q, want %q", st, tt.wantState)
			}
			undo := testid(doc, "chip-undo")
			if (undo.Length() == 1) != tt.wantUndo {
				t.Fatalf("undo button present = %v, want %v", undo.Length() == 1, tt.wantUndo)
			}
			if tt.wantUndo {
				if post, _ := undo.Attr("hx-post"); post != "/chat/s1/notes/"+tt.chip.NoteID+"/undo" {
					t.Errorf("undo posts to %q", post)
				}
				if label, _ := undo.Attr("aria-label"); !strings.Contains(label, tt.chip.Text) {
					t.Errorf("undo button label %q does not say what it undoes", label)
				}
			}
		})
	}
}

func TestBlockedNotice(t *testing.T) {
	tests := map[string]string{
		"payment_card":    "Not saved: Concierge never stores payment card numbers.",
		"passport_number": "Not saved: Concierge never stores passport numbers.",
		"instruction":     "Not saved: Concierge never stores instructions to the assistant.",
		"user_cap":        "Not saved: your long-term memory is full. Delete some notes on the memory page.",
		"bad_format":      "A note was not saved because it was not in a form Concierge can keep.",
	}
	for cat, want := range tests {
		if got := views.BlockedNotice(context.Background(), cat); got != want {
			t.Errorf("BlockedNotice(%s) = %q, want %q", cat, got, want)
		}
	}
	doc := renderDoc(t, views.ChatMessage(views.ChatBubble{Assistant: true, Text: "No.", Blocked: []string{"payment_card"}}))
	if got := testid(doc, "blocked-notice").Text(); !strings.Contains(got, "payment card numbers") {
		t.Errorf("notice %q", got)
	}
}

func TestStreamingBubble(t *testing.T) {
	doc := renderDoc(t, views.StreamingBubble("s1"))
	b := testid(doc, "streaming")
	for attr, want := range map[string]string{"hx-ext": "sse", "sse-connect": "/chat/s1/stream", "sse-close": "done", "aria-busy": "true"} {
		if got, _ := b.Attr(attr); got != want {
			t.Errorf("%s = %q, want %q", attr, got, want)
		}
	}
	if got, _ := testid(doc, "stream").Attr("sse-swap"); got != "delta" {
		t.Errorf("deltas swap on %q", got)
	}
	if doc.Find(`[sse-swap="done"][hx-target="closest .msg"][hx-swap="outerHTML"]`).Length() != 1 {
		t.Error("the done event does not replace the bubble")
	}
	if testid(doc, "thinking").Length() != 1 {
		t.Error("no thinking state")
	}
}

func TestAnswerFailed(t *testing.T) {
	doc := renderDoc(t, views.AnswerFailed("s1", "The AI service is busy right now.", true))
	if got := testid(doc, "answer-failed").Text(); !strings.Contains(got, "busy") || !strings.Contains(got, "saved") {
		t.Errorf("failure %q", got)
	}
	if get, _ := testid(doc, "retry").Attr("hx-get"); get != "/chat/s1/pending" {
		t.Errorf("retry gets %q", get)
	}
	if testid(renderDoc(t, views.AnswerFailed("s1", "Ended.", false)), "retry").Length() != 0 {
		t.Error("retry offered when it cannot help")
	}
}

func TestOutcomeBox(t *testing.T) {
	working := renderDoc(t, views.OutcomeBox(views.ChatOutcome{SessionID: "s1", Status: "running"}))
	box := testid(working, "outcome")
	if trig, _ := box.Attr("hx-trigger"); trig != "every 1s" {
		t.Errorf("running outcome polls with %q, want every 1s", trig)
	}
	if get, _ := box.Attr("hx-get"); get != "/chat/s1/outcome" {
		t.Errorf("polls %q", get)
	}

	done := renderDoc(t, views.OutcomeBox(views.ChatOutcome{SessionID: "s1", Status: "done", CSRF: "tok",
		Added:    []views.OutcomeLine{{Text: "Is vegetarian."}},
		Merged:   []views.OutcomeLine{{Text: "Likes aisle seats.", Detail: "merged with “Prefers aisle seats.”"}},
		TripOnly: []views.OutcomeLine{{Text: "Wants a window seat."}},
	}))
	if _, polls := testid(done, "outcome").Attr("hx-trigger"); polls {
		t.Error("a finished outcome still polls")
	}
	for id, want := range map[string]string{
		"outcome-added":  "Added to long-term memory",
		"outcome-merged": "merged with “Prefers aisle seats.”",
		"outcome-trip":   "Used for this trip only, not kept",
	} {
		if got := testid(done, id).Text(); !strings.Contains(got, want) {
			t.Errorf("%s = %q, want %q", id, got, want)
		}
	}
	if testid(done, "outcome-not-stored").Length() != 0 {
		t.Error("an empty group is shown")
	}
	if v, _ := done.Find(`input[name="_csrf"]`).Attr("value"); v != "tok" {
		t.Errorf("new-conversation form CSRF %q", v)
	}
	empty := renderDoc(t, views.OutcomeBox(views.ChatOutcome{SessionID: "s1", Status: "done"}))
	if !strings.Contains(testid(empty, "outcome").Text(), "Nothing new to remember") {
		t.Error("an empty outcome says nothing")
	}
}

func TestChatPage(t *testing.T) {
	p := views.Page{Title: "Chat", Viewer: &views.Viewer{Name: "John", Role: "traveler"}, CSRF: "tok", Assets: views.Assets{ChatJS: "/static/x/chat.js"}}
	v := views.ChatView{
		Sessions:  []views.ChatSessionItem{{ID: "s1", Title: "Lisbon", Open: true, Current: true}, {ID: "s0", Title: "Paris"}},
		SessionID: "s1", Title: "Lisbon", Open: true, Pending: true,
		Messages: []views.ChatBubble{
			{Text: "<b>hi</b>", Turn: 1},
			{Assistant: true, Text: "**Hello**", Turn: 1, Chips: []views.MemoryChip{{SessionID: "s1", NoteID: "n1", Text: "Likes tea."}}},
			{Text: "Find a hotel", Turn: 2},
		},
		Panel: views.ChatPanel{SessionID: "s1", Profile: []views.TravelerFact{{Label: "Home city", Value: "Lisbon"}},
			Session: []views.TravelerNote{{ID: "n1", Text: "Likes tea."}}},
	}
	doc := renderDoc(t, views.ChatPage(p, v))
	if doc.Find(`script[src="/static/x/chat.js"]`).Length() != 1 {
		t.Error("chat.js not loaded for a traveler")
	}
	if testid(doc, "user-message").First().Find("b").Length() != 0 {
		t.Error("user text rendered as HTML")
	}
	if testid(doc, "answer").Find("strong").Text() != "Hello" {
		t.Error("answer Markdown not rendered")
	}
	if testid(doc, "streaming").Length() != 1 {
		t.Error("a pending message does not resume its answer")
	}
	if doc.Find(`[aria-current="page"]`).Last().Text() == "" || testid(doc, "session-link").Length() != 2 {
		t.Error("session list wrong")
	}
	if doc.Find(`label[for="message"]`).Length() != 1 || testid(doc, "end-session").Length() != 1 {
		t.Error("the composer lacks its label or the End button")
	}
	if !strings.Contains(testid(doc, "memory-panel").Text(), "Likes tea.") {
		t.Error("panel lacks the session note")
	}
	doc.Find("textarea, input:not([type=hidden]), select").Each(func(_ int, s *goquery.Selection) {
		id, _ := s.Attr("id")
		if id == "" || doc.Find(`label[for="`+id+`"]`).Length() == 0 {
			t.Errorf("control %v has no label", s.Nodes[0].Attr)
		}
	})

	ended := v
	ended.Open, ended.Pending = false, false
	ended.Outcome = &views.ChatOutcome{SessionID: "s1", Status: "queued"}
	doc = renderDoc(t, views.ChatPage(p, ended))
	if testid(doc, "composer").Length() != 0 || testid(doc, "outcome").Length() != 1 || testid(doc, "session-ended").Length() != 1 {
		t.Error("an ended conversation shows the composer or lacks its outcome")
	}

	staff := views.Page{Title: "Chat", Viewer: &views.Viewer{Name: "Sam", Role: "support"}, Assets: views.Assets{ChatJS: "/static/x/chat.js"}}
	if renderDoc(t, views.NotYet(staff, "x", 6)).Find(`script[src="/static/x/chat.js"]`).Length() != 0 {
		t.Error("chat.js loaded for staff")
	}
}

func TestRemembersPage(t *testing.T) {
	p := views.Page{Title: "What Concierge remembers", Viewer: &views.Viewer{Name: "John", Role: "traveler"}, CSRF: "tok"}
	v := views.RemembersView{
		Profile: []views.TravelerFact{{Label: "Home city", Value: "San Francisco"}},
		Notes: []views.TravelerNote{
			{ID: "n1", Text: "Prefers aisle seats.", Date: "1 Jun 2024", Source: "From your account set-up"},
			{ID: "n2", Text: "Allergic to peanuts.", Date: "2 Jan 2025", Source: "Learned from a conversation", Pinned: true},
		},
	}
	doc := renderDoc(t, views.RemembersPage(p, v))
	if !strings.Contains(testid(doc, "profile-readonly").Text(), "contact support") {
		t.Error("the profile does not say how to change it")
	}
	if testid(doc, "profile").Find("input, textarea, select").Length() != 0 {
		t.Error("the profile is editable")
	}
	notes := testid(doc, "note")
	if notes.Length() != 2 {
		t.Fatalf("%d notes", notes.Length())
	}
	first := notes.First()
	for _, want := range []string{"Prefers aisle seats.", "1 Jun 2024", "From your account set-up"} {
		if !strings.Contains(first.Text(), want) {
			t.Errorf("note row lacks %q", want)
		}
	}
	form := first.Find("form")
	if post, _ := form.Attr("hx-post"); post != "/memory/notes/n1/delete" {
		t.Errorf("delete posts to %q", post)
	}
	if c, _ := form.Attr("hx-confirm"); !strings.Contains(c, "Prefers aisle seats.") {
		t.Errorf("delete confirmation %q", c)
	}
	if c, _ := testid(doc, "delete-all").Parent().Attr("hx-confirm"); c == "" {
		t.Error("delete all is not confirmed")
	}
	if href, _ := testid(doc, "export").Attr("href"); href != "/memory/export" {
		t.Errorf("export link %q", href)
	}
	if c, _ := testid(doc, "request-erasure").Parent().Attr("hx-confirm"); c == "" {
		t.Error("erasure is not confirmed")
	}
	if !strings.Contains(notes.Last().Text(), "always considered") {
		t.Error("a pinned note is not marked")
	}

	v.Notes, v.Erasure = nil, &views.ErasureStatus{Requested: "3 Mar 2026"}
	doc = renderDoc(t, views.RemembersPage(p, v))
	if testid(doc, "notes-empty").Length() != 1 || testid(doc, "delete-all").Length() != 0 {
		t.Error("no notes: want the empty state and no Delete all")
	}
	if !strings.Contains(testid(doc, "erasure-status").Text(), "3 Mar 2026") || testid(doc, "request-erasure").Length() != 0 {
		t.Error("a pending erasure request is not shown as such")
	}
}
