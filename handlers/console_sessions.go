package handlers

import (
	"encoding/json"
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	"concierge/agent"
	"concierge/memory"
	"concierge/memory/prompt"
	"concierge/models"
	"concierge/views"
	"concierge/views/locale"
)

func toolCallViews(calls []memory.ToolCall) []views.ToolCallView {
	out := make([]views.ToolCallView, len(calls))
	for i, tc := range calls {
		out[i] = views.ToolCallView{ID: tc.ID, Name: tc.Name, Arguments: tc.Arguments}
	}
	return out
}

func (s *Server) consoleSession(c echo.Context) error {
	ctx := c.Request().Context()
	cs, err := s.store.ChatSessionByID(ctx, c.Param("id"))
	if err != nil {
		return err
	}
	u, err := s.store.UserByID(ctx, cs.UserID)
	if err != nil {
		return err
	}
	msgs, err := s.store.Messages(ctx, cs.ID)
	if err != nil {
		return err
	}
	snaps, err := s.store.Snapshots(ctx, cs.ID)
	if err != nil {
		return err
	}
	has := map[int]bool{}
	for _, sn := range snaps {
		has[sn.Turn] = true
	}
	vm := views.SessionPage{Customer: toConsoleUser(u), Session: sessionRow(localizer(c), cs)}
	for _, m := range msgs {
		if n := len(vm.Turns); n == 0 || vm.Turns[n-1].Turn != m.Turn {
			vm.Turns = append(vm.Turns, views.TranscriptTurn{Turn: m.Turn, HasSnapshot: has[m.Turn]})
		}
		d := m.Domain()
		t := &vm.Turns[len(vm.Turns)-1]
		t.Messages = append(t.Messages, views.MessageView{ID: m.ID, Role: m.Role, Content: m.Content, Turn: m.Turn,
			ToolCalls: toolCallViews(d.ToolCalls), ToolCallID: m.ToolCallID, Failed: m.Failed})
	}
	if jobs, err := s.store.ConsolidationJobs(ctx, cs.UserID, 1000); err == nil {
		for _, j := range jobs {
			if j.SessionID == cs.ID {
				vm.JobID = j.ID
			}
		}
	}
	return render(c, http.StatusOK, views.SessionPageView(s.page(c, localizer(c).T("title.session", "Name", u.Name), "customers"), vm))
}

// consoleTurn is the turn inspector: every model call of one turn exactly
// as stored in its prompt snapshots.
func (s *Server) consoleTurn(c echo.Context) error {
	ctx := c.Request().Context()
	cs, err := s.store.ChatSessionByID(ctx, c.Param("id"))
	if err != nil {
		return err
	}
	turn, err := strconv.Atoi(c.Param("turn"))
	if err != nil || turn < 1 {
		return errNotFound
	}
	u, err := s.store.UserByID(ctx, cs.UserID)
	if err != nil {
		return err
	}
	snaps, err := s.store.Snapshots(ctx, cs.ID)
	if err != nil {
		return err
	}
	vm := views.TurnPage{Customer: toConsoleUser(u), Session: sessionRow(localizer(c), cs), Turn: turn}
	for _, sn := range snaps {
		switch {
		case sn.Turn < turn:
			vm.Prev = sn.Turn
		case sn.Turn > turn && vm.Next == 0:
			vm.Next = sn.Turn
		case sn.Turn == turn:
			var sent []memory.Message
			if err := json.Unmarshal([]byte(sn.Messages), &sent); err != nil {
				return err
			}
			var resp agent.Response
			_ = json.Unmarshal([]byte(sn.Response), &resp)
			r := views.RoundView{Round: sn.Round, Model: sn.Model, At: fmtTime(localizer(c), sn.CreatedAt), Instructions: sn.Instructions,
				Answer: resp.Content, ToolCalls: toolCallViews(resp.ToolCalls), PromptTokens: sn.PromptTokens, CompletionTokens: sn.CompletionTokens}
			if notes, tokens, ok := sn.Injection(); ok {
				r.Recorded, r.InstructionTokens, r.Sections, r.SessionBlock = true, tokens.Total(), tokenSections(tokens), sn.SessionBlock
				for _, n := range notes {
					r.Injected = append(r.Injected, views.InjectedNoteView{ID: n.ID, Section: n.Section, Pinned: n.Pinned})
				}
			}
			for _, m := range sent {
				r.Messages = append(r.Messages, views.MessageView{Role: string(m.Role), Content: m.Content, Turn: m.Turn,
					ToolCalls: toolCallViews(m.ToolCalls), ToolCallID: m.ToolCallID})
			}
			vm.Rounds = append(vm.Rounds, r)
			vm.PromptTokens += sn.PromptTokens
			vm.CompletionTokens += sn.CompletionTokens
			if resp.Content != "" {
				vm.Answer = resp.Content
			}
		}
	}
	if len(vm.Rounds) == 0 {
		return errNotFound
	}
	msgs, err := s.store.Messages(ctx, cs.ID)
	if err != nil {
		return err
	}
	for _, m := range msgs {
		if m.Turn == turn && m.Role == string(memory.RoleUser) {
			vm.UserMessage = m.Content
		}
	}
	return render(c, http.StatusOK, views.TurnPageView(s.page(c, localizer(c).T("title.turn", "Turn", strconv.Itoa(turn), "Name", u.Name), "customers"), vm))
}

// tokenSections lists the sections of the instructions with their tokens.
func tokenSections(t prompt.SectionTokens) []views.TokenSection {
	out := []views.TokenSection{{Name: "base", Tokens: t.Base}, {Name: "profile", Tokens: t.Profile}, {Name: "memories", Tokens: t.Memories}}
	if t.Summary > 0 {
		out = append(out, views.TokenSection{Name: "summary", Tokens: t.Summary})
	}
	return append(out, views.TokenSection{Name: "policy", Tokens: t.Policy})
}

// closeReasons are the message ids of the reasons a session is closed
// with; another reason shows as it is.
var closeReasons = map[string]string{
	"ended by the traveler": "session.close_reason.traveler", "closed by support": "session.close_reason.support",
	"closed by admin": "session.close_reason.admin", "idle": "session.close_reason.idle", "ended": "session.close_reason.ended",
}

func sessionRow(l *locale.Localizer, cs *models.ChatSession) views.SessionRow {
	reason := cs.CloseReason
	if id, ok := closeReasons[reason]; ok {
		reason = l.T(id)
	}
	return views.SessionRow{ID: cs.ID, Title: cs.Title, Status: cs.Status, Started: fmtTime(l, cs.CreatedAt),
		LastActivity: fmtTime(l, cs.LastActivityAt), CloseReason: reason}
}
