package jail

import "sync"

var probeOnce = sync.OnceValue(probeHost)

// Probe reports which protections this host can enforce and why the
// missing ones are missing. It probes the kernel once per process; later
// calls return a copy of the cached answer.
func Probe() []Status {
	return append([]Status(nil), probeOnce()...)
}

func probeHost() []Status {
	return []Status{
		{ProcessGroup, true, "own process group, SIGKILL to the group on timeout"},
		{EnvScrub, true, "only allowlisted host variables"},
	}
}
