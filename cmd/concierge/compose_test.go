package main

import (
	"context"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/compose-spec/compose-go/v2/cli"
	"github.com/compose-spec/compose-go/v2/types"
)

// composeFile is the scale-out setup README shows.
var composeFile = filepath.Join("..", "..", "compose.yaml")

// TestComposeFileIsValid loads compose.yaml with compose-go, the Compose
// Specification's own loader (the one docker compose uses): the file must
// pass the specification's JSON schema and decode, durations and all, and
// it must hold PostgreSQL, two instances and the proxy, each instance with
// a health check and waiting for a healthy database, the proxy for healthy
// instances.
func TestComposeFileIsValid(t *testing.T) {
	opts, err := cli.NewProjectOptions([]string{composeFile}, cli.WithName("concierge"),
		cli.WithEnv([]string{"OPENAI_API_KEY="}))
	if err != nil {
		t.Fatal(err)
	}
	project, err := opts.LoadProject(context.Background())
	if err != nil {
		t.Fatalf("compose.yaml does not load: %v", err)
	}
	names := project.ServiceNames()
	for _, want := range []string{"postgres", "concierge-1", "concierge-2", "proxy"} {
		if !slices.Contains(names, want) {
			t.Errorf("compose.yaml has no %s service; services: %v", want, names)
		}
	}
	healthy := func(svc types.ServiceConfig, on string) bool {
		d, ok := svc.DependsOn[on]
		return ok && d.Condition == types.ServiceConditionHealthy
	}
	for _, name := range []string{"postgres", "concierge-1", "concierge-2"} {
		svc, err := project.GetService(name)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if svc.HealthCheck == nil || len(svc.HealthCheck.Test) == 0 || svc.HealthCheck.Interval == nil {
			t.Errorf("%s has no health check", name)
		}
		dsn := svc.Environment["DATABASE_URL"]
		if name != "postgres" && (!healthy(svc, "postgres") || dsn == nil || !strings.HasPrefix(*dsn, "postgres://")) {
			t.Errorf("%s does not wait for a healthy PostgreSQL or does not use it", name)
		}
	}
	if proxy, err := project.GetService("proxy"); err != nil || !healthy(proxy, "concierge-1") || !healthy(proxy, "concierge-2") || len(proxy.Ports) == 0 {
		t.Errorf("the proxy does not wait for both healthy instances or publishes no port (%v)", err)
	}
}

// TestComposeConfig also runs "docker compose config", which resolves the
// file as the engine's client does, where docker's compose plugin is
// installed; it skips, saying so, where it is not.
func TestComposeConfig(t *testing.T) {
	docker, err := exec.LookPath("docker")
	if err != nil {
		t.Skip("docker is not installed: compose.yaml is checked by TestComposeFileIsValid only")
	}
	if out, err := exec.Command(docker, "compose", "version").CombinedOutput(); err != nil {
		t.Skipf("docker has no compose plugin here (%s): compose.yaml is checked by TestComposeFileIsValid only", strings.TrimSpace(string(out)))
	}
	if out, err := exec.Command(docker, "compose", "-f", composeFile, "config", "--quiet").CombinedOutput(); err != nil {
		t.Fatalf("docker compose config: %v\n%s", err, out)
	}
}
