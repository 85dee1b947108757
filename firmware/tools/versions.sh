#!/bin/sh
# versions.sh — one JSON line per tool that builds and runs the QEMU images,
# {"tool": NAME, "version": TEXT}, for results/deployment.json and
# results/real-models.json: the instruction counts there are those of these
# versions (firmware/pico/link-boards.sh adds the pico-sdk's line).
#
#   firmware/tools/versions.sh
#
# TEXT is the first line the tool prints of itself (gcc, QEMU) or the Debian
# package's version (picolibc has no command), "not installed" when absent;
# quotes and backslashes are dropped and TEXT is cut to 110 bytes, as the
# deployment reader accepts.  Exit status 0; 64 on any argument.
set -u
[ "$#" -eq 0 ] || { echo "versions.sh: takes no arguments" >&2; exit 64; }

# line NAME TEXT: the JSON line, TEXT made a plain string.
line() {
    v=$(printf '%s' "$2" | tr -d '\042\134' | tr -c ' -~' ' ' | cut -c 1-110)
    [ -n "$v" ] || v="not installed"
    printf '{"tool": "%s", "version": "%s"}\n' "$1" "$v"
}

line arm-none-eabi-gcc "$(arm-none-eabi-gcc --version 2>/dev/null | head -n 1)"
line picolibc "$(dpkg-query -W -f '${Version}' picolibc-arm-none-eabi 2>/dev/null)"
line qemu-system-arm "$(qemu-system-arm --version 2>/dev/null | head -n 1)"
