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
func (c *Memo[K, V]) Get(k K, f func() V) V { return c.GetStored(k, nil, f) }

// GetStored is Get for a key that should not be kept as it is given (a
// substring of a larger text, which the cache would keep alive): on a
// miss the value is remembered under stored(k). A nil stored keeps k.
func (c *Memo[K, V]) GetStored(k K, stored func(K) K, f func() V) V {
	c.mu.RLock()
	v, ok := c.m[k]
	c.mu.RUnlock()
	if ok {
		return v
	}
	v = f()
	if stored != nil {
		k = stored(k)
	}
	c.mu.Lock()
	if len(c.m) >= c.limit {
		clear(c.m)
	}
	c.m[k] = v
	c.mu.Unlock()
	return v
}
