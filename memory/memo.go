package memory

import "sync"

// Memo is a bounded cache of pure results: a value computed from its key
// alone, the same on every call. When it holds limit entries it is emptied
// rather than evicted entry by entry, which keeps the hot path one map
// lookup under a read lock. It is safe for concurrent use.
type Memo[K comparable, V any] struct {
	mu    sync.RWMutex
	m     map[K]V
	limit int
}

// NewMemo returns an empty Memo that holds at most limit entries.
func NewMemo[K comparable, V any](limit int) *Memo[K, V] {
	return &Memo[K, V]{m: make(map[K]V), limit: limit}
}

// Get returns the remembered value of k, or computes it with f and
// remembers it.
func (c *Memo[K, V]) Get(k K, f func() V) V {
	c.mu.RLock()
	v, ok := c.m[k]
	c.mu.RUnlock()
	if ok {
		return v
	}
	v = f()
	c.mu.Lock()
	if len(c.m) >= c.limit {
		clear(c.m)
	}
	c.m[k] = v
	c.mu.Unlock()
	return v
}
