#!/usr/bin/env bash
# tests/fuzz/run.sh — build the libFuzzer harnesses (clang, ASan + UBSan) in
# build-fuzz/ and run them.  See tests/fuzz/README.md.
#
#   tests/fuzz/run.sh [--time N] [HARNESS...]   regression pass, then fuzz each
#                                               harness N seconds (default 30)
#   tests/fuzz/run.sh --regress [HARNESS...]    regression pass only: every file
#                                               of corpus/ and regressions/ once
#
# HARNESS is spec, layer_csv, graph, intervals, db_report, db_resume,
# tflite or net (all by default).  One summary line per harness; exit 1 when any
# harness crashed, reported a sanitizer error, timed out (-timeout=5) or ran
# out of memory (-rss_limit_mb=2048); the input is kept in build-fuzz/artifacts/.
# Inputs the fuzzer adds go to build-fuzz/corpus/, never to the repository.
set -euo pipefail
cd "$(dirname "$0")/../.."
here=tests/fuzz
bdir=build-fuzz
all=(spec layer_csv graph intervals db_report db_resume tflite net)

time_s=30
regress_only=0
harnesses=()
while [ $# -gt 0 ]; do
    case "$1" in
    --time) time_s=${2:?--time needs seconds}; shift 2 ;;
    --regress) regress_only=1; shift ;;
    -h|--help) sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "run.sh: unknown option $1" >&2; exit 64 ;;
    *) harnesses+=("$1"); shift ;;
    esac
done
[ ${#harnesses[@]} -eq 0 ] && harnesses=("${all[@]}")
for h in "${harnesses[@]}"; do
    [ -f "$here/fuzz_$h.c" ] || { echo "run.sh: no harness '$h' (${all[*]})" >&2; exit 64; }
done

# clang with libFuzzer (Debian 12: clang-14); installed like build.sh does.
if ! command -v clang >/dev/null; then
    sudo=""; [ "$(id -u)" -ne 0 ] && sudo=sudo
    echo "run.sh: installing clang" >&2
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends clang >/dev/null
fi
if [ ! -f "$bdir/build.ninja" ]; then
    CC=clang meson setup "$bdir" -Dfuzz=true -Db_sanitize=address,undefined -Db_lundef=false \
        -Dbuildtype=debugoptimized \
        -Dc_args="-fsanitize=fuzzer-no-link -fno-sanitize-recover=all -fno-omit-frame-pointer" >/dev/null
fi
targets=(ripsim)
for h in "${harnesses[@]}"; do targets+=("tests/fuzz/fuzz_$h"); done
# Under a lock: two run.sh at once (one per core) share build-fuzz/.
exec 9>"$bdir/.run.lock"
flock 9
# quiet unless the build fails: then its errors, and a failing exit
if ! out=$(ninja -C "$bdir" "${targets[@]}" 2>&1); then
    printf '%s\n' "$out" | grep -E 'error|FAILED' >&2 || printf '%s\n' "$out" >&2
    echo "run.sh: the fuzz build failed (clang, $bdir)" >&2
    exit 1
fi

export ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1:abort_on_error=1
export LSAN_OPTIONS=suppressions=$PWD/tests/lsan.supp:print_suppressions=0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

# Sweep databases for the db harnesses are made by this build's ripsim at
# run time (so they always have the current schema): the run of --seed 1
# --n 4 that fuzz_db_resume resumes, as written (WAL) and compacted (512-byte
# pages), half done, not started, of another seed, of another schema version.
dbseeds=$bdir/fuzz-seeds/db
make_db_seeds() {
    local t; t=$(mktemp -d)
    rm -rf "$dbseeds"; mkdir -p "$dbseeds"
    "$bdir/ripsim" sweep --n 4 --seed 1 --db "$t/wal.db" --quiet >/dev/null
    cp "$t/wal.db" "$dbseeds/sweep_n4_seed1_wal"
    sqlite3 "$t/wal.db" 'PRAGMA journal_mode=DELETE; PRAGMA page_size=512; VACUUM;' >/dev/null
    cp "$t/wal.db" "$dbseeds/sweep_n4_seed1_p512"
    cp "$t/wal.db" "$t/x.db"
    # schemas 3 and 4: one row per layer in layer_results, verdict_counts kept equal
    # to the verdicts of the rows present (as a sweep's batch commits leave it)
    local recount='DELETE FROM verdict_counts;
        INSERT INTO verdict_counts SELECT f.ord, CASE v.verdict WHEN '"'n/a'"' THEN 0 WHEN '"'unsafe'"' THEN 1
            WHEN '"'tight'"' THEN 2 ELSE 3 END, count(*) FROM verdicts v JOIN formulas f USING (formula) GROUP BY 1, 2;'
    sqlite3 "$t/x.db" "DELETE FROM layer_results WHERE layer_idx >= 2; $recount VACUUM;"
    cp "$t/x.db" "$dbseeds/sweep_n4_seed1_half"
    sqlite3 "$t/x.db" "DELETE FROM layer_results; DELETE FROM verdict_counts; DELETE FROM run_log; VACUUM;"
    cp "$t/x.db" "$dbseeds/sweep_n4_seed1_no_layers"
    cp "$t/wal.db" "$t/x.db"; sqlite3 "$t/x.db" 'UPDATE runs SET seed = 2; VACUUM;'
    cp "$t/x.db" "$dbseeds/other_seed"
    cp "$t/wal.db" "$t/x.db"; sqlite3 "$t/x.db" 'PRAGMA user_version = 2;'
    cp "$t/x.db" "$dbseeds/schema_v2"
    rm -rf "$t"
}
case " ${harnesses[*]} " in
*" db_"*) [ "$dbseeds.made" -nt "$bdir/ripsim" ] || { make_db_seeds; touch "$dbseeds.made"; } ;;
esac

# Seeds of the tflite harness besides its corpus: the hand-written models
# of tests/data/tflite and, when ../shared/vendor is there, copies of the
# real models (not part of the project; hundreds of KB, cut to -max_len).
tfliteseeds=$bdir/fuzz-seeds/tflite
make_tflite_seeds() {
    rm -rf "$tfliteseeds"; mkdir -p "$tfliteseeds"
    cp tests/data/tflite/*.tflite "$tfliteseeds/"
    local v=../shared/vendor f
    for f in "$v"/models/*/*.tflite "$v"/tflite-micro/tflite-micro/tensorflow/lite/micro/models/*.tflite; do
        [ -f "$f" ] && cp "$f" "$tfliteseeds/vendor_$(basename "$f")"
    done
    return 0
}
case " ${harnesses[*]} " in
*" tflite "*|*" net "*) make_tflite_seeds ;;
esac
flock -u 9

# Per harness: extra seed dirs, dictionary, largest input.
seeds_of() { case "$1" in db_*) echo "$dbseeds" ;; tflite|net) echo "$tfliteseeds" ;; esac; }
dict_of() { case "$1" in db_*) echo "$here/dict/db.dict" ;; net) echo "$here/dict/tflite.dict" ;; *) echo "$here/dict/$1.dict" ;; esac; }
maxlen_of() { case "$1" in db_*|tflite|net) echo 65536 ;; *) echo 8192 ;; esac; }

fail=0
for h in "${harnesses[@]}"; do
    exe=$bdir/tests/fuzz/fuzz_$h
    art=$bdir/artifacts/$h; work=$bdir/corpus/$h; log=$bdir/fuzz-$h.log
    mkdir -p "$art" "$work" "$here/regressions/$h"
    dirs=("$here/corpus/$h" "$here/regressions/$h")
    s=$(seeds_of "$h"); [ -n "$s" ] && dirs+=("$s")
    common=(-timeout=5 -rss_limit_mb=2048 -max_len="$(maxlen_of "$h")" -artifact_prefix="$art/")

    # Regression pass: every seed and every kept crash input, once.
    n_files=$(find "${dirs[@]}" -type f | wc -l)
    if ! "$exe" "${common[@]}" -runs=0 "${dirs[@]}" >"$log" 2>&1; then
        echo "fuzz: $h: FAILED on the corpus/regressions ($n_files inputs); see $log and $art/"
        fail=1; continue
    fi
    if [ "$regress_only" -eq 1 ]; then
        echo "fuzz: $h: ok, $n_files corpus and regression inputs"
        continue
    fi
    rc=0
    "$exe" "${common[@]}" -max_total_time="$time_s" -dict="$(dict_of "$h")" -print_final_stats=1 \
        "$work" "${dirs[@]}" >"$log" 2>&1 || rc=$?
    execs=$(awk '/stat::number_of_executed_units:/ { print $2 }' "$log" | tail -1)
    cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | awk '{ print $2 }')
    if [ "$rc" -ne 0 ]; then
        what=$(grep -m1 -o 'ERROR: [A-Za-z]*: [a-z-]*\|SUMMARY: [A-Za-z]*: [^ ]*\|runtime error\|fuzz_[a-z_]*: .*' "$log" || true)
        echo "fuzz: $h: FAILED after ${execs:-?} runs: ${what:-exit $rc}; see $log, input in $art/"
        fail=1
    else
        echo "fuzz: $h: ok, ${execs:-?} runs in ${time_s} s, coverage ${cov:-?} edges, $(ls "$work" | wc -l) corpus inputs"
    fi
done
exit $fail
