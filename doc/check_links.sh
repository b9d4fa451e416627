#!/usr/bin/env bash
# doc/check_links.sh - `make doc-links` (part of `make lint`): every relative
# link of the given Markdown files ([text](target), ![alt](target)) must name
# a file or directory that exists, relative to the file that links, and a
# #fragment must be a heading of the target (GitHub's anchors: lower case,
# punctuation dropped, blanks as '-', a repeated heading gets -1, -2, ...).
# Links to other sites (scheme:) are not followed. Fenced code blocks and
# `code spans` are skipped: they show Markdown, they do not link.
#
#   doc/check_links.sh FILE.md...      exit 1 and one line per broken link
set -euo pipefail

# The anchors of a Markdown file, one a line.
anchors() {
	awk '
		/^[ \t]*(```|~~~)/ { fence = !fence; next }
		fence { next }
		/^#+[ \t]/ {
			h = $0
			sub(/^#+[ \t]+/, "", h); sub(/[ \t]+#*[ \t]*$/, "", h)
			h = tolower(h)
			gsub(/[^a-z0-9 _-]/, "", h)
			gsub(/ /, "-", h)
			if (h in seen) { seen[h]++; h = h "-" seen[h] } else seen[h] = 0
			print h
		}' "$1"
}

# The relative link targets of a Markdown file: "LINE TARGET", one a line.
links() {
	awk '
		/^[ \t]*(```|~~~)/ { fence = !fence; next }
		fence { next }
		{
			s = $0
			gsub(/`[^`]*`/, "", s)
			while (match(s, /\]\([^) \t]+([ \t]+"[^"]*")?\)/)) {
				t = substr(s, RSTART + 2, RLENGTH - 3)
				sub(/[ \t].*/, "", t)
				s = substr(s, RSTART + RLENGTH)
				if (t ~ /^[a-zA-Z][a-zA-Z0-9+.-]*:/) continue
				print NR, t
			}
		}' "$1"
}

[ $# -gt 0 ] || { echo "usage: $0 FILE.md..." >&2; exit 2; }
bad=0 n=0
for md in "$@"; do
	[ -f "$md" ] || { echo "doc-links: $md: no such file" >&2; bad=1; continue; }
	dir=$(dirname "$md")
	while read -r line target; do
		n=$((n + 1))
		path=${target%%#*}
		frag=
		[ "$path" = "$target" ] || frag=${target#*#}
		if [ -z "$path" ]; then
			file=$md
		else
			file=$dir/$path
			if [ ! -e "$file" ]; then
				echo "doc-links: $md:$line: $target: $file does not exist" >&2
				bad=1
				continue
			fi
		fi
		if [ -n "$frag" ]; then
			if [ ! -f "$file" ] || ! anchors "$file" | grep -qxF -- "$frag"; then
				echo "doc-links: $md:$line: $target: no heading with the anchor #$frag in $file" >&2
				bad=1
			fi
		fi
	done < <(links "$md")
done
if [ $bad -ne 0 ]; then
	echo "doc-links: broken links (above): fix the link or the file it names" >&2
	exit 1
fi
echo "doc-links: $n relative links in $# files resolve"
