// Command concierge serves the Concierge travel assistant and its console.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"
)

// defaultGCPercent is the collector's target when GOGC is not set: a turn
// allocates briefly and keeps little, and the live heap is tens of
// megabytes, so collecting at 4x it instead of 2x saves about a twentieth
// of a turn's CPU for a few tens of megabytes more.
const defaultGCPercent = 300

func main() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(defaultGCPercent)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Getenv, os.Stdin, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "concierge:", err)
		os.Exit(1)
	}
}
