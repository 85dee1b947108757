#!/usr/bin/env bash
# tests/build-matrix.sh — build ripsim with other compilers and buildtypes
# than the default (gcc, debugoptimized) and run its quick suites there.
#
#   tests/build-matrix.sh [--all] [CC:BUILDTYPE...]
#
# Default (what CI runs): gcc:release, clang:debugoptimized, clang:release.
# --all: gcc and clang, each with every meson buildtype (plain, debug,
# debugoptimized, release, minsize).  Each build goes to
# build-matrix/CC-BUILDTYPE/ and is built from clean, so that every
# compiler message is seen: any "warning:" line fails the build, including
# one the project's -Werror does not cover (a vendored peer's sources).
# Then the quick suites run in it (QUICK below): an optimizer that turns
# undefined behaviour into other numbers fails them.  One line per build;
# exit 1 if any failed, 64 for a bad argument.
set -euo pipefail
cd "$(dirname "$0")/.."

QUICK=(layer formulas sim crosscheck paper pcg32 args csv kernels execute table2)
BUILDTYPES=(plain debug debugoptimized release minsize)

builds=()
while [ $# -gt 0 ]; do
    case "$1" in
    --all) for cc in gcc clang; do for bt in "${BUILDTYPES[@]}"; do builds+=("$cc:$bt"); done; done; shift ;;
    -h|--help) sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *:*) builds+=("$1"); shift ;;
    *) echo "build-matrix.sh: expected --all or CC:BUILDTYPE, got '$1'" >&2; exit 64 ;;
    esac
done
[ ${#builds[@]} -eq 0 ] && builds=(gcc:release clang:debugoptimized clang:release)

if ! command -v clang >/dev/null; then
    sudo=""; [ "$(id -u)" -ne 0 ] && sudo=sudo
    echo "build-matrix.sh: installing clang" >&2
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends clang >/dev/null
fi

failed=0
for b in "${builds[@]}"; do
    cc=${b%%:*} bt=${b#*:}
    case " ${BUILDTYPES[*]} " in *" $bt "*) ;; *) echo "build-matrix.sh: unknown buildtype '$bt'" >&2; exit 64 ;; esac
    command -v "$cc" >/dev/null || { echo "build-matrix.sh: no compiler '$cc'" >&2; exit 64; }
    dir="build-matrix/$cc-$bt"
    log=$(mktemp)
    t0=$(date +%s)
    status=ok
    if [ ! -f "$dir/build.ninja" ]; then
        CC=$cc meson setup "$dir" --buildtype="$bt" >"$log" 2>&1 || status="configure failed"
    fi
    if [ "$status" = ok ]; then
        ninja -C "$dir" -t clean >/dev/null
        ninja -C "$dir" >"$log" 2>&1 || status="build failed"
    fi
    if [ "$status" = ok ] && grep -q 'warning:' "$log"; then
        status="warnings"
    fi
    if [ "$status" = ok ]; then
        meson test -C "$dir" --num-processes 2 "${QUICK[@]}" >"$log" 2>&1 || status="quick suites failed"
    fi
    if [ "$status" = ok ]; then
        echo "build-matrix: $cc $bt: warning-free, ${#QUICK[@]} quick suites pass ($(( $(date +%s) - t0 )) s)"
    else
        echo "build-matrix: $cc $bt: $status" >&2
        grep -E 'warning:|error:|FAIL' "$log" | sort -u | head -n 20 >&2 || tail -n 20 "$log" >&2
        failed=1
    fi
    rm -f "$log"
done
exit $failed
