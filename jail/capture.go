package jail

import (
	"fmt"
	"sync"
)

// Capture is an io.Writer that keeps at most the first and the last Limit/2
// bytes written to it and counts the rest, so that a program printing
// gigabytes costs bounded memory. It is safe for concurrent use; Write
// never fails.
type Capture struct {
	mu    sync.Mutex
	half  int
	head  []byte
	tail  []byte // ring buffer of the last half bytes once full
	next  int    // next write position in tail when full
	total int64
}

// NewCapture returns a Capture keeping at most limit bytes (limit/2 from the
// start and limit/2 from the end). A limit below 2 keeps nothing.
func NewCapture(limit int) *Capture {
	return &Capture{half: max(limit, 0) / 2}
}

// Write records p. It always returns len(p), nil.
func (c *Capture) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.total += int64(len(p))
	rest := p
	if n := min(c.half-len(c.head), len(rest)); n > 0 {
		c.head = append(c.head, rest[:n]...)
		rest = rest[n:]
	}
	c.addTail(rest)
	return len(p), nil
}

func (c *Capture) addTail(p []byte) {
	if c.half == 0 || len(p) == 0 {
		return
	}
	if len(p) >= c.half {
		c.tail = append(c.tail[:0], p[len(p)-c.half:]...)
		c.next = 0
		return
	}
	if room := c.half - len(c.tail); room > 0 {
		n := min(room, len(p))
		c.tail = append(c.tail, p[:n]...)
		p = p[n:]
	}
	for len(p) > 0 {
		n := copy(c.tail[c.next:], p)
		p = p[n:]
		c.next = (c.next + n) % c.half
	}
}

// Len returns the number of bytes written in total.
func (c *Capture) Len() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.total
}

// Cut returns the number of bytes written but not kept.
func (c *Capture) Cut() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.total - int64(len(c.head)+len(c.tail))
}

// Bytes returns the kept head and tail, without a cut marker.
func (c *Capture) Bytes() (head, tail []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]byte(nil), c.head...), c.orderedTail()
}

func (c *Capture) orderedTail() []byte {
	out := make([]byte, 0, len(c.tail))
	out = append(out, c.tail[c.next:]...)
	return append(out, c.tail[:c.next]...)
}

// String returns what was kept: all of it when nothing was cut, otherwise
// the head, a line "[... N bytes cut ...]" and the tail.
func (c *Capture) String() string {
	head, tail := c.Bytes()
	cut := c.Cut()
	if cut == 0 {
		return string(head) + string(tail)
	}
	return fmt.Sprintf("%s\n[... %d bytes cut ...]\n%s", head, cut, tail)
}
