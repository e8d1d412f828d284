package views

import (
	"context"
	"strconv"
	"strings"

	"concierge/views/locale"
)

// The console's view models: handlers build them, components render them.

// ConsoleUser is an account as the console lists it.
type ConsoleUser struct {
	ID, Name, Email, Role string
	Language              string // the account's choice of language; "" follows the browser
}

// LanguageName is the account's language in words of the viewer's
// language (ctx), or that it follows the browser.
func (u ConsoleUser) LanguageName(ctx context.Context) string {
	if u.Language == "" {
		return T(ctx, "console.language_browser")
	}
	return LanguageName(u.Language)
}

// Initials are up to two letters for the avatar.
func (u ConsoleUser) Initials() string {
	var out []rune
	for _, w := range strings.Fields(u.Name) {
		out = append(out, []rune(strings.ToUpper(w))[0])
		if len(out) == 2 {
			break
		}
	}
	if len(out) == 0 {
		return "?"
	}
	return string(out)
}

// CustomerHref is the customer page of u.
func (u ConsoleUser) CustomerHref() string { return "/console/customers/" + u.ID }

// CustomerSearch is the customer search page.
type CustomerSearch struct {
	Query    string
	Searched bool
	Results  []ConsoleUser
}

// NoteRow is one note on the customer page, shown or being edited or deleted.
type NoteRow struct {
	CustomerID string
	ID         string
	Text       string
	Keywords   []string
	Scope      string
	LastUpdate string
	Source     string
	Pinned     bool
	Status     string
	SessionID  string
	Mode       string // "", "edit" or "delete"
	Error      string
	ErrorAt    string // the field prefix the error is about: "text-", "reason-" or "dreason-"
	Reason     string
	CSRF       string
	Editable   bool   // global notes are edited inline; session notes are read-only here
	ExpiresOn  string // the last day the note holds (YYYY-MM-DD), "" for none
	Until      string // ExpiresOn for people: "31 March 2027"
}

// Href is the base path of the note's console actions.
func (n NoteRow) Href() string { return "/console/customers/" + n.CustomerID + "/notes/" + n.ID }

// DOMID is the element id of the note's row.
func (n NoteRow) DOMID() string { return "note-" + n.ID }

// Refused is the note form's error, at its field (the reason unless
// ErrorAt says otherwise), or nil.
func (n NoteRow) Refused() *FormError {
	if n.Error == "" {
		return nil
	}
	at := n.ErrorAt
	if at == "" {
		at = "reason-"
		if n.Mode == "delete" {
			at = "dreason-"
		}
	}
	return &FormError{Form: "note", Field: at + n.ID, Message: n.Error}
}

// KeywordText is the keywords as typed in the edit form.
func (n NoteRow) KeywordText() string { return strings.Join(n.Keywords, ", ") }

// KV is one labelled value.
type KV struct {
	Key, Value string
}

// SessionRow is one chat session in a list.
type SessionRow struct {
	ID, Title, Status, Started, LastActivity, CloseReason string
	Messages                                              int
}

// Href is the session's transcript page.
func (s SessionRow) Href() string { return "/console/sessions/" + s.ID }

// Preview is the instructions the first turn of a customer's next session
// would be sent right now, as the agent assembles them.
type Preview struct {
	CustomerID      string
	Message         string // the opening message the preview assumes, if any
	Instructions    string
	Model           string // the provider that answers: "offline", "openai:gpt-4o-mini"
	Encoding        string // the tokenizer the counts use
	TotalTokens     int
	Sections        []TokenSection
	NoteTokens      int // tokens of the GLOBAL note lines
	Budget          int // the GLOBAL notes budget
	NotesInjected   int
	PinnedInjected  int
	NotesTotal      int
	MeterWidth      int // 0..MeterMax, for the SVG meter
	MeterClass      string
	PercentOfBudget int
	Injected        []string // the texts of the GLOBAL notes that go in, in order
	At              string   // when the preview was made (UTC, to the second)
}

// Outcome says in one sentence, in the viewer's language, what the
// preview holds for its message.
func (p Preview) Outcome(ctx context.Context) string {
	what := N(ctx, "preview.go_in", p.NotesTotal, "Injected", Number(ctx, p.NotesInjected))
	if p.Message == "" {
		return T(ctx, "preview.outcome_empty", "What", what)
	}
	return T(ctx, "preview.outcome", "Message", p.Message, "What", what)
}

// Href is the URL that renders the preview's body for its inputs.
func (p Preview) Href() string { return "/console/customers/" + p.CustomerID + "/preview" }

// TokenSection is the token count of one section of the instructions.
type TokenSection struct {
	Name   string
	Tokens int
}

// InjectedNoteView is one note a model call's instructions carried.
type InjectedNoteView struct {
	ID      string
	Section string // GLOBAL or SESSION
	Pinned  bool
}

// MeterMax is the width of the token meter's SVG in user units.
const MeterMax = 400

// CustomerPage is a customer's whole memory state for staff.
type CustomerPage struct {
	Customer         ConsoleUser
	IsAdmin          bool
	CSRF             string
	Flash            string
	ProfileFields    []KV
	ProfileJSON      string
	ProfileError     string
	ProfileReason    string
	Notes            []NoteRow
	Superseded       []NoteRow
	NewNote          NoteRow // the add form: values and error
	OpenSessionID    string
	SessionNotes     []NoteRow
	Trips            []CustomerTrip
	Sessions         []SessionRow
	Preview          Preview
	RecentAudit      []AuditRow
	PendingErasure   string // id of a pending erasure request, if any
	ErasureBy        string // who asked for it: traveler or admin
	ErasureRequested string // when
	Runs             int
	FailedRuns       int
}

// ToolCallView is one tool call the model made.
type ToolCallView struct {
	ID, Name, Arguments string
}

// MessageView is one message as stored or as sent to the model.
type MessageView struct {
	ID         string
	Role       string
	Content    string
	Turn       int
	ToolCalls  []ToolCallView
	ToolCallID string
	Failed     bool
}

// TranscriptTurn groups the messages of one turn.
type TranscriptTurn struct {
	Turn        int
	Messages    []MessageView
	HasSnapshot bool
}

// SessionPage is one session's transcript.
type SessionPage struct {
	Customer ConsoleUser
	Session  SessionRow
	Turns    []TranscriptTurn
	JobID    string
}

// TurnHref links to the inspector of one turn.
func TurnHref(sessionID string, turn int) string {
	return "/console/sessions/" + sessionID + "/turns/" + strconv.Itoa(turn)
}

// RoundView is one model call of a turn: exactly what was sent and returned.
type RoundView struct {
	Round             int
	Model             string
	At                string
	Instructions      string
	InstructionTokens int            // 0 for snapshots stored before the structure was
	Sections          []TokenSection // tokens per section of the instructions
	Injected          []InjectedNoteView
	SessionBlock      bool
	Recorded          bool // the snapshot stores what it injected
	Messages          []MessageView
	Answer            string
	ToolCalls         []ToolCallView
	PromptTokens      int
	CompletionTokens  int
}

// TurnPage is the turn inspector: "what the model saw".
type TurnPage struct {
	Customer         ConsoleUser
	Session          SessionRow
	Turn             int
	Prev, Next       int // 0 when there is none
	UserMessage      string
	Rounds           []RoundView
	PromptTokens     int
	CompletionTokens int
	Answer           string
}

// Change is one field that an audited change touched.
type Change struct {
	Field, Before, After string
}

// AuditRow is one entry of an audit timeline.
type AuditRow struct {
	ID           string
	At           string
	Day          string
	Actor        string // kind
	ActorName    string
	Action       string
	NoteID       string
	Reason       string
	Changes      []Change
	Subject      string // the note's text, when the change did not touch it
	Redacted     bool   // the note was deleted since, and its text left this entry
	FromLabel    string
	FromHref     string
	CustomerID   string
	CustomerName string
}

// AuditPage is the audit timeline, global or for one customer.
type AuditPage struct {
	Customer *ConsoleUser
	Actor    string
	Action   string
	From, To string
	Actors   []string
	Actions  []string
	Events   []AuditRow
	Error    string
}

// Action returns the filter form's target.
func (p AuditPage) Path() string {
	if p.Customer != nil {
		return "/console/customers/" + p.Customer.ID + "/audit"
	}
	return "/console/audit"
}

// DecisionView is one consolidation decision.
type DecisionView struct {
	NoteID, NoteText, Action, Label, Into, IntoText, Why string
}

// DiffLine is one line of a consolidation's resulting notes as a diff.
type DiffLine struct {
	Kind string // added, refreshed, removed, kept
	Text string
	Note string // a message id: why the line changed
	Into string // the note that superseded this one, for runs.diff.superseded
}

// Sign is the diff marker of the line.
func (d DiffLine) Sign() string {
	switch d.Kind {
	case "added":
		return "+"
	case "removed":
		return "−"
	case "refreshed":
		return "~"
	}
	return " "
}

// RunView is one consolidation job and its report.
type RunView struct {
	JobID, SessionID, Status, Created, Engine, FallbackReason, Error string
	Attempts                                                         int
	Decisions                                                        []DecisionView
	Diff                                                             []DiffLine
	CanRetry                                                         bool
}

// ConsolidationsPage lists a customer's consolidation runs.
type ConsolidationsPage struct {
	Customer ConsoleUser
	CSRF     string
	Flash    string
	Runs     []RunView
}

// ReceiptView is an erasure receipt.
type ReceiptView struct {
	RequestID, RequestedBy, ExecutedBy, RequestedAt, CompletedAt, Scrub string
	Rows                                                                []KV
	Total                                                               int64
}

// ErasureRow is one erasure request in the queue.
type ErasureRow struct {
	ID, CustomerID, CustomerName, CustomerEmail, RequestedBy, Created, Completed, ExecutedBy string
	Reason                                                                                   string // its label
	Ticket                                                                                   string
	Receipt                                                                                  *ReceiptView
	// Due is the request's due date; Urgency is "", "due_soon" or "overdue".
	Due, Urgency string
}

// ErasurePage is the admins' erasure queue.
type ErasurePage struct {
	CSRF      string
	Pending   []ErasureRow
	Done      []ErasureRow
	Highlight string // the request just executed
	Error     string
	ErrorFor  string // the request whose form was refused
	ErrorAt   string // the id of the field the error is about
	// Reason and Ticket are what the admin chose in the form ErrorFor
	// refused, shown again as they were.
	Reason, Ticket string
}

// Refused is the refusal of request id's form, or nil.
func (e ErasurePage) Refused(id string) *FormError {
	if e.ErrorFor != id || e.Error == "" {
		return nil
	}
	return &FormError{Form: "erase", Field: e.ErrorAt, Message: e.Error}
}

// ErasureReason is one choice of the erasure reason list: its code and
// the message id of its label in the list.
type ErasureReason struct{ Code, Label string }

// ErasureReasons are the reasons an admin picks from, in order; the codes
// are models.ErasureReasons.
var ErasureReasons = []ErasureReason{
	{"data_subject_request", "erasure.reason.data_subject_request.choice"},
	{"account_closure", "erasure.reason.account_closure"},
	{"legal_obligation", "erasure.reason.legal_obligation"},
	{"other", "erasure.reason.other.choice"},
}

// ErasureReasonLabel is the message id of how a reason code reads on a
// receipt (the code itself when it has none).
func ErasureReasonLabel(code string) string {
	for _, r := range ErasureReasons {
		if r.Code == code {
			return "erasure.reason." + code
		}
	}
	if code == "" {
		return "—"
	}
	return code
}

// AccountRow is one account on the accounts page.
type AccountRow struct {
	ConsoleUser
	Disabled bool
}

// NewAccount is the create-account form's values.
type NewAccount struct {
	Email, Name, Role string
	Open              bool // shown unfolded (after an error)
}

// AccountsPage lists accounts with their roles and state, and the forms to
// create, change, disable and reset them.
type AccountsPage struct {
	CSRF      string
	ViewerID  string
	Accounts  []AccountRow
	New       NewAccount
	Flash     string
	Highlight string // the account the flash is about
	// Refused is the form the last post refused ("new", "role:<id>",
	// "toggle:<id>", "password:<id>"), shown again with its error.
	Refused *FormError
}

// TokenRow is one of the viewer's API tokens.
type TokenRow struct {
	ID, Label, Prefix, Created, Expires, LastUsed string
}

// Name is the token's label, or what it was issued by when it has none,
// in the viewer's language.
func (r TokenRow) Name(ctx context.Context) string {
	if r.Label != "" {
		return r.Label
	}
	return T(ctx, "account.tokens.signed_in_client")
}

// Shown is the start of the token itself, as the owner's program holds it;
// tokens issued before prefixes were kept show their id instead.
func (r TokenRow) Shown() string {
	if r.Prefix != "" {
		return r.Prefix + "…"
	}
	if len(r.ID) > 8 {
		return "id " + r.ID[:8] + "…"
	}
	return "id " + r.ID
}

// TokensPage lists the viewer's API tokens and the form to create one.
type TokensPage struct {
	CSRF   string
	Flash  string
	Tokens []TokenRow
	// Secret is a token just created, shown this once, with its label.
	Secret, SecretLabel string
	Label               string // what was typed in a refused form
	Refused             *FormError
	// PasswordError is why the last password change was refused.
	PasswordError string
	Language      string   // the account's choice of language, "" for the browser's
	Languages     []string // the languages to choose from
}

// acronyms are the words a field label writes in capitals.
var acronyms = map[string]string{"id": "ID", "ids": "IDs", "iata": "IATA", "url": "URL"}

// FieldName is a profile or note field's label in the request's
// language: the catalogue's (field.<key>) when it has one, else FieldLabel.
func FieldName(ctx context.Context, key string) string { return FieldLabelIn(locale.From(ctx), key) }

// FieldLabelIn is FieldName for a handler that holds the Localizer.
func FieldLabelIn(l *locale.Localizer, key string) string {
	if s := l.T("field." + key); s != "field."+key {
		return s
	}
	return FieldLabel(key)
}

// FieldLabel turns a profile key such as "seat_preference" or
// "customer_id" into a label people read: "Seat preference", "Customer ID".
func FieldLabel(key string) string {
	words := strings.Fields(strings.NewReplacer("_", " ", "-", " ").Replace(key))
	for i, w := range words {
		if a, ok := acronyms[strings.ToLower(w)]; ok {
			words[i] = a
			continue
		}
		if i == 0 {
			r := []rune(w)
			words[i] = strings.ToUpper(string(r[0])) + string(r[1:])
		}
	}
	if len(words) == 0 {
		return key
	}
	return strings.Join(words, " ")
}

// Roles are the roles an account can be given.
func Roles() []string { return []string{"traveler", "support", "admin"} }
