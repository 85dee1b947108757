#!/usr/bin/env bash
# build.sh — the README's two setup commands, on a fresh Debian 12 machine.
#
#   ./build.sh main              install what is missing, build, run the main job
#   ./build.sh test [--sanitize] install what is missing, build, run every test
#                                (--sanitize: in an AddressSanitizer + UBSan build)
#
# Packages come from Debian (apt-get, as root or through sudo).  Builds go to
# build/ (and build-asan/); nothing outside this checkout is written.
set -euo pipefail
cd "$(dirname "$0")"

PKGS=(meson ninja-build pkg-config gcc libc6-dev libcriterion-dev libsqlite3-dev
      libgsl-dev sqlite3 coinor-libcbc-dev librsvg2-bin)

install_deps() {
    local missing=()
    for p in "${PKGS[@]}"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
    done
    [ ${#missing[@]} -eq 0 ] && return 0
    local sudo=""
    [ "$(id -u)" -ne 0 ] && sudo=sudo
    echo "build.sh: installing ${missing[*]}" >&2
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

# setup DIR [meson options...]: configure once, then (re)build.
setup() {
    local dir=$1; shift
    if [ ! -f "$dir/build.ninja" ]; then
        meson setup "$dir" "$@" >/dev/null
    fi
    meson compile -C "$dir" >/dev/null
}

# Run the test suites in DIR; end with one "N passed, M failed" line
# counting Criterion tests (meson counts suites, Criterion counts tests),
# naming the suites meson skipped (exit 77, e.g. cmsis_peer without a
# CMSIS-NN tree) with the reason each printed.
run_tests() {
    local dir=$1 rc=0
    meson test -C "$dir" --print-errorlogs --num-processes 2 || rc=$?
    awk -F'|' '/Synthesis: Tested:/ {
            for (i = 1; i <= NF; i++) {
                if ($i ~ /Passing:/) { gsub(/[^0-9]/, "", $i); p += $i }
                if ($i ~ /Failing:/) { gsub(/[^0-9]/, "", $i); f += $i }
                if ($i ~ /Crashing:/) { gsub(/[^0-9]/, "", $i); f += $i }
            } }
         /^[a-z_]+: skipped: / { why = why "\n  " $0 }
         END { printf "criterion: %d passed, %d failed\n", p, f
               if (why != "") printf "skipped suites:%s\n", why }' "$dir/meson-logs/testlog.txt"
    return $rc
}

cmd=${1:-}
case "$cmd" in
main)
    install_deps
    setup build
    # The default sweep: 10,000 seeded layers into results/sweep.db, then its
    # summary.  Rerun after an interruption and it resumes where it stopped.
    echo "+ build/ripsim sweep   # --n 10000 --seed 20261129 --db results/sweep.db" >&2
    build/ripsim sweep
    ;;
test)
    install_deps
    if [ "${2:-}" = "--sanitize" ]; then
        setup build-asan -Db_sanitize=address,undefined -Db_lundef=false \
              -Dc_args=-fno-sanitize-recover=all -Dbuildtype=debugoptimized
        ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:allocator_may_return_null=1 \
        LSAN_OPTIONS=suppressions="$PWD/tests/lsan.supp":print_suppressions=0 \
        UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
            run_tests build-asan
    else
        setup build
        run_tests build
    fi
    ;;
*)
    echo "usage: ./build.sh main | ./build.sh test [--sanitize]" >&2
    exit 64
    ;;
esac
