package handlers

import (
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"concierge/memory/guard"
	"concierge/models"
	"concierge/views"
	"concierge/views/locale"
)

// apiAccount is how the account endpoints show an account: the public
// user fields and whether it is disabled.
type apiAccount struct {
	apiUser
	Disabled bool `json:"disabled"`
}

func toAPIAccount(u *models.User) apiAccount {
	return apiAccount{apiUser: toAPIUser(u), Disabled: u.DisabledAt != nil}
}

// createAccount creates an account as the calling admin and logs it.
func (s *Server) createAccount(c echo.Context, email, name, role, password string) (*models.User, error) {
	err := models.CheckAccountName(name)
	if err == nil {
		err = models.CheckPassword(password, email, name)
	}
	var u *models.User
	if err == nil {
		u, err = s.store.CreateUser(c.Request().Context(), email, name, models.Role(role), password)
	}
	if err != nil {
		return nil, err
	}
	s.log.Info("account created", "request_id", requestID(c), "user_id", u.ID, "role", u.Role, "by", currentUser(c).ID)
	return u, nil
}

func (s *Server) apiCreateUser(c echo.Context) error {
	var req struct {
		Email    string `json:"email"`
		Name     string `json:"name"`
		Role     string `json:"role"`
		Password string `json:"password"`
	}
	if err := decodeJSON(c, &req); err != nil {
		return err
	}
	u, err := s.createAccount(c, req.Email, req.Name, req.Role, req.Password)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusCreated, toAPIAccount(u))
}

// apiReason is the reason an API account change is recorded with when the
// caller gives none.
const apiReason = "changed through the API"

func (s *Server) apiPatchUser(c echo.Context) error {
	var req struct {
		Role     *string `json:"role"`
		Disabled *bool   `json:"disabled"`
		Reason   string  `json:"reason"`
	}
	if err := decodeJSON(c, &req); err != nil {
		return err
	}
	if req.Role == nil && req.Disabled == nil {
		return localError(http.StatusUnprocessableEntity, "nothing_to_change", "error.account_nothing")
	}
	if strings.TrimSpace(req.Reason) == "" {
		req.Reason = apiReason
	}
	reason, err := models.CheckReason(req.Reason)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	u, me := subjectOf(c), currentUser(c)
	if req.Role != nil {
		role := models.Role(*req.Role)
		if !role.Valid() {
			return models.ErrInvalidRole
		}
		if err := s.store.ChangeUserRole(ctx, u.ID, role, actorOf(me), reason); err != nil {
			return err
		}
	}
	if req.Disabled != nil {
		if _, err := s.store.SetUserDisabled(ctx, u.ID, *req.Disabled, actorOf(me), reason); err != nil {
			return err
		}
	}
	s.log.Info("account changed", "request_id", requestID(c), "user_id", u.ID, "by", me.ID)
	updated, err := s.store.UserByID(ctx, u.ID)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, toAPIAccount(updated))
}

// accountsPage gathers the accounts page.
func (s *Server) accountsPage(c echo.Context) (views.AccountsPage, error) {
	users, err := s.store.SearchUsers(c.Request().Context(), "", 1000)
	if err != nil {
		return views.AccountsPage{}, err
	}
	vm := views.AccountsPage{CSRF: csrfToken(c), ViewerID: currentUser(c).ID, New: views.NewAccount{Role: string(models.RoleTraveler)}}
	for i := range users {
		vm.Accounts = append(vm.Accounts, views.AccountRow{ConsoleUser: toConsoleUser(&users[i]), Disabled: users[i].DisabledAt != nil})
	}
	return vm, nil
}

// accountFlashes are the message ids of the confirmations of the
// accounts page's actions.
var accountFlashes = map[string]string{
	"role":     "accounts.flash.role",
	"created":  "accounts.flash.created",
	"disabled": "accounts.flash.disabled",
	"enabled":  "accounts.flash.enabled",
	"password": "accounts.flash.password",
}

func (s *Server) consoleAccounts(c echo.Context) error {
	vm, err := s.accountsPage(c)
	if err != nil {
		return err
	}
	p := s.page(c, "nav.accounts", "accounts")
	if id, ok := accountFlashes[c.QueryParam("done")]; ok {
		vm.Flash = localizer(c).T(id)
	}
	vm.Highlight = c.QueryParam("id")
	if vm.Flash != "" {
		p.Say, p.Focus = vm.Flash, "#account-"+vm.Highlight
	}
	if f := s.takeFormFlash(c); f != nil {
		vm.Refused = &views.FormError{Form: f.Form, Field: f.Field, Message: f.Message}
		p.Say, p.Focus = "", "#"+f.Field
		if f.Form == "new" {
			vm.New = views.NewAccount{Email: f.Values["email"], Name: f.Values["name"], Role: f.Values["role"], Open: true}
		}
	}
	return render(c, http.StatusOK, views.AccountsPageView(p, vm))
}

// accountsFail sends the admin back to the accounts page, where the error
// shows under field in form (see formFlash) with what they typed in
// values kept.
func (s *Server) accountsFail(c echo.Context, form, field, msg string, values map[string]string) error {
	// No #fragment: the page moves the focus (and the view) to the field,
	// and a fragment's scroll would take the focus away again.
	return s.refuseForm(c, "/console/accounts", formFlash{Form: form, Field: field, Message: msg, Values: values})
}

// newAccountField is the field of the new-account form an error is about.
func newAccountField(e *Error) string {
	switch e.Code {
	case "weak_password":
		return "na-password"
	case "email_taken", "invalid_email":
		return "na-email"
	case "bad_role":
		return "na-role"
	}
	return "na-name"
}

func (s *Server) consoleCreateAccount(c echo.Context) error {
	email, name, role := c.FormValue("email"), c.FormValue("name"), c.FormValue("role")
	u, err := s.createAccount(c, email, name, role, c.FormValue("password"))
	if e, _ := toError(err); err != nil && e.Status < 500 {
		return s.accountsFail(c, "new", newAccountField(e), e.In(localizer(c)), map[string]string{"email": email, "name": name, "role": role})
	}
	if err != nil {
		return err
	}
	return c.Redirect(http.StatusSeeOther, "/console/accounts?done=created&id="+u.ID)
}

func (s *Server) consoleChangeRole(c echo.Context) error {
	u, me := subjectOf(c), currentUser(c)
	role := models.Role(c.FormValue("role"))
	if !role.Valid() {
		return s.accountsFail(c, "role:"+u.ID, "role-"+u.ID, localizer(c).T("error.bad_role"), nil)
	}
	reason, err := models.CheckReason(c.FormValue("reason"))
	if err != nil {
		return s.accountsFail(c, "role:"+u.ID, "rr-"+u.ID, userMessage(c, err), nil)
	}
	if err := s.store.ChangeUserRole(c.Request().Context(), u.ID, role, actorOf(me), reason); err != nil {
		return err
	}
	s.log.Info("role changed", "request_id", requestID(c), "user_id", u.ID, "role", role, "by", me.ID)
	return c.Redirect(http.StatusSeeOther, "/console/accounts?done=role&id="+u.ID)
}

// consoleSetDisabled disables or enables the :id account.
func (s *Server) consoleSetDisabled(disabled bool) echo.HandlerFunc {
	return func(c echo.Context) error {
		u, me := subjectOf(c), currentUser(c)
		reason, err := models.CheckReason(c.FormValue("reason"))
		if err != nil {
			return s.accountsFail(c, "toggle:"+u.ID, "dr-"+u.ID, userMessage(c, err), nil)
		}
		if _, err := s.store.SetUserDisabled(c.Request().Context(), u.ID, disabled, actorOf(me), reason); err != nil {
			return err
		}
		done := "enabled"
		if disabled {
			done = "disabled"
		}
		s.log.Info("account "+done, "request_id", requestID(c), "user_id", u.ID, "by", me.ID)
		return c.Redirect(http.StatusSeeOther, "/console/accounts?done="+done+"&id="+u.ID)
	}
}

func (s *Server) consoleResetPassword(c echo.Context) error {
	u, me := subjectOf(c), currentUser(c)
	reason, err := models.CheckReason(c.FormValue("reason"))
	if err != nil {
		return s.accountsFail(c, "password:"+u.ID, "pr-"+u.ID, userMessage(c, err), nil)
	}
	err = s.store.ResetPassword(c.Request().Context(), u.ID, c.FormValue("password"), actorOf(me), reason)
	var pe *models.PasswordError
	if errors.As(err, &pe) {
		return s.accountsFail(c, "password:"+u.ID, "pw-"+u.ID, userMessage(c, err), nil)
	}
	if err != nil {
		return err
	}
	s.log.Info("password reset", "request_id", requestID(c), "user_id", u.ID, "by", me.ID)
	if u.ID == me.ID {
		// Resetting one's own password signed this browser out too.
		return c.Redirect(http.StatusSeeOther, "/login")
	}
	return c.Redirect(http.StatusSeeOther, "/console/accounts?done=password&id="+u.ID)
}

// apiToken is how the API shows one of the caller's tokens (never its value).
type apiTokenView struct {
	ID         string     `json:"id"`
	Label      string     `json:"label"`
	Prefix     string     `json:"prefix"` // the token's first characters
	CreatedAt  time.Time  `json:"created_at"`
	ExpiresAt  time.Time  `json:"expires_at"`
	LastUsedAt *time.Time `json:"last_used_at"`
}

func (s *Server) apiTokens(c echo.Context) error {
	tokens, err := s.store.APITokens(c.Request().Context(), currentUser(c).ID)
	if err != nil {
		return err
	}
	out := make([]apiTokenView, len(tokens))
	for i, t := range tokens {
		out[i] = apiTokenView{ID: t.ID, Label: t.Label, Prefix: t.Prefix, CreatedAt: t.CreatedAt, ExpiresAt: t.ExpiresAt, LastUsedAt: t.LastUsedAt}
	}
	return c.JSON(http.StatusOK, map[string]any{"tokens": out})
}

func (s *Server) apiRevokeToken(c echo.Context) error {
	if err := s.store.RevokeAPIToken(c.Request().Context(), currentUser(c).ID, c.Param("id")); err != nil {
		return err
	}
	s.log.Info("token revoked", "request_id", requestID(c), "token_id", c.Param("id"))
	return c.NoContent(http.StatusNoContent)
}

// tokensBody gathers the tokens page's list.
func (s *Server) tokensBody(c echo.Context) (views.TokensPage, error) {
	tokens, err := s.store.APITokens(c.Request().Context(), currentUser(c).ID)
	if err != nil {
		return views.TokensPage{}, err
	}
	l := localizer(c)
	vm := views.TokensPage{CSRF: csrfToken(c), Language: currentUser(c).Language, Languages: locale.Languages}
	switch c.QueryParam("done") {
	case "password":
		vm.Flash = localizer(c).T("account.password.changed")
	case "language":
		vm.Flash = localizer(c).T("account.language.saved")
	}
	vm.PasswordError = c.QueryParam("error")
	for _, t := range tokens {
		row := views.TokenRow{ID: t.ID, Label: t.Label, Prefix: t.Prefix, Created: fmtTime(l, t.CreatedAt), Expires: fmtTime(l, t.ExpiresAt), LastUsed: l.T("account.tokens.never")}
		if t.LastUsedAt != nil {
			row.LastUsed = fmtTime(l, *t.LastUsedAt)
		}
		vm.Tokens = append(vm.Tokens, row)
	}
	return vm, nil
}

// tokensPage lists the caller's API tokens with their last use.
func (s *Server) tokensPage(c echo.Context) error {
	vm, err := s.tokensBody(c)
	if err != nil {
		return err
	}
	active := ""
	if currentUser(c).Role.IsStaff() {
		active = "tokens"
	}
	p := s.page(c, "page.account", active)
	if c.QueryParam("done") == "revoked" {
		vm.Flash = localizer(c).T("account.tokens.revoked")
		p.Say, p.Focus = vm.Flash, "#tokens-title"
	}
	if f := s.takeFormFlash(c); f != nil && f.Form == "token" {
		vm.Refused = &views.FormError{Form: f.Form, Field: f.Field, Message: f.Message}
		vm.Label, p.Focus = f.Values["label"], "#"+f.Field
	}
	return render(c, http.StatusOK, views.TokensPageView(p, vm))
}

// tokensPageCreate issues a token with the owner's label. The token is
// shown once, in the answer to this htmx request (nothing is stored that
// could show it again, and a reload of the page only lists tokens); a
// plain form is sent back to the list, where the new token is the first.
func (s *Server) tokensPageCreate(c echo.Context) error {
	label := strings.Join(strings.Fields(c.FormValue("label")), " ")
	refuse := func(msg string) error {
		if !fromHTMX(c) {
			return s.refuseForm(c, "/account/tokens", formFlash{Form: "token", Field: "token-label", Message: msg, Values: map[string]string{"label": label}})
		}
		vm, err := s.tokensBody(c)
		if err != nil {
			return err
		}
		vm.Refused, vm.Label = &views.FormError{Form: "token", Field: "token-label", Message: msg}, label
		announce(c, "", "#token-label")
		return render(c, http.StatusOK, views.TokensBody(vm))
	}
	switch {
	case label == "":
		return refuse(localizer(c).T("account.tokens.error.empty"))
	case len([]rune(label)) > models.MaxTokenLabel:
		return refuse(localizer(c).T("account.tokens.error.long"))
	}
	if _, blocked := guard.ScreenText(label); blocked {
		return refuse(localizer(c).T("account.tokens.error.blocked"))
	}
	token, t, err := s.store.CreateLabelledAPIToken(c.Request().Context(), currentUser(c).ID, label, s.cfg.TokenTTL)
	if err != nil {
		return err
	}
	s.log.Info("token created", "request_id", requestID(c), "token_id", t.ID)
	if !fromHTMX(c) {
		return c.Redirect(http.StatusSeeOther, "/account/tokens")
	}
	vm, err := s.tokensBody(c)
	if err != nil {
		return err
	}
	vm.Secret, vm.SecretLabel = token, label
	announce(c, localizer(c).T("account.tokens.say.created", "Label", label), "#token-secret")
	return render(c, http.StatusOK, views.TokensBody(vm))
}

func (s *Server) tokensPageRevoke(c echo.Context) error {
	if err := s.store.RevokeAPIToken(c.Request().Context(), currentUser(c).ID, c.Param("id")); err != nil {
		return err
	}
	s.log.Info("token revoked", "request_id", requestID(c), "token_id", c.Param("id"))
	if !fromHTMX(c) {
		return c.Redirect(http.StatusSeeOther, "/account/tokens?done=revoked")
	}
	vm, err := s.tokensBody(c)
	if err != nil {
		return err
	}
	announce(c, localizer(c).T("account.tokens.revoked"), "#tokens-title")
	return render(c, http.StatusOK, views.TokensBody(vm))
}
