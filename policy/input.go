package policy

// InputVersion is the version of the policy input document. It changes only
// when a field is removed or changes meaning; new fields keep the version.
const InputVersion = 1

// Phase says when a policy input was built.
type Phase string

const (
	// PhaseStatic is the check of the whole command string before anything
	// runs: words that need expansion are marked dynamic.
	PhaseStatic Phase = "static"
	// PhaseExec is the check of one simple command after expansion, right
	// before the interpreter runs it: every word is literal.
	PhaseExec Phase = "exec"
)

// Input is the document given to Rego as `input`. It is built by [Build] (the
// static phase) or [BuildExec] (the exec phase) and documented field by field
// in docs/policy-input.md, with a JSON Schema in rego/input.schema.json.
type Input struct {
	Version  int       `json:"version"`
	Phase    Phase     `json:"phase"`
	Command  string    `json:"command"`
	Cwd      string    `json:"cwd"`
	Roots    Roots     `json:"roots"`
	Session  Session   `json:"session"`
	Commands []Command `json:"commands"`
	Features Features  `json:"features"`
}

// Roots are the absolute, symlink-resolved directories a command may touch.
type Roots struct {
	Skills    []string `json:"skills"`    // read-only
	Workspace string   `json:"workspace"` // read-write
}

// Session holds facts about the session the command runs in.
type Session struct {
	Home        string         `json:"home"`        // HOME the commands see, used for ~
	Skills      []SkillFact    `json:"skills"`      // the loaded catalog
	Protections []string       `json:"protections"` // kernel protections in force
	Env         map[string]any `json:"env,omitempty"`
}

// SkillFact is one loaded skill as the policy sees it.
type SkillFact struct {
	Name         string   `json:"name"`
	Dir          string   `json:"dir"`
	Location     string   `json:"location"`
	AllowedTools []string `json:"allowed_tools"`
}

// Command is one simple command anywhere in the syntax tree, or one command
// run by a wrapper program such as env, xargs or find -exec.
type Command struct {
	Index int `json:"index"` // position in Input.Commands
	// Name is argv[0] as written after quote removal; empty when dynamic.
	Name string `json:"name"`
	// Base is the last path element of Name ("cat" for "/usr/bin/cat").
	Base string `json:"base"`
	// Kind is "builtin", "function" (declared in the command), "external",
	// "assignment" (no argv, only assignments) or "dynamic" (argv[0] needs
	// expansion).
	Kind string `json:"kind"`
	// Program is the absolute path argv[0] resolves to through PATH or the
	// working directory; empty for builtins, functions and unknown programs.
	Program   string     `json:"program"`
	Argv      []Word     `json:"argv"`
	Assigns   []Assign   `json:"assigns"`
	Redirects []Redirect `json:"redirects"`
	Paths     []Path     `json:"paths"`
	// Options are argv's options parsed with the policy's grammar for the
	// program; nil until [Engine.Complete] (which Decide calls) fills it.
	Options *Options `json:"options,omitempty"`
	// Wrapper is set when a wrapper program or construct runs this command.
	Wrapper *Wrapper `json:"wrapper,omitempty"`
	// Context lists the constructs around the command, outermost first:
	// "pipeline", "subshell", "cmdsubst", "procsubst", "function",
	// "background", "condition", "loop", "negated", "coproc", "time".
	Context []string `json:"context"`
	// Opaque is set when the command runs code that cannot be seen into,
	// such as `sh -c "$x"` or `eval "$y"`; it says why.
	Opaque string `json:"opaque,omitempty"`
	Span   Span   `json:"span"`
}

// Wrapper records how a nested command is run.
type Wrapper struct {
	// Name is the wrapper: a program ("env", "xargs", "find", "bash") or a
	// construct ("eval", "source").
	Name string `json:"name"`
	// Parent is the Index of the command that runs this one.
	Parent int `json:"parent"`
}

// Word is one argv element.
type Word struct {
	// Value is the word after quote removal, tilde, brace and glob
	// expansion; empty when Dynamic.
	Value string `json:"value"`
	// Dynamic is true when the word needs expansion only known at run time.
	Dynamic bool `json:"dynamic"`
	// Expansions lists what a dynamic word contains: "param", "cmdsubst",
	// "arith", "procsubst", "indirect" (${!x}), "prompt" (${x@P}).
	Expansions []string `json:"expansions,omitempty"`
	// Glob is true when the word was a pattern expanded against the file
	// system (or left as is because nothing matched).
	Glob bool `json:"glob,omitempty"`
	Span Span `json:"span"`
}

// Assign is a variable assignment in front of a command, in a declaration
// (declare, export, local, readonly) or on its own.
type Assign struct {
	Name    string `json:"name"`
	Value   string `json:"value"`
	Dynamic bool   `json:"dynamic"`
	Array   bool   `json:"array,omitempty"`
	Span    Span   `json:"span"`
}

// Redirect is one redirection of a command.
type Redirect struct {
	// Op is the operator as written: "<", ">", ">>", "<>", ">|", "&>",
	// "&>>", "<&", ">&", "<<", "<<-", "<<<".
	Op string `json:"op"`
	// Fd is the redirected descriptor (0 for input, 1 for output unless
	// written).
	Fd int `json:"fd"`
	// Access is "read", "write", "readwrite", "dup" (>&2) or "here" (a
	// here-document or here-string).
	Access string `json:"access"`
	// Path is the target file, resolved; nil for "dup" and "here".
	Path *Path `json:"path,omitempty"`
	Span Span  `json:"span"`
}

// Path is a path-like argument or redirection target, resolved.
type Path struct {
	// Arg is the index in Argv the path came from; -1 for redirections.
	Arg int `json:"arg"`
	// Value is the path as written after quote removal (for an option like
	// --file=x, only x).
	Value string `json:"value"`
	// Resolved is absolute and cleaned, with ~ expanded and symlinks of the
	// existing part followed; empty when Dynamic.
	Resolved string `json:"resolved"`
	// Root names the root that contains Resolved by whole path components:
	// "skills", "workspace", "device" (a harmless device such as
	// /dev/null), or "" for none.
	Root string `json:"root"`
	// RootDir is the root directory that contains Resolved, if any.
	RootDir string `json:"root_dir,omitempty"`
	Exists  bool   `json:"exists"`
	Dir     bool   `json:"dir,omitempty"`
	Dynamic bool   `json:"dynamic,omitempty"`
}

// Span is a byte range [Start, End) of Input.Command with 1-based line and
// column of Start. Commands found inside a nested script (bash -c, eval)
// carry the span of the word holding that script.
type Span struct {
	Start int `json:"start"`
	End   int `json:"end"`
	Line  int `json:"line"`
	Col   int `json:"col"`
}

// Features are facts about the whole command that matter to a policy.
type Features struct {
	Background  bool     `json:"background"`
	CmdSubst    bool     `json:"cmdsubst"`
	ProcSubst   bool     `json:"procsubst"`
	Heredoc     bool     `json:"heredoc"`
	Eval        bool     `json:"eval"`
	Coproc      bool     `json:"coproc"`
	Functions   []string `json:"functions"`
	Opaque      bool     `json:"opaque"`
	Pipeline    bool     `json:"pipeline"`
	Subshell    bool     `json:"subshell"`
	Arithmetic  bool     `json:"arithmetic"`
	Assignments []string `json:"assignments"` // names assigned anywhere
}
