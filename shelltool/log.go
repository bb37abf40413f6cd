package shelltool

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"io"
	"maps"
	"regexp"
	"slices"
	"sync"
	"time"

	"github.com/skillsh/skillsh/policy"
)

// DecisionLogger receives a record of every policy decision. It must be
// safe for concurrent use.
type DecisionLogger interface {
	LogDecision(ctx context.Context, rec *DecisionRecord)
}

// DecisionRecord follows the shape of OPA's decision-log events: an id, a
// timestamp, the query path, the input, the result and the policy
// revision.
type DecisionRecord struct {
	DecisionID string          `json:"decision_id"`
	Timestamp  time.Time       `json:"timestamp"`
	Path       string          `json:"path"`
	Input      *policy.Input   `json:"input"`
	Result     policy.Decision `json:"result"`
	Revision   string          `json:"revision"`
	Error      string          `json:"error,omitempty"`
}

// JSONLog writes one JSON object a line. It is safe for concurrent use.
type JSONLog struct {
	mu sync.Mutex
	w  io.Writer
}

// NewJSONLog returns a DecisionLogger writing to w.
func NewJSONLog(w io.Writer) *JSONLog { return &JSONLog{w: w} }

// LogDecision writes rec as one line. Write errors are dropped: a log that
// cannot be written never stops a decision.
func (l *JSONLog) LogDecision(_ context.Context, rec *DecisionRecord) {
	data, err := json.Marshal(rec)
	if err != nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.w.Write(append(data, '\n'))
}

func (t *Tool) log(ctx context.Context, in *policy.Input, d policy.Decision, err error) {
	if t.cfg.Log == nil {
		return
	}
	rec := &DecisionRecord{
		DecisionID: newID(),
		Timestamp:  time.Now().UTC(),
		Path:       policy.Query,
		Input:      maskSecrets(in),
		Result:     d,
		Revision:   t.cfg.Engine.Revision(),
	}
	if err != nil {
		rec.Error = err.Error()
	}
	t.cfg.Log.LogDecision(ctx, rec)
}

// secretName matches variable names whose values a log must not keep.
var secretName = regexp.MustCompile(`(?i)(secret|token|passw|pwd|key|credential|auth|cookie|session)`)

// Masked replaces a secret value in a decision record.
const Masked = "<masked>"

// maskSecrets returns in, or a copy whose assignments to variables named
// like secrets (API_KEY, GITHUB_TOKEN, DB_PASSWORD, ...) have their values
// masked. The command string itself is logged as the model sent it.
func maskSecrets(in *policy.Input) *policy.Input {
	out := *in
	out.Commands = slices.Clone(in.Commands)
	for i := range out.Commands {
		c := &out.Commands[i]
		c.Assigns = slices.Clone(c.Assigns)
		for j := range c.Assigns {
			if secretName.MatchString(c.Assigns[j].Name) && c.Assigns[j].Value != "" {
				c.Assigns[j].Value = Masked
			}
		}
	}
	return &out
}

func newID() string {
	var b [16]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

func sortedKeys[V any](m map[string]V) []string {
	return slices.Sorted(maps.Keys(m))
}
