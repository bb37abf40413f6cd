package jail

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"

	"github.com/skillsh/skillsh/jail/internal/helper"
)

// Landlock filesystem rights (include/uapi/linux/landlock.h).
const (
	llExecute    = 1 << 0
	llWriteFile  = 1 << 1
	llReadFile   = 1 << 2
	llReadDir    = 1 << 3
	llRemoveDir  = 1 << 4
	llRemoveFile = 1 << 5
	llMakeChar   = 1 << 6
	llMakeDir    = 1 << 7
	llMakeReg    = 1 << 8
	llMakeSock   = 1 << 9
	llMakeFifo   = 1 << 10
	llMakeBlock  = 1 << 11
	llMakeSym    = 1 << 12
	llRefer      = 1 << 13 // ABI 2
	llTruncate   = 1 << 14 // ABI 3
	llIoctlDev   = 1 << 15 // ABI 5

	llRead     = llReadFile | llReadDir
	llReadExec = llRead | llExecute
	llWrite    = llWriteFile | llRemoveDir | llRemoveFile | llMakeDir | llMakeReg |
		llMakeSock | llMakeFifo | llMakeSym | llRefer | llTruncate
	llDevRW = llReadFile | llWriteFile | llTruncate

	llNetBindTCP    = 1 << 0 // ABI 4
	llNetConnectTCP = 1 << 1

	llScopeAbstractUnix = 1 << 0 // ABI 6
	llScopeSignal       = 1 << 1
)

// handledFS returns every filesystem right the kernel's ABI knows, so that
// whatever is not granted by a rule is denied.
func handledFS(abi int) uint64 {
	h := uint64(llExecute | llWriteFile | llReadFile | llReadDir | llRemoveDir | llRemoveFile |
		llMakeChar | llMakeDir | llMakeReg | llMakeSock | llMakeFifo | llMakeBlock | llMakeSym)
	if abi >= 2 {
		h |= llRefer
	}
	if abi >= 3 {
		h |= llTruncate
	}
	if abi >= 5 {
		h |= llIoctlDev
	}
	return h
}

// systemRead are read (not execute) for every program: the files the C
// library, the dynamic loader and common interpreters read at start.
var systemRead = []string{
	"/usr", "/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/localtime",
	"/etc/passwd", "/etc/group", "/etc/nsswitch.conf", "/etc/hosts", "/etc/host.conf",
	"/etc/ssl", "/etc/ca-certificates", "/etc/mime.types", "/etc/locale.alias",
	"/etc/python3", "/etc/alternatives", "/dev/zero", "/dev/random", "/dev/urandom",
}

// devReadWrite are readable and writable device files.
var devReadWrite = []string{"/dev/null", "/dev/full"}

// defaultExecutables are executable when Config.Executables is empty.
var defaultExecutables = []string{"/usr/local/bin", "/usr/bin", "/usr/sbin", "/usr/libexec", "/usr/lib"}

// elfInterpreters are the dynamic loaders an executable may name.
var elfInterpreters = []string{
	"/lib64/ld-linux-x86-64.so.2", "/lib/ld-linux-aarch64.so.1", "/lib/ld-musl-x86_64.so.1",
	"/lib/ld-musl-aarch64.so.1",
}

// landlockRules builds the ruleset for cfg, resolving symbolic links so
// both a link and its target are named (a rule on a link's path applies to
// the target the kernel opens).
func landlockRules(cfg *Config, abi int, tmp string) helper.Landlock {
	l := helper.Landlock{ABI: abi, HandledFS: handledFS(abi)}
	if abi >= 4 {
		l.HandledNet = llNetBindTCP | llNetConnectTCP
	}
	if abi >= 6 {
		l.Scoped = llScopeAbstractUnix | llScopeSignal
	}
	add := func(access uint64, paths ...string) {
		for _, p := range withTargets(paths) {
			l.Rules = append(l.Rules, helper.Rule{Path: p, Access: access & l.HandledFS})
		}
	}
	add(llRead, systemRead...)
	add(llRead, pythonEtc()...)
	add(llDevRW, devReadWrite...)
	add(llReadExec, cfg.ReadOnly...)
	add(llRead|llWrite, cfg.ReadWrite...)
	if tmp != "" {
		add(llRead|llWrite, tmp)
	}
	if cfg.Pipes != "" {
		add(llReadFile|llWriteFile, cfg.Pipes) // open its pipes; never create, list or replace
	}
	add(llReadFile|llExecute, executables(cfg)...)
	return l
}

func pythonEtc() []string {
	m, _ := filepath.Glob("/etc/python3*")
	return m
}

// executables lists what may be executed: Config.Executables (or the
// system program directories), the interpreters named by scripts among
// them, and the ELF interpreters.
func executables(cfg *Config) []string {
	list := cfg.Executables
	if len(list) == 0 {
		list = defaultExecutables
	}
	out := append([]string(nil), list...)
	for _, p := range list {
		if interp := shebang(p); interp != "" {
			out = append(out, interp)
		}
	}
	return append(out, elfInterpreters...)
}

// shebang returns the interpreter named on a script's "#!" line, or "".
func shebang(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	line, _ := bufio.NewReaderSize(f, 256).ReadString('\n')
	rest, ok := strings.CutPrefix(line, "#!")
	if !ok {
		return ""
	}
	fields := strings.Fields(rest)
	if len(fields) == 0 || !filepath.IsAbs(fields[0]) {
		return ""
	}
	return fields[0]
}

// withTargets returns paths and, for those that are or pass through
// symbolic links, their resolved targets, without duplicates.
func withTargets(paths []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, p := range paths {
		for _, q := range []string{p, resolve(p)} {
			if q != "" && !seen[q] {
				seen[q] = true
				out = append(out, q)
			}
		}
	}
	return out
}

func resolve(p string) string {
	r, err := filepath.EvalSymlinks(p)
	if err != nil {
		return ""
	}
	return r
}
