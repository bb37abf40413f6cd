#!/bin/sh
# slugify.sh TEXT... - print the arguments, joined by spaces, as a URL slug:
# lowercase a-z and 0-9, other runs replaced by one hyphen, none at the ends.
set -eu

if [ "$#" -eq 0 ]; then
	echo "usage: slugify.sh TEXT..." >&2
	exit 2
fi

slug=$(printf '%s\n' "$*" |
	LC_ALL=C tr 'A-Z' 'a-z' |
	LC_ALL=C sed -e 's/[^a-z0-9][^a-z0-9]*/-/g' -e 's/^-//' -e 's/-$//')
if [ -z "$slug" ]; then
	echo "slugify.sh: no letters or digits in the text" >&2
	exit 1
fi
printf '%s\n' "$slug"
