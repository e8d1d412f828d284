package offline

import (
	"strings"
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

// TestIssue30Statements: the statements issue 30 quotes are saved in the
// traveler's language, with lowercase keywords in that language; text in
// other scripts leaves nothing.
func TestIssue30Statements(t *testing.T) {
	for _, c := range []struct {
		say  string
		want []string
	}{
		{"Hola, soy vegetariana y prefiero asientos de ventana.", []string{"Es vegetariana.", "Prefiere asientos de ventana."}},
		{"Я вегетарианец и предпочитаю место у окна.", []string{"Вегетарианец.", "Предпочитает место у окна."}},
		{"Me mudé a Sevilla el mes pasado.", []string{"Vive en Sevilla."}},
		{"В прошлом месяце я переехала в Казань.", []string{"Живёт в Казани."}},
		{"Я бросил пить.", []string{"Не пьёт."}},
		{"He dejado de beber alcohol.", []string{"Ya no bebe alcohol."}},
		{"Quiero un hotel en Madrid para marzo.", nil},
		{"我喜欢靠窗的座位。", nil},
		{"أنا نباتي وأفضل مقعد النافذة.", nil},
	} {
		got := model.table.captureIn(c.say, "", nil).notes
		var texts []string
		for _, n := range got {
			checkNoteShape(t, c.say, n)
			texts = append(texts, n.Text)
		}
		if strings.Join(texts, "|") != strings.Join(c.want, "|") {
			t.Errorf("capture(%q) = %q, want %q", c.say, texts, c.want)
		}
	}
}

// TestAccountLanguage: the offline model reads the account's language back
// from the line memory/prompt writes.
func TestAccountLanguage(t *testing.T) {
	for in, want := range map[string]string{
		"- Today is 2026-03-02.\n- The account's language is Spanish (es).\n": langES,
		"- The account's language is Russian (ru).":                           langRU,
		"- Today is 2026-03-02.":                                              "",
	} {
		if got := accountLanguage(in); got != want {
			t.Errorf("accountLanguage(%q) = %q, want %q", in, got, want)
		}
	}
	if got := messageLanguage("ok", accountLanguage("- The account's language is Russian (ru).")); got != langRU {
		t.Errorf("a short message with a Russian account reads as %q", got)
	}
}
