package offline

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

func TestZZN(t *testing.T) {
	for _, m := range strings.Split(os.Getenv("ZZ"), "||") {
		c := model.table.capture(m, nil)
		var ns []string
		for _, n := range c.notes {
			ns = append(ns, fmt.Sprintf("%s [%s %v]", n.Text, n.Scope, n.Keywords))
		}
		fmt.Printf("%q\n   -> %s (other=%v known=%d)\n", m, strings.Join(ns, " | "), c.otherPerson, len(c.known))
	}
}
