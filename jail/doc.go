// Package jail starts external programs confined, and reports which kernel
// protections this host can enforce.
//
// Every program starts through a helper: the jail re-executes its own
// binary (os.Executable) with SKILLSH_JAIL_HELPER=1, and the init function
// of jail/internal/helper, which imports only syscall and unsafe and
// therefore runs before the heavy packages of the binary initialise, reads
// a spec from descriptor 3 and, on the thread that will exec, in this
// order: brings lo up in the new network namespace, sets the rlimits (CPU,
// address space, file size, open files, core 0; processes only without a
// pids cgroup), opens the Landlock rule paths and builds the ruleset (as
// root, so it can reach them), drops to the unprivileged uid/gid with no
// supplementary groups, re-arms the parent-death signal, sets
// no_new_privs, enforces the Landlock ruleset on the thread, closes the
// spec descriptor and executes the program. A failure at any step is
// written to descriptor 4 (close-on-exec, so a successful exec closes it
// silently) and Run returns a *SetupError naming the step: a jail failure
// is never mistaken for the program's exit status.
//
// The helper runs in new PID and network namespaces where the caller may
// create them (root). There it stays as the namespace's pid 1, a minimal
// init that starts the program as pid 2 and reaps orphans; when the
// program exits, the init exits and the kernel kills every process the
// program started, including those that called setsid, double-forked or
// were nohup'ed. A pids cgroup
// per program (cgroup v1 pids controller) bounds the number of processes
// and lets the jail kill whatever is left; the program's own process group
// is killed at the end too. See docs/jail.md for what each protection
// guarantees and what it costs.
//
// Any binary that imports this package can act as the helper; nothing else
// is needed. A binary built without cgo (CGO_ENABLED=0) starts the helper
// faster, since no dynamic loader and C library are loaded.
//
// Because the program is not pid 1, it has ordinary signal semantics: a
// pipeline's writer dies quietly of SIGPIPE, kill $$ works, and the CPU and
// file-size limits end it with SIGXCPU and SIGXFSZ as they would under
// bash.
package jail
