package dbtest

import (
	"net"
	"net/url"
	"sync"
	"testing"
)

// Proxy is a TCP proxy in front of a database server that a test controls:
// it can freeze every connection (bytes stop flowing both ways, as with a
// hung server or a dropped network), thaw them, or cut them all, without
// touching the server that other tests share.
type Proxy struct {
	ln     net.Listener
	target string

	mu     sync.Mutex
	frozen chan struct{} // closed while flowing; a fresh open channel while frozen
	conns  map[net.Conn]bool
	down   bool // refusing connections, as a stopped server
}

// NewProxy listens on 127.0.0.1 and forwards to target (host:port) until
// the test ends.
func NewProxy(tb testing.TB, target string) *Proxy {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	flowing := make(chan struct{})
	close(flowing)
	p := &Proxy{ln: ln, target: target, frozen: flowing, conns: map[net.Conn]bool{}}
	go p.accept()
	tb.Cleanup(func() { ln.Close(); p.Thaw(); p.Cut() })
	return p
}

// Via rewrites a postgres:// URL to go through the proxy.
func (p *Proxy) Via(tb testing.TB, dsn string) string {
	tb.Helper()
	u, err := url.Parse(dsn)
	if err != nil {
		tb.Fatal(err)
	}
	u.Host = p.ln.Addr().String()
	return u.String()
}

// PostgresTarget is the host:port of the server a postgres:// URL names.
func PostgresTarget(tb testing.TB, dsn string) string {
	tb.Helper()
	u, err := url.Parse(dsn)
	if err != nil {
		tb.Fatal(err)
	}
	return u.Host
}

func (p *Proxy) accept() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		go p.serve(c)
	}
}

func (p *Proxy) serve(client net.Conn) {
	p.mu.Lock()
	down := p.down
	p.mu.Unlock()
	if down {
		client.Close()
		return
	}
	p.gate()
	server, err := net.Dial("tcp", p.target)
	if err != nil {
		client.Close()
		return
	}
	p.mu.Lock()
	p.conns[client], p.conns[server] = true, true
	p.mu.Unlock()
	go p.pipe(server, client)
	p.pipe(client, server)
}

// pipe copies src to dst, waiting at the gate before each write.
func (p *Proxy) pipe(dst, src net.Conn) {
	defer dst.Close()
	defer src.Close()
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			p.gate()
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

func (p *Proxy) gate() {
	p.mu.Lock()
	ch := p.frozen
	p.mu.Unlock()
	<-ch
}

// Freeze stops every byte, on open connections and new ones, until Thaw.
func (p *Proxy) Freeze() {
	p.mu.Lock()
	defer p.mu.Unlock()
	select {
	case <-p.frozen:
		p.frozen = make(chan struct{})
	default:
	}
}

// Thaw lets bytes flow again.
func (p *Proxy) Thaw() {
	p.mu.Lock()
	defer p.mu.Unlock()
	select {
	case <-p.frozen:
	default:
		close(p.frozen)
	}
}

// Stop closes every open connection and refuses new ones (each is closed
// as soon as it is accepted), as a stopped server does, until Start.
func (p *Proxy) Stop() {
	p.mu.Lock()
	p.down = true
	p.mu.Unlock()
	p.Cut()
}

// Start takes connections again, as a server started again does.
func (p *Proxy) Start() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.down = false
}

// Cut closes every open connection, as a server that restarted would.
func (p *Proxy) Cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for c := range p.conns {
		c.Close()
	}
	clear(p.conns)
}
