package jail_test

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/skillsh/skillsh/jail"
)

func Example() {
	ws, _ := os.MkdirTemp("", "workspace")
	defer os.RemoveAll(ws)
	_ = os.Chmod(ws, 0o755) // reachable for the unprivileged uid

	j, err := jail.New(jail.Config{
		ReadWrite:      []string{ws},
		ChownWorkspace: true,
		Limits:         jail.Profile{Timeout: 10 * time.Second},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	env, _ := jail.Environment(os.Environ(), ws)
	out := jail.NewCapture(64 << 10)
	res, err := j.Run(context.Background(), &jail.Command{
		Path:   "/bin/sh",
		Args:   []string{"sh", "-c", "echo hello from the jail; exit 3"},
		Env:    env,
		Stdout: out,
	})
	if err != nil {
		fmt.Println("setup failed:", err)
		return
	}
	fmt.Print(out.String())
	fmt.Println("exit status", res.ExitCode)
	// Output:
	// hello from the jail
	// exit status 3
}
