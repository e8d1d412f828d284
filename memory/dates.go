package memory

// DayNumber parses a YYYY-MM-DD date into days since 1970-01-01, without
// the cost of time.Parse (it runs for every note on every turn).
func DayNumber(s string) (int, bool) {
	if len(s) != 10 || s[4] != '-' || s[7] != '-' {
		return 0, false
	}
	num := func(part string) (int, bool) {
		n := 0
		for i := 0; i < len(part); i++ {
			c := part[i]
			if c < '0' || c > '9' {
				return 0, false
			}
			n = n*10 + int(c-'0')
		}
		return n, true
	}
	y, ok1 := num(s[0:4])
	m, ok2 := num(s[5:7])
	d, ok3 := num(s[8:10])
	if !ok1 || !ok2 || !ok3 || m < 1 || m > 12 || d < 1 || d > daysIn(y, m) {
		return 0, false
	}
	// Days from civil (Howard Hinnant's algorithm).
	if m <= 2 {
		y--
	}
	era := y / 400
	yoe := y - era*400
	mp := (m + 9) % 12
	doy := (153*mp+2)/5 + d - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return era*146097 + doe - 719468, true
}

func daysIn(y, m int) int {
	switch m {
	case 2:
		if y%4 == 0 && (y%100 != 0 || y%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// ValidDate reports whether s is a real YYYY-MM-DD date.
func ValidDate(s string) bool {
	_, ok := DayNumber(s)
	return ok
}

// Expired reports whether n expired before today. Without a valid today
// nothing expires.
func Expired(n Note, today string) bool {
	return n.ExpiresOn != "" && ValidDate(today) && n.ExpiresOn < today
}
