#!/bin/sh
# link-log.sh — CMake linker launcher for firmware/pico: runs the link
# command given as arguments and keeps its output (the linker's
# --print-memory-usage table, or why the link failed) in OUTPUT.link.log,
# OUTPUT being the command's -o argument.  Exits with the link's status.
out=
prev=
for a in "$@"; do
    [ "$prev" = "-o" ] && out=$a
    prev=$a
done
[ -n "$out" ] || exec "$@"
"$@" >"$out.link.log" 2>&1
rc=$?
[ "$rc" -eq 0 ] || cat "$out.link.log" >&2
exit "$rc"
