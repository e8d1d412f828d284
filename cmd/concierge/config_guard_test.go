package main

import (
	"io"
	"testing"
)

func TestGuardModelConfig(t *testing.T) {
	tests := []struct {
		name string
		env  map[string]string
		args []string
		want string
	}{
		{"offline: off", map[string]string{}, nil, ""},
		{"offline even when named", map[string]string{"CONCIERGE_GUARD_MODEL": "gpt-4o-mini"}, nil, ""},
		{"key set: the chat model", map[string]string{"OPENAI_API_KEY": "k", "CONCIERGE_MODEL": "chat-m"}, nil, "chat-m"},
		{"env names one", map[string]string{"OPENAI_API_KEY": "k", "CONCIERGE_GUARD_MODEL": "small-m"}, nil, "small-m"},
		{"flag wins", map[string]string{"OPENAI_API_KEY": "k", "CONCIERGE_GUARD_MODEL": "small-m"}, []string{"--guard-model", "flag-m"}, "flag-m"},
		{"turned off", map[string]string{"OPENAI_API_KEY": "k"}, []string{"--guard-model", "off"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := parseServeConfig("serve", tt.args, func(k string) string { return tt.env[k] }, io.Discard)
			if err != nil {
				t.Fatal(err)
			}
			if cfg.GuardModel != tt.want {
				t.Errorf("GuardModel = %q, want %q", cfg.GuardModel, tt.want)
			}
		})
	}
}
