package policy

// Verdict is the outcome of a policy decision.
type Verdict string

// The verdicts, from weakest to strongest: deny wins over ask, ask over allow.
const (
	Allow Verdict = "allow"
	Ask   Verdict = "ask"
	Deny  Verdict = "deny"
)

// Decision is what the policy says about one input document.
type Decision struct {
	Verdict Verdict  `json:"decision"`
	Reasons []Reason `json:"reasons"`
	// Profile, when not nil, asks the jail for other limits for the
	// commands this decision allows.
	Profile *Profile `json:"profile,omitempty"`
}

// Reason explains one rule that fired. Every non-allow decision carries at
// least one.
type Reason struct {
	// Code is the rule's stable code, such as "path.outside_roots".
	Code string `json:"code"`
	// Message says what was refused and why, naming the command and path.
	Message string `json:"message"`
	// Allowed says what is allowed instead.
	Allowed string `json:"allowed,omitempty"`
	// Verdict is the verdict this reason argues for ("deny" or "ask").
	Verdict Verdict `json:"verdict,omitempty"`
	// Rule is the file and line of the Rego rule that fired, when known.
	Rule string `json:"rule,omitempty"`
	// Command is the index of the command in the input it refers to.
	Command *int `json:"command,omitempty"`
	// Span is the part of the command string the reason refers to.
	Span *Span `json:"span,omitempty"`
}

// Profile is a jail profile chosen by policy. Zero fields keep the session's
// limits.
type Profile struct {
	TimeoutSeconds float64 `json:"timeout_seconds,omitempty"`
	CPUSeconds     float64 `json:"cpu_seconds,omitempty"`
	MemoryBytes    int64   `json:"memory_bytes,omitempty"`
	FileSizeBytes  int64   `json:"file_size_bytes,omitempty"`
	OutputBytes    int64   `json:"output_bytes,omitempty"`
	Processes      int64   `json:"processes,omitempty"`
}
