#!/usr/bin/env bash
# build.sh — the README's two setup commands, on a fresh Debian 12 machine.
#
#   ./build.sh main              install what is missing, build, run the main job
#   ./build.sh test [--sanitize] install what is missing, build, run every test
#                                (--sanitize: in an AddressSanitizer + UBSan build)
#   ./build.sh firmware          install the arm toolchain and QEMU, build, generate
#                                the eleven MCUNet models and the real TFLite
#                                models, run them in QEMU, link them for the Pico
#                                boards, rewrite results/deployment.json,
#                                results/table3.md, results/real-models.json and
#                                results/real-models.md (with the tool versions)
#   ./build.sh firmware --check  the same into build/firmware/check, compared with
#                                results/ (QEMU records always, board records
#                                with a pico-sdk); results/ is not written
#
# Packages come from Debian (apt-get, as root or through sudo).  Builds go to
# build/ (and build-asan/); nothing outside this checkout is written.
set -euo pipefail
cd "$(dirname "$0")"

PKGS=(meson ninja-build pkg-config gcc libc6-dev libcriterion-dev libsqlite3-dev
      libgsl-dev sqlite3 coinor-libcbc-dev librsvg2-bin)

# The slurm suite's single-node cluster, the scripts suite's shellcheck
# (the standard linter for shell scripts), Debian's flatc, the outside
# reader the tflite suite compares ripsim's TFLite reader with, and g++ for
# the tflm_peer suite's TensorFlow Lite Micro build (./build.sh test only;
# without them those tests are skipped).
TEST_PKGS=(slurm-wlm munge shellcheck flatbuffers-compiler g++)

# The firmware part (./build.sh firmware, and the firmware tests of ./build.sh test);
# libstdc++-arm-none-eabi-newlib: the C++ headers of the tflm_m33 suite's
# Cortex-M33 TFLite Micro build (tests/tflm/build-m33.sh).
FW_PKGS=(gcc-arm-none-eabi picolibc-arm-none-eabi libnewlib-arm-none-eabi libstdc++-arm-none-eabi-newlib
         qemu-system-arm cmake)

# install_deps [PKG...]: apt-get what is missing of PKGS (or of the given list).
install_deps() {
    local missing=() want=("${PKGS[@]}")
    [ "$#" -gt 0 ] && want=("$@")
    for p in "${want[@]}"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
    done
    [ "${#missing[@]}" -eq 0 ] && return 0
    local sudo=()
    [ "$(id -u)" -ne 0 ] && sudo=(sudo)
    echo "build.sh: installing ${missing[*]}" >&2
    "${sudo[@]}" apt-get update -qq
    DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

# setup DIR [meson options...]: configure once, then (re)build.
setup() {
    local dir=$1; shift
    if [ ! -f "$dir/build.ninja" ]; then
        meson setup "$dir" "$@" >/dev/null
    fi
    # quiet when it builds; when it fails, the compiler's messages (ninja
    # prints them on stdout) and where the whole log is
    if ! meson compile -C "$dir" >"$dir/compile.log" 2>&1; then
        grep -E -A8 '^FAILED|error:' "$dir/compile.log" | head -n 60 >&2
        echo "build.sh: the build in $dir failed (the whole log: $dir/compile.log)" >&2
        return 1
    fi
}

# Run the test suites in DIR; end with one "N passed, M failed, K skipped"
# line counting Criterion tests (meson counts suites, Criterion counts
# tests) and skips, then the skips one per line: every suite that exited 77
# and every test that called rip_skip, each with the reason it printed
# ("SUITE: skipped: WHY", "SUITE::TEST: skipped: WHY": tests/skip.h).
run_tests() {
    local dir=$1 rc=0
    meson test -C "$dir" --print-errorlogs --num-processes 2 || rc=$?
    awk -F'|' '/Synthesis: Tested:/ {
            for (i = 1; i <= NF; i++) {
                if ($i ~ /Passing:/) { gsub(/[^0-9]/, "", $i); p += $i }
                if ($i ~ /Failing:/) { gsub(/[^0-9]/, "", $i); f += $i }
                if ($i ~ /Crashing:/) { gsub(/[^0-9]/, "", $i); f += $i }
            } }
         /^[a-z_0-9]+(::[A-Za-z_0-9]+)?: skipped: / && !seen[$0]++ { s++; why = why "\n  " $0 }
         END { printf "criterion: %d passed, %d failed, %d skipped\n", p, f, s
               if (why != "") printf "skips:%s\n", why }' "$dir/meson-logs/testlog.txt"
    return "$rc"
}

# firmware_deployment: ./build.sh firmware.  Every model x plan generated
# into build/firmware/gen/<model>/<plan>/ (ripsim codegen), the QEMU images
# built, run and counted (firmware/tools/build-images.sh, one JSON line per
# image), the Pico links (firmware/pico/link-boards.sh, one JSON line per
# link; fits null without a pico-sdk), then results/deployment.json
# (ripsim tables deployment: checked, sorted, canonical) and results/table3.md,
# or, given OUT, OUT/deployment.json and OUT/table3.md (the test compares them
# with the committed files).  Then the same for the real TFLite models
# (firmware_real_models).
firmware_deployment() {
    local out=${1:-results}
    local fw=build/firmware gen=build/firmware/gen lines t0
    t0=$(date +%s)
    mkdir -p "$gen"
    lines=$(mktemp)
    trap 'rm -f "$lines"; trap - RETURN' RETURN
    local csv stem plan
    for csv in firmware/models/mcunet/*.csv; do
        stem=$(basename "$csv" .csv)
        case $stem in table3_*) continue ;; esac
        for plan in base rip; do
            mkdir -p "$gen/$stem"
            build/ripsim codegen "$csv" --plan "$plan" --out "$gen/$stem/$plan" >/dev/null
        done
    done
    local made=("$gen"/*/*/model.json)
    echo "build.sh: generated ${#made[@]} models in $(( $(date +%s) - t0 )) s" >&2
    local rc=0
    images_and_links "$gen" "$fw/" "$lines" || rc=$?
    [ "$rc" -le 1 ] || return 1
    mkdir -p "$out"
    build/ripsim tables deployment --lines "$lines" --out "$out/deployment.json"
    build/ripsim tables table3 --deployment "$out/deployment.json" --out "$out/table3.md"
    echo "build.sh: $out/deployment.json and $out/table3.md in $(( $(date +%s) - t0 )) s" >&2
    local st=0
    firmware_real_models "$out" || st=$?
    [ "$st" -eq 0 ] || [ "$st" -eq 77 ] || rc=$st
    [ "$rc" -eq 0 ] || echo "build.sh: an image that fits did not run to completion (see above)" >&2
    return "$rc"
}

# images_and_links GEN PREFIX LINES: the QEMU images of the models in GEN
# (build folders PREFIX{qemu-m0,qemu-m33}), run and counted, and their Pico
# links (PREFIXpico), one JSON line each appended to LINES, the versions
# of the tools (firmware/tools/versions.sh; link-boards.sh adds the SDK's),
# then GEN's model.json objects (they give each record its scratch bytes; ripsim
# checks every line, sorts and writes the canonical file).  Status 0; 1
# when an image that fits did not run to completion; 2 a build failed.
images_and_links() {
    local gen=$1 prefix=$2 lines=$3 target rc=0
    firmware/tools/versions.sh >>"$lines" || return 2
    for target in qemu-m0 qemu-m33; do
        firmware/tools/build-images.sh --target "$target" --gen-dir "$gen" --build "$prefix$target" >>"$lines" || rc=$?
        [ "$rc" -le 1 ] || { echo "build.sh: $target: the QEMU build of $gen failed" >&2; return 2; }
    done
    # (called where errexit is off: every failure is checked here)
    firmware/pico/link-boards.sh "$gen" "${prefix}pico" >>"$lines" ||
        { echo "build.sh: the Pico links of $gen failed" >&2; return 2; }
    cat "$gen"/*/*/model.json >>"$lines" || return 2
    return "$rc"
}

# firmware_real_models OUT: the cases of tests/tflm/cases.tsv (person_detect
# with person.bmp and no_person.bmp, the MLPerf Tiny four, TinyEngine's
# vww and detection, micro_speech, hello_world) with their own weights and
# the TFLM peer's sample inputs (firmware/tools/real-models.sh, into
# build/firmware/gen-real/), run on both QEMU cores and linked for both
# Picos as above, into OUT/real-models.json; then OUT/real-models.md
# (ripsim tables real-models) beside TFLM's own figures: measured again
# into OUT/tflm-peer.tsv when the peer is built (build-tflm-peer/, by the
# tflm_peer suite), else the committed results/tflm-peer.tsv.  Without the
# TFLM tree and models (the vendor tree) one line says so and nothing is
# written: status 77.
firmware_real_models() {
    local out=$1 real=build/firmware/gen-real t0 rc=0 st=0 tflm=results/tflm-peer.tsv
    local lines=build/firmware/real-models.lines
    t0=$(date +%s)
    rm -rf "$real"
    firmware/tools/real-models.sh --gen "$real" || st=$?
    [ "$st" -eq 0 ] || return "$st"
    : >"$lines" || return 1
    images_and_links "$real" build/firmware/real- "$lines" || rc=$?
    [ "$rc" -le 1 ] || return 1
    # called where errexit is off: every failure is checked
    build/ripsim tables deployment --lines "$lines" --out "$out/real-models.json" || return 1
    if [ -x build-tflm-peer/ref/tflm_peer ] && [ -f build-tflm-peer/cases.tsv ] &&
       tests/tflm/measure.sh build-tflm-peer >"$out/tflm-peer.tsv.tmp"; then
        mv "$out/tflm-peer.tsv.tmp" "$out/tflm-peer.tsv"
        tflm=$out/tflm-peer.tsv
    else
        rm -f "$out/tflm-peer.tsv.tmp"
        echo "build.sh: no TFLM peer built (build-tflm-peer/, made by the tflm_peer suite): TFLM's figures from results/tflm-peer.tsv" >&2
    fi
    build/ripsim tables real-models --deployment "$out/real-models.json" --tflm "$tflm" --out "$out/real-models.md" ||
        return 1
    echo "build.sh: $out/real-models.json and $out/real-models.md in $(( $(date +%s) - t0 )) s" >&2
    return "$rc"
}

# compare_file F: results/F against its rebuild build/firmware/check/F, byte
# for byte.  Status 0 identical, 1 not (the diff's head on stderr).
compare_file() {
    local f=$1 check=build/firmware/check
    if cmp -s "$check/$f" "results/$f"; then
        echo "firmware: results/$f: rebuilt identically" >&2
        return 0
    fi
    diff -u "results/$f" "$check/$f" | head -n 40 >&2
    echo "firmware: results/$f differs from a rebuild: stale or not deterministic (./build.sh firmware rewrites it)" >&2
    return 1
}

# deploy_records FILE BOARDS: the record lines of a deployment file (QEMU
# only unless BOARDS is 1), without their commas; deploy_tools FILE BOARDS:
# its tool lines (the board tools only when BOARDS is 1).
deploy_records() {
    if [ "$2" -eq 1 ]; then grep '^{"model"' "$1"; else grep '^{"model".*"target": "qemu-' "$1"; fi | sed 's/,$//'
}
deploy_tools() {
    if [ "$2" -eq 1 ]; then grep '^{"tool"' "$1"; else grep '^{"tool"' "$1" | grep -v '"tool": "\(pico-sdk\|newlib\)"'; fi |
        sed 's/,$//'
}

# compare_records F BOARDS: the records of results/F (deployment.json,
# real-models.json) against its rebuild, line by line: the QEMU records
# always, the board records when BOARDS is 1.  The tool versions are
# compared too; a version that differs is reported, and fails only when a
# record differs as well (then it is the likely cause).  Status 0 equal, 1
# a record differs or none was compared.
compare_records() {
    local f=$1 boards=$2 check=build/firmware/check n tools_differ=0 what="QEMU and board"
    [ "$boards" -eq 1 ] || what=QEMU
    n=$(deploy_records "$check/$f" "$boards" | wc -l)
    if [ "$n" -eq 0 ]; then
        echo "firmware: results/$f: the rebuild has no $what records: nothing compared" >&2
        return 1
    fi
    if ! diff <(deploy_tools "results/$f" "$boards") <(deploy_tools "$check/$f" "$boards") >/dev/null; then
        tools_differ=1
        diff <(deploy_tools "results/$f" "$boards") <(deploy_tools "$check/$f" "$boards") | grep '^[<>]' | sed 's/^</  committed:/; s/^>/  rebuilt with:/' >&2
    fi
    if diff <(deploy_records "results/$f" "$boards") <(deploy_records "$check/$f" "$boards") >/dev/null; then
        echo "firmware: results/$f: $n $what records rebuilt identically" \
             "$([ "$tools_differ" -eq 0 ] && echo "with the same tool versions" || echo "(other tool versions, above)")" >&2
        return 0
    fi
    diff <(deploy_records "results/$f" "$boards") <(deploy_records "$check/$f" "$boards") | head -n 20 | cut -c 1-300 >&2
    echo "firmware: results/$f: $what records differ from a rebuild$([ "$tools_differ" -eq 0 ] ||
        echo " (built with other tool versions, above)"): stale or not deterministic (./build.sh firmware rewrites it)" >&2
    return 1
}

# firmware_tests: the QEMU images of the cross build (firmware/tools/,
# their self-test suite on both cores); the pico-sdk links are the
# pico_links suite of run_tests.  One "criterion"-style line is not printed:
# these are images, counted by the tool.
firmware_tests() {
    [ -x firmware/tools/build-images.sh ] || { echo "firmware: no firmware/tools/build-images.sh: QEMU images not tested" >&2; return 0; }
    local target rc=0 out
    for target in qemu-m0 qemu-m33; do
        out=$(firmware/tools/build-images.sh --target "$target" --suite selftest --build "build/firmware/test-$target") || rc=1
        echo "firmware: $target: $(printf '%s\n' "$out" | grep -c '"ran": *true') images ran" >&2
    done
    # The whole deployment (22 images per QEMU core, 44 pico-sdk links when
    # an SDK is found; with the vendor tree also the real models' 20 images
    # per core and 40 links), rebuilt and compared byte for byte with the
    # committed results: every image runs, the counts are deterministic, the
    # files are not stale.  The deployment suite checks the committed file's content
    # (checksums equal between plans, fits).
    # Without a pico-sdk the board records are null: the QEMU records
    # (counts, checksums) are compared all the same, the board records and
    # the tables built on them (table3.md, real-models.md) are not.
    local check=build/firmware/check boards=1
    rm -f "$check/real-models.json" "$check/real-models.md" "$check/tflm-peer.tsv"
    if firmware_deployment "$check"; then
        if grep -q '"target": "pico2*", [^}]*"fits": null' "$check/deployment.json"; then
            boards=0
            echo "firmware: no pico-sdk found (PICO_SDK_PATH): QEMU records compared; board records, table3.md and real-models.md not" >&2
        fi
        compare_records deployment.json "$boards" || rc=1
        [ "$boards" -eq 0 ] || compare_file table3.md || rc=1
        if [ -f "$check/real-models.json" ]; then
            compare_records real-models.json "$boards" || rc=1
            [ "$boards" -eq 0 ] || compare_file real-models.md || rc=1
            [ ! -f "$check/tflm-peer.tsv" ] || compare_file tflm-peer.tsv || rc=1
        else
            echo "firmware: the real models were not generated (no vendor tree): results/real-models.* not compared" >&2
        fi
    else
        rc=1
    fi
    [ "$rc" -eq 0 ] || echo "firmware: a QEMU image failed or the deployment differs (see above)" >&2
    return "$rc"
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
    install_deps "${TEST_PKGS[@]}"
    if [ "${2:-}" = "--sanitize" ]; then
        setup build-asan -Db_sanitize=address,undefined -Db_lundef=false \
              -Dc_args=-fno-sanitize-recover=all -Dbuildtype=debugoptimized
        # the suppressions path quoted for the sanitizers' option parser: it may hold spaces
        ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:allocator_may_return_null=1 \
        LSAN_OPTIONS="suppressions='$PWD/tests/lsan.supp':print_suppressions=0" \
        UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
            run_tests build-asan
    else
        # The firmware tests need the arm toolchain, QEMU and cmake; the
        # sanitizer run does not repeat them (no ripsim C code runs there).
        install_deps "${FW_PKGS[@]}"
        setup build
        rc=0
        run_tests build || rc=$?
        firmware_tests || rc=$?
        exit "$rc"
    fi
    ;;
firmware)
    install_deps
    install_deps "${FW_PKGS[@]}"
    setup build
    if [ "${2:-}" = "--check" ]; then
        # rebuild into build/firmware/check and compare with results/ (the
        # test run's comparison); results/ is not written
        firmware_tests
    else
        firmware_deployment
    fi
    ;;
*)
    echo "usage: ./build.sh main | ./build.sh test [--sanitize] | ./build.sh firmware [--check]" >&2
    exit 64
    ;;
esac
