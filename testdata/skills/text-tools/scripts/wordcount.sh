#!/bin/sh
# wordcount.sh FILE... - print "lines words bytes name" for each file, and a
# total when there is more than one. Unreadable files are reported on stderr
# and make the exit status 1; the others are still counted.
set -u

if [ "$#" -eq 0 ]; then
	echo "usage: wordcount.sh FILE..." >&2
	exit 2
fi

status=0
files=0
total_lines=0
total_words=0
total_bytes=0
for f in "$@"; do
	if [ -d "$f" ]; then
		printf 'wordcount.sh: %s: is a directory\n' "$f" >&2
		status=1
		continue
	fi
	if ! [ -r "$f" ] || ! [ -f "$f" ]; then
		printf 'wordcount.sh: %s: cannot read file\n' "$f" >&2
		status=1
		continue
	fi
	# wc pads its output differently on different systems; $(( )) strips it.
	lines=$(($(wc -l <"$f")))
	words=$(($(wc -w <"$f")))
	bytes=$(($(wc -c <"$f")))
	printf '%d %d %d %s\n' "$lines" "$words" "$bytes" "$f"
	files=$((files + 1))
	total_lines=$((total_lines + lines))
	total_words=$((total_words + words))
	total_bytes=$((total_bytes + bytes))
done
if [ "$files" -gt 1 ]; then
	printf '%d %d %d total\n' "$total_lines" "$total_words" "$total_bytes"
fi
exit "$status"
