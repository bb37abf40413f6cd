package jail

import (
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestCapture(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		limit  int
		writes []string
		want   string
		cut    int64
	}{
		{"empty", 10, nil, "", 0},
		{"fits", 10, []string{"abc", "de"}, "abcde", 0},
		{"exact", 4, []string{"abcd"}, "abcd", 0},
		{"cut one write", 4, []string{"abcdefgh"}, "ab\n[... 4 bytes cut ...]\ngh", 4},
		{"cut many writes", 6, []string{"abc", "def", "ghi", "jk"}, "abc\n[... 5 bytes cut ...]\nijk", 5},
		{"ring wraps", 4, []string{"ab", "c", "d", "e", "f", "g"}, "ab\n[... 3 bytes cut ...]\nfg", 3},
		{"zero limit", 0, []string{"abc"}, "\n[... 3 bytes cut ...]\n", 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := NewCapture(tt.limit)
			var total int64
			for _, w := range tt.writes {
				n, err := c.Write([]byte(w))
				if err != nil || n != len(w) {
					t.Fatalf("Write(%q) = %d, %v", w, n, err)
				}
				total += int64(n)
			}
			if diff := cmp.Diff(tt.want, c.String()); diff != "" {
				t.Errorf("String() (-want +got):\n%s", diff)
			}
			if c.Cut() != tt.cut || c.Len() != total {
				t.Errorf("Cut, Len = %d, %d; want %d, %d", c.Cut(), c.Len(), tt.cut, total)
			}
		})
	}
}

func TestCaptureConcurrent(t *testing.T) {
	t.Parallel()
	c := NewCapture(64)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 1000 {
				_, _ = c.Write([]byte("0123456789"))
			}
		})
	}
	wg.Wait()
	if c.Len() != 80000 || c.Cut() != 80000-64 {
		t.Fatalf("Len, Cut = %d, %d", c.Len(), c.Cut())
	}
	if !strings.Contains(c.String(), "[... 79936 bytes cut ...]") {
		t.Fatalf("String() = %q", c.String())
	}
}
