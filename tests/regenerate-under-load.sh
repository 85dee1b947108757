#!/usr/bin/env bash
# regenerate-under-load.sh — every committed result regenerated while the
# machine is busy, compared byte for byte with results/ (issue 22 item 5:
# no committed file may depend on how fast the machine is).
#
#   tests/regenerate-under-load.sh [--load N] [--skip-sweep-report] [--firmware]
#
# N busy loops (default: one less than the cores, at least 1) keep the
# other cores saturated at normal priority while every regeneration runs at
# the lowest (nice 19), so each search gets a fraction of the time it has
# on an idle machine.  The files are written into a temporary folder, never
# into results/.  --firmware also rebuilds the deployment (./build.sh
# firmware's compare: QEMU instruction counts, checksums, links, ~5 min);
# --skip-sweep-report leaves out the sweep report (an executed default
# sweep, several minutes).  Needs build/ripsim (./build.sh main) and, for
# the claims, results/sweep.db (the default sweep; made here if absent).
# Prints one line per file, "identical" or "DIFFERS" (a diff on stderr),
# and a closing line; exit 0 when all are identical, 1 otherwise, 64 on a
# bad argument.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root" || exit 1
load=$(( $(nproc) - 1 )) report=1 firmware=0
[ "$load" -ge 1 ] || load=1
while [ "$#" -gt 0 ]; do
    case $1 in
    --load) [ "$#" -ge 2 ] || { echo "regenerate-under-load.sh: --load needs a count" >&2; exit 64; }
            load=$2; shift 2 ;;
    --skip-sweep-report) report=0; shift ;;
    --firmware) firmware=1; shift ;;
    -h|--help) sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "regenerate-under-load.sh: unknown argument: $1" >&2; exit 64 ;;
    esac
done
case $load in ''|*[!0-9]*) echo "regenerate-under-load.sh: --load: a count" >&2; exit 64 ;; esac
[ -x build/ripsim ] || { echo "regenerate-under-load.sh: no build/ripsim (./build.sh main)" >&2; exit 1; }

out=$(mktemp -d)
pids=()
cleanup() {
    [ "${#pids[@]}" -eq 0 ] || kill "${pids[@]}" 2>/dev/null
    rm -rf "$out"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
for _ in $(seq 1 "$load"); do
    (while :; do :; done) &
    pids+=("$!")
done
echo "regenerate-under-load: $load busy loop(s) on $(nproc) cores; results at nice 19 into $out" >&2

bad=0 n=0
# check NAME FILE...: compare each FILE (in $out) with results/FILE.
check() {
    local name=$1 f
    shift
    for f in "$@"; do
        n=$((n + 1))
        if cmp -s "$out/$f" "results/$f"; then
            printf '%-14s %-22s identical\n' "$name" "$f"
        else
            printf '%-14s %-22s DIFFERS\n' "$name" "$f"
            diff -u "results/$f" "$out/$f" 2>&1 | head -n 20 >&2
            bad=$((bad + 1))
        fi
    done
}
# run NAME CMD...: CMD at the lowest priority, its time on stderr.
run() {
    local name=$1 t0 st
    shift
    t0=$(date +%s)
    nice -n 19 "$@" >/dev/null 2>"$out/$name.err"
    st=$?
    echo "regenerate-under-load: $name: $(( $(date +%s) - t0 )) s (status $st)" >&2
    [ "$st" -eq 0 ] || { cat "$out/$name.err" >&2; bad=$((bad + 1)); }
    return "$st"
}

r=build/ripsim
run table2 $r tables table2 --out "$out/table2.md" && check table2 table2.md
run table3 $r tables table3 --out "$out/table3.md" && check table3 table3.md
run table6 $r tables table6 --out "$out/table6.md" && check table6 table6.md
run table7 $r tables table7 --no-times --out "$out/table7.md" && check table7 table7.md
run fig1 $r tables fig1 --out "$out/fig1.svg" && check fig1 fig1.svg fig1.png
run optimum $r tables optimum --out "$out/optimum.md" && check optimum optimum.md
run fig3 $r tables fig3 --out "$out/fig3.svg" && check fig3 fig3.svg
run fig_optimum $r tables fig_optimum --out "$out/fig_optimum.svg" && check fig_optimum fig_optimum.svg
run real-models $r tables real-models --out "$out/real-models.md" && check real-models real-models.md
run tflm $r tables tflm --out "$out/tflm.md" && check tflm tflm.md
if [ ! -f results/sweep.db ]; then
    run sweep $r sweep --quiet || true
fi
run claims $r claims --db results/sweep.db --out "$out/claims.md" --fig-dir "$out" &&
    check claims claims.md fig_verdicts.svg fig_margins.svg fig_rip_hb.svg
run shard-exec $r sweep --shard 0/10 --execute --quiet --db "$out/shard0.db" &&
    nice -n 19 $r report --db "$out/shard0.db" >"$out/sweep-report-shard0of10.md" 2>"$out/report0.err" &&
    check sweep-report-shard0of10 sweep-report-shard0of10.md
if [ "$report" -eq 1 ]; then
    run sweep-exec $r sweep --execute --quiet --db "$out/exec.db" &&
        nice -n 19 $r report --db "$out/exec.db" >"$out/sweep-report.md" 2>"$out/report.err" &&
        check sweep-report sweep-report.md
fi
if [ "$firmware" -eq 1 ]; then
    # ./build.sh firmware's own comparison (build/firmware/check): QEMU counts, checksums, links
    if nice -n 19 ./build.sh firmware --check 2>"$out/firmware.err"; then
        grep "rebuilt identically" "$out/firmware.err"
        n=$((n + $(grep -c "rebuilt identically" "$out/firmware.err")))
    else
        cat "$out/firmware.err" >&2
        bad=$((bad + 1))
    fi
fi
echo "regenerate-under-load: $n files compared, $bad differ or failed, with $load busy loop(s)"
[ "$bad" -eq 0 ]
