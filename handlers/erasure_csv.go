package handlers

import (
	"encoding/csv"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"
)

// erasureCSVHeader is the receipts export's columns: ids, dates, the reason
// code, the ticket and row counts — nothing personal. An executing admin is
// named by account id only, and loses even that when erased.
var erasureCSVHeader = []string{"request_id", "requested_by", "requested_at", "due_at", "completed_at", "on_time",
	"executed_by", "reason", "ticket", "rows_deleted_total", "rows_deleted"}

// apiErasureReceiptsCSV gives an auditor every executed erasure's receipt.
func (s *Server) apiErasureReceiptsCSV(c echo.Context) error {
	reqs, err := s.store.ErasureReceipts(c.Request().Context())
	if err != nil {
		return err
	}
	h := c.Response().Header()
	h.Set(echo.HeaderContentType, "text/csv; charset=utf-8")
	h.Set(echo.HeaderContentDisposition, `attachment; filename="erasure-receipts.csv"`)
	c.Response().WriteHeader(http.StatusOK)
	w := csv.NewWriter(c.Response())
	if err := w.Write(erasureCSVHeader); err != nil {
		return err
	}
	stamp := func(t time.Time) string { return t.UTC().Format(time.RFC3339) }
	for _, r := range reqs {
		rec, err := r.DecodeReceipt()
		if err != nil {
			return err
		}
		completed, onTime := "", ""
		due := r.DueAt(s.cfg.ErasureDue)
		if r.CompletedAt != nil {
			completed, onTime = stamp(*r.CompletedAt), strconv.FormatBool(!r.CompletedAt.After(due))
		}
		// Plain digits for the auditor's tools, whatever the reader's language.
		var total int64
		var counts []string
		if rec != nil {
			tables := make([]string, 0, len(rec.RowsDeleted))
			for t := range rec.RowsDeleted {
				tables = append(tables, t)
			}
			sort.Strings(tables)
			for _, t := range tables {
				total += rec.RowsDeleted[t]
				counts = append(counts, t+"="+strconv.FormatInt(rec.RowsDeleted[t], 10))
			}
		}
		if err := w.Write([]string{r.ID, r.RequestedBy, stamp(r.CreatedAt), stamp(due), completed, onTime,
			r.ExecutedBy, r.Reason, r.Ticket, strconv.FormatInt(total, 10), strings.Join(counts, ";")}); err != nil {
			return err
		}
	}
	w.Flush()
	return w.Error()
}
