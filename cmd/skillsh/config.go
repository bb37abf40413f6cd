package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/skillsh/skillsh/jail"
	"github.com/skillsh/skillsh/policy"
	"github.com/skillsh/skillsh/shelltool"
)

// config is what the common flags and the --config YAML file set. A flag
// given on the command line wins over the file.
type config struct {
	Skills      stringList `yaml:"skills"`
	Workspace   string     `yaml:"workspace"`
	Policy      stringList `yaml:"policy"`
	PolicyOnly  bool       `yaml:"policy_only"`
	Timeout     duration   `yaml:"timeout"`
	Require     stringList `yaml:"require"`
	DecisionLog string     `yaml:"decision_log"`
	KeepUID     bool       `yaml:"keep_uid"`
}

// stringList is a list of strings in YAML, or one string for a list of
// one.
type stringList []string

func (l *stringList) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode {
		*l = stringList{n.Value}
		return nil
	}
	var list []string
	if err := n.Decode(&list); err != nil {
		return fmt.Errorf("line %d: want a string or a list of strings", n.Line)
	}
	*l = list
	return nil
}

// duration is a time.Duration written as "30s" in YAML.
type duration time.Duration

func (d *duration) UnmarshalYAML(n *yaml.Node) error {
	v, err := time.ParseDuration(n.Value)
	if err != nil {
		return fmt.Errorf("line %d: timeout: %w", n.Line, err)
	}
	*d = duration(v)
	return nil
}

// listFlag is a repeatable flag; the first use on the command line
// replaces what the config file said.
type listFlag struct {
	list *stringList
	set  bool
}

func (l *listFlag) String() string {
	if l.list == nil {
		return ""
	}
	return strings.Join(*l.list, ",")
}

func (l *listFlag) Set(v string) error {
	if !l.set {
		*l.list, l.set = nil, true
	}
	*l.list = append(*l.list, v)
	return nil
}

// flags is a subcommand's flag set with the common flags bound to cfg.
type flags struct {
	*flag.FlagSet
	cfg        config
	configFile string
	timeout    time.Duration
	require    string
	approver   shelltool.Approver // who answers "ask"; nil: nobody
	// decideOnly: the subcommand runs nothing (explain, policy check), so a
	// workspace it has to create is removed when it ends, not kept.
	decideOnly bool
}

func newFlags(name string, stderr io.Writer) *flags {
	f := &flags{FlagSet: flag.NewFlagSet(name, flag.ContinueOnError)}
	f.SetOutput(stderr)
	f.Usage = func() {
		if name == "skillsh" {
			fmt.Fprint(stderr, helpText)
			return
		}
		fmt.Fprintf(stderr, "Usage of skillsh %s:\n", name)
		f.PrintDefaults()
		fmt.Fprintln(stderr, "Run 'skillsh help' for every command.")
	}
	f.StringVar(&f.configFile, "config", "", "YAML config `file`")
	f.Var(&listFlag{list: &f.cfg.Skills}, "skills", "skills root `dir` (repeatable)")
	f.StringVar(&f.cfg.Workspace, "workspace", "", "workspace `dir` (default: a new temporary directory)")
	f.Var(&listFlag{list: &f.cfg.Policy}, "policy", "policy `path`: directory or bundle (repeatable)")
	f.BoolVar(&f.cfg.PolicyOnly, "policy-only", false, "use only the --policy policies, not the default")
	f.DurationVar(&f.timeout, "timeout", 0, "wall-clock limit of one call (default 30s)")
	f.StringVar(&f.require, "require", "", "protections that must be in force, comma-separated, or \"all\"")
	f.StringVar(&f.cfg.DecisionLog, "decision-log", "", "append decision records to `file`")
	f.BoolVar(&f.cfg.KeepUID, "keep-uid", false, "when root, do not run programs as an unprivileged uid")
	return f
}

// parse reads the config file named by --config (if any) and then the
// flags, so that flags override the file.
func (f *flags) parse(args []string) error {
	if file := findConfigFlag(args); file != "" {
		if err := f.loadConfig(file); err != nil {
			return err
		}
	}
	if err := f.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return &exitError{code: exitOK}
		}
		return &usageError{msg: err.Error()}
	}
	if f.timeout != 0 {
		f.cfg.Timeout = duration(f.timeout)
	}
	if f.cfg.Timeout < 0 {
		return usagef("--timeout must be positive")
	}
	if f.require != "" {
		f.cfg.Require = strings.Split(f.require, ",")
	}
	return nil
}

// set reports whether the flag name was given on the command line.
func (f *flags) set(name string) bool {
	found := false
	f.Visit(func(fl *flag.Flag) { found = found || fl.Name == name })
	return found
}

// parseInterspersed parses args as parse does, but flags may also follow
// the positional arguments, which it returns in order.
func (f *flags) parseInterspersed(args []string) ([]string, error) {
	if err := f.parse(args); err != nil {
		return nil, err
	}
	var positional []string
	for rest := f.Args(); len(rest) > 0; rest = f.Args() {
		positional = append(positional, rest[0])
		if err := f.parse(rest[1:]); err != nil {
			return nil, err
		}
	}
	return positional, nil
}

// findConfigFlag finds --config before the flags are parsed.
func findConfigFlag(args []string) string {
	for i, a := range args {
		a = strings.TrimPrefix(strings.TrimPrefix(a, "-"), "-")
		if v, ok := strings.CutPrefix(a, "config="); ok {
			return v
		}
		if a == "config" && i+1 < len(args) {
			return args[i+1]
		}
	}
	return ""
}

// loadConfig reads a YAML config file into f.cfg; its relative paths are
// made relative to the file's directory. A file that cannot be read, is not
// YAML, or has a key that is not one of configKeys is a usage error.
func (f *flags) loadConfig(file string) error {
	data, err := os.ReadFile(file)
	if err != nil {
		return usagef("config: %v", err)
	}
	if err := checkConfigKeys(data); err != nil {
		return usagef("config %s: %v", file, err)
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&f.cfg); err != nil && !errors.Is(err, io.EOF) {
		return usagef("config %s: %v", file, err)
	}
	base := filepath.Dir(file)
	f.cfg.Skills = relativeTo(base, f.cfg.Skills)
	f.cfg.Policy = relativeTo(base, f.cfg.Policy)
	if f.cfg.Workspace != "" {
		f.cfg.Workspace = relativeTo(base, []string{f.cfg.Workspace})[0]
	}
	if f.cfg.DecisionLog != "" {
		f.cfg.DecisionLog = relativeTo(base, []string{f.cfg.DecisionLog})[0]
	}
	return nil
}

// configKeys are the keys a config file may have: the yaml names of
// config's fields.
var configKeys = func() []string {
	var keys []string
	t := reflect.TypeFor[config]()
	for i := range t.NumField() {
		keys = append(keys, strings.Split(t.Field(i).Tag.Get("yaml"), ",")[0])
	}
	return keys
}()

// checkConfigKeys says which top-level key of a YAML mapping is not a
// config key, with its line and the keys that are.
func checkConfigKeys(data []byte) error {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return err
	}
	if len(doc.Content) == 0 {
		return nil // empty file
	}
	m := doc.Content[0]
	if m.Kind != yaml.MappingNode {
		return fmt.Errorf("line %d: want a mapping of keys (%s)", m.Line, strings.Join(configKeys, ", "))
	}
	for i := 0; i < len(m.Content); i += 2 {
		if k := m.Content[i]; !slices.Contains(configKeys, k.Value) {
			return fmt.Errorf("line %d: unknown key %q (known: %s)", k.Line, k.Value, strings.Join(configKeys, ", "))
		}
	}
	return nil
}

func relativeTo(base string, paths []string) []string {
	out := make([]string, len(paths))
	for i, p := range paths {
		if !filepath.IsAbs(p) {
			p = filepath.Join(base, p)
		}
		out[i] = p
	}
	return out
}

// engine loads the policy the flags name.
func (f *flags) engine(ctx context.Context) (*policy.Engine, error) {
	opts := []policy.Option{policy.WithPolicy(f.cfg.Policy...)}
	if f.cfg.PolicyOnly {
		if len(f.cfg.Policy) == 0 {
			return nil, usagef("--policy-only needs at least one --policy")
		}
		opts = append(opts, policy.WithoutDefault())
	}
	return policy.NewEngine(ctx, opts...)
}

// skillsRoots returns the --skills roots, or ./skills when it exists.
func (f *flags) skillsRoots() []string {
	if len(f.cfg.Skills) > 0 {
		return f.cfg.Skills
	}
	if fi, err := os.Stat("skills"); err == nil && fi.IsDir() {
		return []string{"skills"}
	}
	return nil
}

// requirements converts --require into protections; "all" is every
// protection the jail knows.
func (f *flags) requirements() ([]jail.Protection, error) {
	known := map[jail.Protection]bool{}
	var all []jail.Protection
	for _, s := range jail.Probe() {
		known[s.Protection] = true
		all = append(all, s.Protection)
	}
	var out []jail.Protection
	for _, r := range f.cfg.Require {
		r = strings.TrimSpace(r)
		switch {
		case r == "":
		case r == "all":
			out = append(out, all...)
		case known[jail.Protection(r)]:
			out = append(out, jail.Protection(r))
		default:
			return nil, usagef("--require: unknown protection %q (known: %s)", r, joinProtections(all))
		}
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

func joinProtections(ps []jail.Protection) string {
	s := make([]string, len(ps))
	for i, p := range ps {
		s[i] = string(p)
	}
	return strings.Join(s, ", ")
}

// tool builds the shell tool the flags describe. A workspace it creates is
// kept, and its path printed to stderr, so its files can be looked at;
// unless decideOnly, when the tool removes it on close.
func (f *flags) tool(ctx context.Context, stderr io.Writer) (*shelltool.Tool, func(), error) {
	engine, err := f.engine(ctx)
	if err != nil {
		return nil, nil, err
	}
	require, err := f.requirements()
	if err != nil {
		return nil, nil, err
	}
	ws := f.cfg.Workspace
	if ws == "" && !f.decideOnly {
		if ws, err = os.MkdirTemp("", "skillsh-workspace-"); err != nil {
			return nil, nil, err
		}
		fmt.Fprintf(stderr, "skillsh: workspace %s\n", ws)
	}
	cfg := shelltool.Config{
		Skills:    f.skillsRoots(),
		Workspace: ws,
		Timeout:   time.Duration(f.cfg.Timeout),
		Engine:    engine,
		Approver:  f.approver,
		Jail:      jail.Config{Require: require, KeepUID: f.cfg.KeepUID, ChownWorkspace: true},
	}
	closeLog := func() {}
	if f.cfg.DecisionLog != "" {
		lf, err := os.OpenFile(f.cfg.DecisionLog, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
		if err != nil {
			return nil, nil, fmt.Errorf("decision log: %w", err)
		}
		cfg.Log = shelltool.NewJSONLog(lf)
		closeLog = func() { lf.Close() }
	}
	t, err := shelltool.New(cfg)
	if err != nil {
		closeLog()
		return nil, nil, err
	}
	return t, func() { t.Close(); closeLog() }, nil
}
