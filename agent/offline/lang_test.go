package offline

import "testing"

func TestMessageLanguage(t *testing.T) {
	for _, c := range []struct{ text, fallback, want string }{
		{"Hola, soy vegetariana y prefiero asientos de ventana.", "en", langES},
		{"Quiero un hotel en Madrid para marzo.", "en", langES},
		{"Я вегетарианец и предпочитаю место у окна.", "en", langRU},
		{"I prefer window seats.", "es", langEN},
		{"我喜欢靠窗的座位。", "en", langOther},
		{"أفضل المقعد بجانب النافذة", "en", langOther},
		{"ok", "ru", langRU},
		{"Lisboa", "es", langES},
		{"", "", langEN},
	} {
		if got := messageLanguage(c.text, c.fallback); got != c.want {
			t.Errorf("messageLanguage(%q, %q) = %q, want %q", c.text, c.fallback, got, c.want)
		}
	}
}

func TestMessageLanguageShort(t *testing.T) {
	for text, want := range map[string]string{
		"Me mudé a Sevilla el mes pasado.": langES,
		"Odio madrugar.":                   langES,
		"I love café culture.":             langEN,
		"Soy celíaca.":                     langES,
		"Me too.":                          langEN,
		"I live in Valencia.":              langEN,
		"Uso silla de ruedas.":             langES,
		"no hotels w/o aircon":             langEN,
	} {
		if got := messageLanguage(text, ""); got != want {
			t.Errorf("messageLanguage(%q) = %q, want %q", text, got, want)
		}
	}
}

func TestWithoutTripSuffix(t *testing.T) {
	for in, want := range map[string]string{
		"Wants a window seat on this trip.":          "Wants a window seat.",
		"Quiere un hotel con piscina en este viaje.": "Quiere un hotel con piscina.",
		"Хочет номер с видом в этой поездке.":        "Хочет номер с видом.",
		"Prefers aisle seats.":                       "Prefers aisle seats.",
	} {
		if got := withoutTripSuffix(in); got != want {
			t.Errorf("withoutTripSuffix(%q) = %q, want %q", in, got, want)
		}
	}
}
