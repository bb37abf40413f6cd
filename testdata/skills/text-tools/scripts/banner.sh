#!/bin/sh
# banner.sh ARG... - print each argument on its own line, exactly as received.
# Arguments are only ever expanded inside double quotes and printed with
# printf '%s', so nothing in them is interpreted.
set -eu

if [ "$#" -eq 0 ]; then
	echo "usage: banner.sh ARG..." >&2
	echo "prints each argument on its own line, exactly as received" >&2
	exit 2
fi

for arg in "$@"; do
	printf '%s\n' "$arg"
done
