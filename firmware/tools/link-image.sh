#!/bin/sh
# link-image.sh — link one QEMU image and keep the verdict, so that an
# image too large for its board is a result, not a build error.
#
#   link-image.sh ELF RESULT -- COMPILER ARGS...   (ARGS include -o ELF)
#
# Runs the link command.  RESULT receives the linker's output (with
# -Wl,--print-memory-usage: its memory table) after a first line:
#   fits                      the link succeeded: ELF is the image;
#   overflow                  the only errors were region overflows
#                             ("region `ram' overflowed by N bytes"): ELF is
#                             left empty, and the script exits 0; a second
#                             line "ram_region N" gives the RAM region's size
#                             (from -Wl,--defsym=__ram_size=N);
# any other link error is printed on stderr and returned (a real build
# error).  Exit status: 0, or the failed link's status.
set -u
if [ "$#" -lt 4 ] || [ "$3" != "--" ]; then
    echo "usage: link-image.sh ELF RESULT -- COMMAND..." >&2
    exit 64
fi
elf=$1 result=$2
shift 3
log=$(mktemp) || exit 71
trap 'rm -f "$log"' EXIT
rm -f "$elf"
if "$@" >"$log" 2>&1; then
    { echo fits; cat "$log"; } >"$result.tmp" && mv "$result.tmp" "$result"
    exit 0
fi
rc=$?
# Region overflows only: the other error lines ld prints with them are the
# "collect2: error: ld returned 1 exit status" summary and the memory table.
# The RAM region's size, for the verdict (from --defsym=__ram_size=N).
region=
for a in "$@"; do
    case $a in *--defsym=__ram_size=*) region=${a##*=} ;; esac
done
if grep -q "region .* overflowed by" "$log" &&
   ! grep -v -e "region .* overflowed by" -e "ld returned 1 exit status" \
           -e "^Memory region" -e "^ *[a-z_]*: *[0-9.]* [KMG]*B" -e "will not fit in region" "$log" |
     grep -q -i "error"; then
    { echo overflow; [ -n "$region" ] && echo "ram_region $region"; cat "$log"; } >"$result.tmp" &&
        mv "$result.tmp" "$result"
    : >"$elf"
    exit 0
fi
cat "$log" >&2
exit "$rc"
