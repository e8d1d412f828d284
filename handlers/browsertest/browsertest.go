// Package browsertest runs browser tests in real headless Chromium. Tests
// skip with a clear message when Chromium is not installed, unless
// CONCIERGE_TEST_BROWSER=1 (as CI sets it) makes them mandatory.
package browsertest

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// RequiredEnv names the variable that makes browser tests mandatory.
const RequiredEnv = "CONCIERGE_TEST_BROWSER"

// Chromium finds the browser binary, or returns "".
func Chromium() string {
	if p := os.Getenv("CONCIERGE_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "headless-shell"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// shared is the one headless Chromium of a test binary: starting one takes
// about a second, and each test gets a browser context of its own in it
// (cookies, storage and cache apart), as a fresh browser would give.
var shared struct {
	once   sync.Once
	ctx    context.Context // the browser; no test acts on it directly
	cancel context.CancelFunc
	err    error
}

// New opens a tab for the test in a browser context of its own, in the test
// binary's headless Chromium (started on first use), and closes it when the
// test ends. Every action on it is bounded by timeout.
func New(t *testing.T, timeout time.Duration) context.Context {
	t.Helper()
	bin := Chromium()
	if bin == "" {
		if os.Getenv(RequiredEnv) == "1" {
			t.Fatalf("%s=1 but Chromium was not found (install the chromium package)", RequiredEnv)
		}
		t.Skipf("Chromium not installed: browser test skipped (apt-get install -y chromium, or set %s=1 to require it)", RequiredEnv)
	}
	shared.once.Do(func() { start(bin) })
	if shared.err != nil {
		t.Fatalf("start Chromium: %v", shared.err)
	}
	ctx, cancelCtx := chromedp.NewContext(shared.ctx, chromedp.WithNewBrowserContext())
	ctx, cancelTimeout := context.WithTimeout(ctx, timeout)
	t.Cleanup(func() {
		cancelTimeout()
		cancelCtx() // closes the tab and disposes of its browser context
	})
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("open a tab: %v", err)
	}
	return ctx
}

// start launches the shared Chromium. Its profile is a temporary directory
// the allocator removes on Close; the kernel ends the browser if the test
// binary dies first.
func start(bin string) {
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(bin),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.WindowSize(1280, 900),
	)
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelBrowser := chromedp.NewContext(allocCtx)
	shared.ctx, shared.cancel = ctx, func() {
		cancelBrowser()
		cancelAlloc()
	}
	shared.err = chromedp.Do(ctx)
}

// Close ends the shared Chromium, if a test started it; a package's TestMain
// calls it after its tests.
func Close() {
	if shared.cancel != nil {
		shared.cancel()
	}
}

// Screenshot saves a full-page PNG of the current page to dir/name.png when
// CONCIERGE_SCREENSHOTS names a directory; otherwise it does nothing.
func Screenshot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	dir := os.Getenv("CONCIERGE_SCREENSHOTS")
	if dir == "" {
		return
	}
	buf, err := chromedp.Run(ctx, chromedp.FullScreenshot(100)) // quality 100 gives a PNG
	if err != nil {
		t.Errorf("screenshot %s: %v", name, err)
		return
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name+".png"), buf, 0o644); err != nil {
		t.Fatal(err)
	}
}
