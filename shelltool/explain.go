package shelltool

import (
	"context"

	"github.com/skillsh/skillsh/policy"
)

// Explanation is what `skillsh explain` shows: the static-phase policy
// input and the decision the policy reaches on it. Nothing runs.
type Explanation struct {
	Command  string          `json:"command"`
	Decision policy.Decision `json:"decision"`
	Input    *policy.Input   `json:"input"`
}

// Explain parses command and decides it without running anything. The
// error is an *InputError for input that cannot be parsed, or the policy's
// error (the decision is then a denial).
func (s *Session) Explain(ctx context.Context, command string) (*Explanation, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	file, err := parseCommand(command)
	if err != nil {
		return nil, err
	}
	in := s.staticInput(command, file)
	d, err := s.tool.cfg.Engine.Decide(ctx, in)
	return &Explanation{Command: command, Decision: d, Input: in}, err
}
