#!/usr/bin/env bash
# link-boards.sh — link every generated model for the Raspberry Pi Pico
# (RP2040) and Pico 2 (RP2350) with the pico-sdk and say which fit.
#
#   firmware/pico/link-boards.sh GEN_DIR BUILD_DIR [BOARD...]
#
# GEN_DIR holds `ripsim codegen` output, GEN_DIR/<model>/<plan>/model.json
# and the files beside it.  BOARD is pico and/or pico2 (default both).  One
# CMake build tree per board, BUILD_DIR/<board>, with one executable per
# model and plan (CMakeLists.txt beside this script); ninja builds them all,
# going on past failed links.  Prints one JSON line per model, plan and
# board on stdout, sorted:
#   {"model":M,"plan":P,"target":B,"arena_bytes":N,"ram_bytes":R,"fits":F,
#    "ran":null,"checksum":null,"instructions":null,"op_instructions":null}
# ram_bytes: all SRAM the link places (the RAM region with the SDK's 2 KB
# minimum heap, plus SCRATCH_X/SCRATCH_Y with the 2 KB core-0 stack), read
# from the linker's --print-memory-usage, also when the link overflows;
# fits: the link succeeded (false: "region `RAM' overflowed").  No emulator
# runs these images, so ran, checksum and instructions are null.  First,
# the tools of the links: {"tool":"pico-sdk","version":V} (V from the SDK's
# pico_sdk_version.cmake, "none" without an SDK) and, with an SDK,
# {"tool":"newlib","version":V} (the Debian package the SDK links).
#
# The SDK: $PICO_SDK_PATH, else a pico-sdk checkout beside the project
# (shared/vendor/pico-sdk in the parent folder, as CI has); PICO_SDK_PATH set to the empty
# string means none.  Without one, every line says
# "fits":null,"ram_bytes":null and a note goes to stderr; exit 0.
# Exit 1 when a build fails for any other reason than RAM (its log on
# stderr), 64 on a bad command line.  Timing per board goes to stderr.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
[ "$#" -ge 2 ] || { echo "usage: $0 GEN_DIR BUILD_DIR [pico|pico2]..." >&2; exit 64; }
gen=$(cd "$1" && pwd)
out=$2
shift 2
boards=("$@")
[ "${#boards[@]}" -gt 0 ] || boards=(pico pico2)
for b in "${boards[@]}"; do
    case $b in pico|pico2) ;; *) echo "$0: unknown board '$b' (pico or pico2)" >&2; exit 64 ;; esac
done

# PICO_SDK_PATH set but empty: no SDK, on purpose (tests of that path).
sdk=${PICO_SDK_PATH:-}
if [ -z "${PICO_SDK_PATH+set}" ] && [ -d "$here/../../../shared/vendor/pico-sdk" ]; then
    sdk=$(cd "$here/../../../shared/vendor/pico-sdk" && pwd)
fi
if [ -n "$sdk" ] && [ ! -f "$sdk/external/pico_sdk_import.cmake" ]; then
    echo "$0: PICO_SDK_PATH=$sdk is not a pico-sdk (no external/pico_sdk_import.cmake)" >&2
    exit 1
fi
[ -n "$sdk" ] || echo "$0: no pico-sdk found (set PICO_SDK_PATH): board entries say fits null" >&2

# json_field FILE KEY: the value of KEY in the flat JSON object of FILE.
json_field() {
    sed -n 's/.*"'"$2"'": *"\{0,1\}\([^",}]*\)"\{0,1\}[,}].*/\1/p' "$1" | head -n 1
}

# mem_bytes LOG: bytes used in RAM + SCRATCH_X + SCRATCH_Y (ld prints each
# in B, KB, MB or GB, a unit it picks only when the size is a multiple).
mem_bytes() {
    awk '$1 ~ /^(RAM|SCRATCH_X|SCRATCH_Y):$/ {
            m = $3 == "B" ? 1 : $3 == "KB" ? 1024 : $3 == "MB" ? 1048576 : $3 == "GB" ? 1073741824 : -1
            if (m < 0) bad = 1
            sum += $2 * m; n++ }
         END { if (n != 3 || bad) exit 1; printf "%d\n", sum }' "$1"
}

mkdir -p "$out"
lines=$(mktemp)
trap 'rm -f "$lines"' EXIT
for b in "${boards[@]}"; do
    dir=$out/$b
    if [ -n "$sdk" ]; then
        t0=$(date +%s)
        if [ ! -f "$dir/build.ninja" ]; then
            cmake -S "$here" -B "$dir" -G Ninja -DPICO_SDK_PATH="$sdk" -DPICO_BOARD="$b" \
                -DPICO_NO_PICOTOOL=1 -DRK_GEN_DIR="$gen" >"$out/$b.configure.log" 2>&1 ||
                { cat "$out/$b.configure.log" >&2; echo "$0: $b: cmake configure failed" >&2; exit 1; }
        fi
        # -k 0: a model too large for the board fails its link; go on with the rest.
        ninja -C "$dir" -k 0 >"$out/$b.build.log" 2>&1 || true
        models=("$gen"/*/*/model.json)
        echo "link-boards: $b: ${#models[@]} executables in $(( $(date +%s) - t0 )) s" >&2
    fi
    for mj in "$gen"/*/*/model.json; do
        d=$(dirname "$mj")
        t="$(basename "$(dirname "$d")")-$(basename "$d")"
        model=$(json_field "$mj" model)
        plan=$(json_field "$mj" plan)
        arena=$(json_field "$mj" arena_bytes)
        ram=null fits=null
        if [ -n "$sdk" ]; then
            log=$dir/$t.elf.link.log
            if [ -f "$dir/$t.elf" ] && [ -f "$log" ]; then
                fits=true
            elif [ -f "$log" ] && grep -q "region \`RAM' overflowed" "$log"; then
                fits=false
            else
                tail -n 40 "$out/$b.build.log" >&2
                echo "$0: $b: $t failed to build, not for lack of RAM (log: $out/$b.build.log)" >&2
                exit 1
            fi
            ram=$(mem_bytes "$log") || { echo "$0: $log: no memory usage table" >&2; exit 1; }
        fi
        printf '{"model":"%s","plan":"%s","target":"%s","arena_bytes":%s,"ram_bytes":%s,"fits":%s,' \
            "$model" "$plan" "$b" "$arena" "$ram" "$fits"
        printf '"ran":null,"checksum":null,"instructions":null,"op_instructions":null}\n'
    done >>"$lines"
done
# sdk_version: MAJOR.MINOR.REVISION[-PRE] of the SDK's pico_sdk_version.cmake.
sdk_version() {
    awk '/^[ \t]*set\(PICO_SDK_VERSION_(MAJOR|MINOR|REVISION|PRE_RELEASE_ID) / {
            k = $1; sub(/.*VERSION_/, "", k); v = $2; sub(/\).*/, "", v); f[k] = v }
         END { if (f["MAJOR"] == "" || f["MINOR"] == "" || f["REVISION"] == "") exit 1
               printf "%s.%s.%s%s\n", f["MAJOR"], f["MINOR"], f["REVISION"], f["PRE_RELEASE_ID"] == "" ? "" : "-" f["PRE_RELEASE_ID"] }' \
        "$sdk/pico_sdk_version.cmake"
}
if [ -n "$sdk" ]; then
    v=$(sdk_version) || { echo "$0: $sdk/pico_sdk_version.cmake: no version" >&2; exit 1; }
    printf '{"tool":"pico-sdk","version":"%s"}\n' "$v"
    v=$(dpkg-query -W -f '${Version}' libnewlib-arm-none-eabi 2>/dev/null) || v="not a Debian package"
    printf '{"tool":"newlib","version":"%s"}\n' "$v"
else
    printf '{"tool":"pico-sdk","version":"none"}\n'
fi
LC_ALL=C sort "$lines"
