package offline

import (
	"testing"
	"time"
)

// TestInflectedTrip: a Spanish or Russian message fills the trip as an
// English one does: the destination in its dictionary form, the month, the
// party and the purpose.
func TestInflectedTrip(t *testing.T) {
	today := time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		lang, say, to, start, end, travellers, purpose string
	}{
		{langES, "Quiero un hotel en Madrid para marzo.", "Madrid", "2026-03-01", "2026-03-31", "", ""},
		{langES, "Busca hoteles en Berlín para julio, somos tres.", "Berlín", "2026-07-01", "2026-07-31", "3", ""},
		{langES, "Necesito un hotel en Sevilla del 3 al 7 de mayo.", "Sevilla", "2026-05-03", "2026-05-07", "", ""},
		{langES, "Voy a Roma en abril por una conferencia.", "Roma", "2026-04-01", "2026-04-30", "", "business"},
		{langRU, "Хочу в Париж в апреле.", "Париж", "2026-04-01", "2026-04-30", "", ""},
		{langRU, "Нужен отель в Севилье на май.", "Севилья", "2026-05-01", "2026-05-31", "", ""},
		{langRU, "Найди отели в Берлине на июль, нас трое.", "Берлин", "2026-07-01", "2026-07-31", "3", ""},
		{langRU, "Нужен отель в Москве с 3 по 7 августа, еду в командировку.", "Москва", "2026-08-03", "2026-08-07", "", "business"},
	} {
		tr := trip{}
		_, purpose := inflectedTrip(tr, c.lang, c.say)
		start, end := isoDates(tr["dates"], today)
		if tr["to"] != c.to || start != c.start || end != c.end || tr["travellers"] != c.travellers || purpose != c.purpose {
			t.Errorf("inflectedTrip(%q) = to %q, %s–%s, travellers %q, purpose %q; want %q, %s–%s, %q, %q",
				c.say, tr["to"], start, end, tr["travellers"], purpose, c.to, c.start, c.end, c.travellers, c.purpose)
		}
	}
}
