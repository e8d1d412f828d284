//go:build !unix

package models

// lockFile is a no-op where flock(2) is missing: run one instance per
// SQLite database there (which SQLite deployments do anyway).
func lockFile(string) (func(), error) { return func() {}, nil }

// tryLockFile is a no-op where flock(2) is missing.
func tryLockFile(string, bool) (func(), error) { return func() {}, nil }
