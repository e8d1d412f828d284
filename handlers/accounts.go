package handlers

import (
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"concierge/models"
	"concierge/views"
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
	if strings.TrimSpace(name) == "" {
		return nil, newError(http.StatusUnprocessableEntity, "name_required", "Give the account a name.")
	}
	err := models.CheckPassword(password, email, name)
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
		return newError(http.StatusUnprocessableEntity, "nothing_to_change", "Change the role, or disable or enable the account.")
	}
	reason := strings.Join(strings.Fields(req.Reason), " ")
	if reason == "" {
		reason = apiReason
	}
	if len([]rune(reason)) > MaxReasonChars {
		return newError(http.StatusUnprocessableEntity, "reason_too_long", "Keep the reason under 500 characters.")
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

// accountFlashes are the confirmations of the accounts page's actions.
var accountFlashes = map[string]string{
	"role":     "Role changed. The change is in the audit trail.",
	"created":  "Account created. Give its owner the password in person or over a channel you trust.",
	"disabled": "Account disabled: it cannot sign in, and its sessions and API tokens were revoked.",
	"enabled":  "Account enabled again: it can sign in with its password.",
	"password": "Password reset. The account was signed out everywhere.",
}

func (s *Server) consoleAccounts(c echo.Context) error {
	vm, err := s.accountsPage(c)
	if err != nil {
		return err
	}
	vm.Flash, vm.Highlight = accountFlashes[c.QueryParam("done")], c.QueryParam("id")
	return render(c, http.StatusOK, views.AccountsPageView(s.page(c, "Accounts", "accounts"), vm))
}

// accountsFail shows the accounts page again with an error next to the
// form that caused it (forID: "" for the new-account form) and the admin's
// entries kept.
func (s *Server) accountsFail(c echo.Context, forID, msg string, keep func(*views.AccountsPage)) error {
	vm, err := s.accountsPage(c)
	if err != nil {
		return err
	}
	vm.Error, vm.ErrorFor = msg, forID
	if keep != nil {
		keep(&vm)
	}
	return render(c, http.StatusUnprocessableEntity, views.AccountsPageView(s.page(c, "Accounts", "accounts"), vm))
}

func (s *Server) consoleCreateAccount(c echo.Context) error {
	email, name, role := c.FormValue("email"), c.FormValue("name"), c.FormValue("role")
	u, err := s.createAccount(c, email, name, role, c.FormValue("password"))
	if e, _ := toError(err); err != nil && e.Status < 500 {
		return s.accountsFail(c, "new", e.Message, func(vm *views.AccountsPage) {
			vm.New = views.NewAccount{Email: email, Name: name, Role: role, Open: true}
		})
	}
	if err != nil {
		return err
	}
	return c.Redirect(http.StatusSeeOther, "/console/accounts?done=created&id="+u.ID+"#account-"+u.ID)
}

func (s *Server) consoleChangeRole(c echo.Context) error {
	u, me := subjectOf(c), currentUser(c)
	role := models.Role(c.FormValue("role"))
	if !role.Valid() {
		return s.accountsFail(c, u.ID, "Choose traveler, support or admin.", nil)
	}
	reason, err := requireReason(c.FormValue("reason"))
	if err != nil {
		return s.accountsFail(c, u.ID, userMessage(err), nil)
	}
	if err := s.store.ChangeUserRole(c.Request().Context(), u.ID, role, actorOf(me), reason); err != nil {
		return err
	}
	s.log.Info("role changed", "request_id", requestID(c), "user_id", u.ID, "role", role, "by", me.ID)
	return c.Redirect(http.StatusSeeOther, "/console/accounts?done=role&id="+u.ID+"#account-"+u.ID)
}

// consoleSetDisabled disables or enables the :id account.
func (s *Server) consoleSetDisabled(disabled bool) echo.HandlerFunc {
	return func(c echo.Context) error {
		u, me := subjectOf(c), currentUser(c)
		reason, err := requireReason(c.FormValue("reason"))
		if err != nil {
			return s.accountsFail(c, u.ID, userMessage(err), nil)
		}
		if _, err := s.store.SetUserDisabled(c.Request().Context(), u.ID, disabled, actorOf(me), reason); err != nil {
			return err
		}
		done := "enabled"
		if disabled {
			done = "disabled"
		}
		s.log.Info("account "+done, "request_id", requestID(c), "user_id", u.ID, "by", me.ID)
		return c.Redirect(http.StatusSeeOther, "/console/accounts?done="+done+"&id="+u.ID+"#account-"+u.ID)
	}
}

func (s *Server) consoleResetPassword(c echo.Context) error {
	u, me := subjectOf(c), currentUser(c)
	reason, err := requireReason(c.FormValue("reason"))
	if err != nil {
		return s.accountsFail(c, u.ID, userMessage(err), nil)
	}
	err = s.store.ResetPassword(c.Request().Context(), u.ID, c.FormValue("password"), actorOf(me), reason)
	var pe *models.PasswordError
	if errors.As(err, &pe) {
		return s.accountsFail(c, u.ID, pe.Message, nil)
	}
	if err != nil {
		return err
	}
	s.log.Info("password reset", "request_id", requestID(c), "user_id", u.ID, "by", me.ID)
	if u.ID == me.ID {
		// Resetting one's own password signed this browser out too.
		return c.Redirect(http.StatusSeeOther, "/login")
	}
	return c.Redirect(http.StatusSeeOther, "/console/accounts?done=password&id="+u.ID+"#account-"+u.ID)
}

// apiToken is how the API shows one of the caller's tokens (never its value).
type apiTokenView struct {
	ID         string     `json:"id"`
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
		out[i] = apiTokenView{ID: t.ID, CreatedAt: t.CreatedAt, ExpiresAt: t.ExpiresAt, LastUsedAt: t.LastUsedAt}
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

// tokensPage lists the caller's API tokens with their last use.
func (s *Server) tokensPage(c echo.Context) error {
	tokens, err := s.store.APITokens(c.Request().Context(), currentUser(c).ID)
	if err != nil {
		return err
	}
	vm := views.TokensPage{CSRF: csrfToken(c)}
	if c.QueryParam("done") == "revoked" {
		vm.Flash = "Token revoked: it no longer works."
	}
	for _, t := range tokens {
		row := views.TokenRow{ID: t.ID, Created: fmtTime(t.CreatedAt), Expires: fmtTime(t.ExpiresAt), LastUsed: "never"}
		if t.LastUsedAt != nil {
			row.LastUsed = fmtTime(*t.LastUsedAt)
		}
		vm.Tokens = append(vm.Tokens, row)
	}
	active := ""
	if currentUser(c).Role.IsStaff() {
		active = "tokens"
	}
	return render(c, http.StatusOK, views.TokensPageView(s.page(c, "API tokens", active), vm))
}

func (s *Server) tokensPageRevoke(c echo.Context) error {
	if err := s.store.RevokeAPIToken(c.Request().Context(), currentUser(c).ID, c.Param("id")); err != nil {
		return err
	}
	s.log.Info("token revoked", "request_id", requestID(c), "token_id", c.Param("id"))
	return c.Redirect(http.StatusSeeOther, "/account/tokens?done=revoked")
}
