// Package skills finds Agent Skills on disk, checks them against the Agent
// Skills specification (https://agentskills.io/specification) and presents
// them to a model.
//
// A skill is a folder holding a SKILL.md: YAML frontmatter between two "---"
// lines, then Markdown instructions, with optional scripts/, references/ and
// assets/ beside it. The frontmatter has a required name (1 to 64 characters
// of a-z, 0-9 and hyphens, equal to the folder's name) and description (1 to
// 1024 characters), and optionally license, compatibility (at most 500
// characters), metadata (strings to strings) and allowed-tools (space-separated
// tool patterns). No other key is allowed.
//
// The package reads skills in two ways:
//
//   - [Discover] loads skills for use, leniently as agent clients do: a skill
//     is skipped only when it has no usable name and description, and every
//     other problem is a warning.
//   - [Validate] checks skills strictly and reports every problem of every
//     skill, each with its file, field and line.
//
// [Parse] is the pure function both use for one SKILL.md. [Prompt] turns the
// loaded skills into what the model is told: [Instructions] for using them
// through the shell tool, then the <available_skills> catalog in the format
// of the specification's reference implementation.
//
// Discovery looks at most [MaxDepth] directories below each root, skips .git
// and node_modules, and does not look inside a skill's folder. It follows
// symlinked directories, after the real ones, but searches no directory twice
// (directories are identified by device and inode), so symlink loops end and
// a skill linked from two places is loaded once.
//
// Every function in the package is safe for concurrent use: none keeps state
// between calls.
package skills
