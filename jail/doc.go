// Package jail starts external programs confined: each in its own process
// group with resource limits, a scrubbed environment and a wall-clock
// timeout that kills the whole tree, with output captured in bounded
// memory. Probe reports which kernel protections this host can enforce;
// Config.Require makes New refuse to work without them.
package jail
