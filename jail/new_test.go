package jail

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestRequire(t *testing.T) {
	t.Parallel()
	ws := workspace(t)
	_, err := New(Config{ReadWrite: []string{ws}, ChownWorkspace: true, Require: []Protection{"teleportation"}})
	var me *MissingError
	if !errors.As(err, &me) || me.Protection != "teleportation" {
		t.Fatalf("err = %v, want *MissingError naming the protection", err)
	}
	_, err = New(Config{ReadWrite: []string{ws}, KeepUID: true, Require: []Protection{UIDDrop}})
	if !errors.As(err, &me) || me.Protection != UIDDrop {
		t.Fatalf("KeepUID with uid_drop required: err = %v", err)
	}
	var all []Protection
	for _, s := range Probe() {
		if s.Active {
			all = append(all, s.Protection)
		}
	}
	if _, err := New(Config{ReadWrite: []string{ws}, ChownWorkspace: true, Require: all}); err != nil {
		t.Fatalf("requiring every active protection: %v", err)
	}
}

func TestProbeCached(t *testing.T) {
	t.Parallel()
	a, b := Probe(), Probe()
	if len(a) == 0 || len(a) != len(b) {
		t.Fatalf("Probe() = %v, %v", a, b)
	}
	a[0].Active = !a[0].Active
	if Probe()[0] == a[0] {
		t.Error("Probe returns shared state")
	}
	for _, s := range b {
		if s.Detail == "" {
			t.Errorf("%s has no detail", s.Protection)
		}
	}
}

func TestUnreachableWorkspace(t *testing.T) {
	t.Parallel()
	if os.Geteuid() != 0 {
		t.Skip("the uid is dropped only by root")
	}
	private := t.TempDir() // its parent is 0700
	_, err := New(Config{ReadWrite: []string{private}, ChownWorkspace: true})
	if err == nil || !strings.Contains(err.Error(), "not reachable") {
		t.Fatalf("err = %v, want a reachability error", err)
	}
}

// TestAllowed checks that confinement leaves the intended work possible.
func TestAllowed(t *testing.T) {
	t.Parallel()
	f := newFixture(t, Config{})
	script := filepath.Join(f.ro, "hello.sh")
	if err := os.WriteFile(script, []byte("#!/bin/sh\necho hello from $0\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		args   []string
		stdout string
	}{
		{"read a root", []string{"/bin/cat", f.roFile}, f.original},
		{"write the workspace", []string{"/bin/sh", "-c", "echo x > out && mkdir d && mv out d/ && cat d/out && rm -r d"}, "x\n"},
		{"tmp dir", []string{"/bin/sh", "-c", `echo y > "$TMPDIR/t" && cat "$TMPDIR/t"`}, "y\n"},
		{"script in a root", []string{script}, "hello from " + script + "\n"},
		{"python", []string{"/usr/bin/python3", "-c", "import json, os; print(json.dumps(os.getcwd() == os.environ['HOME']))"}, "true\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			o := runIn(t, f.j, testCtx(t, 10*time.Second), &Command{Path: tt.args[0], Args: tt.args})
			if o.res.ExitCode != 0 || o.stdout != tt.stdout {
				t.Errorf("exit %d stdout %q stderr %q; want 0 %q", o.res.ExitCode, o.stdout, o.stderr, tt.stdout)
			}
		})
	}
}

// TestLoopback checks that the network namespace has lo up: a program can
// use loopback UDP inside it (TCP is denied by Landlock).
func TestLoopback(t *testing.T) {
	t.Parallel()
	requireKernel(t, NetNS)
	f := newFixture(t, Config{})
	prog := "import socket\na=socket.socket(socket.AF_INET, socket.SOCK_DGRAM); a.bind(('127.0.0.1', 0))\n" +
		"b=socket.socket(socket.AF_INET, socket.SOCK_DGRAM); b.sendto(b'ping', a.getsockname())\nprint(a.recv(4).decode())"
	o := runIn(t, f.j, testCtx(t, 10*time.Second), &Command{Path: "/usr/bin/python3", Args: []string{"python3", "-c", prog}})
	if o.stdout != "ping\n" {
		t.Errorf("loopback UDP: exit %d stdout %q stderr %q", o.res.ExitCode, o.stdout, o.stderr)
	}
}

// TestPipesInsideWorkspaceRefused: a pipes directory beneath a read-write
// directory would be changeable by programs through that directory's
// Landlock rule; New refuses it.
func TestPipesInsideWorkspaceRefused(t *testing.T) {
	t.Parallel()
	ws := workspace(t)
	pipes := filepath.Join(ws, "pipes")
	if err := os.Mkdir(pipes, 0o711); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(pipes, 0o711); err != nil {
		t.Fatal(err)
	}
	_, err := New(Config{ReadWrite: []string{ws}, Pipes: pipes})
	if err == nil || !strings.Contains(err.Error(), "inside the read-write directory") {
		t.Errorf("New = %v, want the pipes directory refused", err)
	}
}
