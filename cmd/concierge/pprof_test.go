package main

import (
	"io"
	"log/slog"
	"net/http"
	"testing"
)

// TestPprofFlag: profiles are off by default, only a loopback address is
// accepted, and when on they are served on their own listener.
func TestPprofFlag(t *testing.T) {
	none := func(string) string { return "" }
	cfg, err := parseServeConfig("serve", nil, none, io.Discard)
	if err != nil || cfg.Pprof != "" {
		t.Fatalf("default: %q %v, want off", cfg.Pprof, err)
	}
	for _, addr := range []string{":6060", "0.0.0.0:6060", "example.com:6060", "6060"} {
		if _, err := parseServeConfig("serve", []string{"--pprof", addr}, none, io.Discard); err == nil {
			t.Errorf("--pprof %s accepted, want refused (not loopback)", addr)
		}
	}
	cfg, err = parseServeConfig("serve", []string{"--pprof", "127.0.0.1:0"}, none, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	stop, addr, err := serveProfiles(cfg.Pprof, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	resp, err := http.Get("http://" + addr + "/debug/pprof/cmdline")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("profiles answered %d", resp.StatusCode)
	}
}
