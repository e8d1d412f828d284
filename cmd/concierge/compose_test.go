package main

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestComposeFileIsValid checks compose.yaml with "docker compose config",
// which parses and resolves it without an engine, where the compose plugin
// is installed; it skips, saying so, where it is not.
func TestComposeFileIsValid(t *testing.T) {
	docker, err := exec.LookPath("docker")
	if err != nil {
		t.Skip("docker is not installed: compose.yaml is not checked")
	}
	file := filepath.Join("..", "..", "compose.yaml")
	if out, err := exec.Command(docker, "compose", "version").CombinedOutput(); err != nil {
		t.Skipf("docker has no compose plugin here (%s): compose.yaml is not checked", strings.TrimSpace(string(out)))
	}
	out, err := exec.Command(docker, "compose", "-f", file, "config", "--quiet").CombinedOutput()
	if err != nil {
		t.Fatalf("docker compose config: %v\n%s", err, out)
	}
	out, err = exec.Command(docker, "compose", "-f", file, "config", "--services").CombinedOutput()
	if err != nil {
		t.Fatalf("docker compose config --services: %v\n%s", err, out)
	}
	for _, want := range []string{"postgres", "concierge-1", "concierge-2", "proxy"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("compose.yaml has no %s service; services: %s", want, out)
		}
	}
}
