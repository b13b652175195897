#!/bin/sh
# Run one stage of a sweep point on this machine: launch-local.sh TARGET
# COMMAND [PREREQUISITE...] runs COMMAND (a shell pipeline writing to
# standard output) into a temporary file beside TARGET and renames it to
# TARGET only when the command succeeded, so a failed or interrupted point
# leaves nothing make would take as done. The prerequisites (which other
# launchers use) are ignored. The temporary name carries the host and the
# process id, so two machines making the same file never share one.
target=$1
cmd=$2
tmp="$target.tmp.$(uname -n).$$"
trap 'rm -f "$tmp"' EXIT
trap 'rm -f "$tmp"; exit 1' INT TERM HUP
bash -o pipefail -c "$cmd" > "$tmp" || exit 1
mv "$tmp" "$target"
