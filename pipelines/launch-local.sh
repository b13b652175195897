#!/bin/sh
# Run one stage of a sweep point on this machine: launch-local.sh TARGET
# COMMAND runs COMMAND (a shell pipeline writing to standard output) into
# TARGET.tmp and renames it to TARGET only when the command succeeded, so
# a failed or interrupted point leaves nothing make would take as done.
target=$1
cmd=$2
tmp="$target.tmp.$$"
trap 'rm -f "$tmp"' EXIT INT TERM
bash -o pipefail -c "$cmd" > "$tmp" || exit 1
mv "$tmp" "$target"
