package jail

import (
	"context"
	"os/exec"
	"syscall"
	"testing"
)

// BenchmarkRunTrue runs /bin/true through the jail with every protection
// this host offers.
func BenchmarkRunTrue(b *testing.B) {
	ws, err := mkTestDir("bench")
	if err != nil {
		b.Fatal(err)
	}
	j, err := New(Config{ReadWrite: []string{ws}, ChownWorkspace: true})
	if err != nil {
		b.Fatal(err)
	}
	env, _ := Environment(nil, ws)
	ctx := context.Background()
	for b.Loop() {
		res, err := j.Run(ctx, &Command{Path: "/bin/true", Env: env})
		if err != nil || res.ExitCode != 0 {
			b.Fatal(res, err)
		}
	}
}

// BenchmarkDirectTrue runs /bin/true with os/exec in its own process group.
func BenchmarkDirectTrue(b *testing.B) {
	for b.Loop() {
		c := exec.Command("/bin/true")
		c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		if err := c.Run(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkBashTrue runs bash -c true the same way.
func BenchmarkBashTrue(b *testing.B) {
	for b.Loop() {
		c := exec.Command("/bin/bash", "-c", "true")
		c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		if err := c.Run(); err != nil {
			b.Fatal(err)
		}
	}
}
