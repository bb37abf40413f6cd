package shelltool_test

import (
	"context"
	"os/exec"
	"testing"
)

// The benchmarks below compare one whole tool call (parse, static
// decision, interpreter, exec-phase decision, jail) with plain bash -c of
// the same command, in one run:
//
//	go test -run '^$' -bench . -count 5 ./shelltool

func BenchmarkToolCallBuiltin(b *testing.B)  { benchTool(b, "echo hello") }
func BenchmarkToolCallProgram(b *testing.B)  { benchTool(b, "ls . > /dev/null") }
func BenchmarkToolCallPipeline(b *testing.B) { benchTool(b, "printf 'a\\nb\\n' | wc -l") }

func BenchmarkBashBuiltin(b *testing.B)  { benchBash(b, "echo hello") }
func BenchmarkBashProgram(b *testing.B)  { benchBash(b, "ls . > /dev/null") }
func BenchmarkBashPipeline(b *testing.B) { benchBash(b, "printf 'a\\nb\\n' | wc -l") }

func benchTool(b *testing.B, command string) {
	tool := newTool(b, false)
	ctx := context.Background()
	for b.Loop() {
		if res := tool.Run(ctx, command); res.Decision != "allow" {
			b.Fatalf("%s: %s", command, res.Text())
		}
	}
}

func benchBash(b *testing.B, command string) {
	for b.Loop() {
		if err := exec.Command("bash", "-c", command).Run(); err != nil {
			b.Fatal(err)
		}
	}
}
