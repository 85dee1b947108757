#!/usr/bin/env bash
# submit.sh — run a ripsim sweep on a Slurm cluster: an array job of K
# shards (shard.sbatch, `ripsim sweep --shard I/K --jobs 1` per task) and a
# merge job (merge.sbatch) submitted with --dependency=afterok on the array.
#
#   sweeps/slurm/submit.sh [--n N] [--seed S] [--shards K] [--dir DIR]
#                          [--out DB] [--ripsim PATH] [--wait SECONDS]
#                          [-- SBATCH-OPTION...]
#
# Defaults: the default sweep (--n 10000, seed 20261129), 8 shards, DIR
# ./sweep-shards, OUT DIR/sweep.db, the ripsim of this checkout
# (build/ripsim) or else the one in PATH.  DIR and the binary must be
# visible on the compute nodes (a shared file system).  Options after --
# go to both sbatch calls (e.g. --partition=short --time=10).
#
# Prints the two job ids.  With --wait SECONDS it waits for the merge job
# (sbatch --wait, under `timeout`: a job that cannot start is held, not
# failed, and would be waited for forever) and exits 0 only if the whole
# sweep was merged (merge.sbatch leaves DIR/merge.done); on timeout it
# cancels both jobs and exits 124.  The
# merge job is submitted with --kill-on-invalid-dep=yes: when a shard
# fails, it is cancelled instead of waiting forever.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
n=10000 seed=20261129 shards=8 dir=sweep-shards out="" wait="" ripsim=""
die() { echo "submit.sh: $*" >&2; exit 64; }
while [ $# -gt 0 ]; do
    case $1 in
        --n) n=${2:?}; shift 2 ;;
        --seed) seed=${2:?}; shift 2 ;;
        --shards) shards=${2:?}; shift 2 ;;
        --dir) dir=${2:?}; shift 2 ;;
        --out) out=${2:?}; shift 2 ;;
        --ripsim) ripsim=${2:?}; shift 2 ;;
        --wait) wait=${2:?}; shift 2 ;;
        --) shift; break ;;
        -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
        *) die "unknown option $1 (--help)" ;;
    esac
done
[[ $shards =~ ^[1-9][0-9]*$ ]] || die "--shards must be a positive integer, not '$shards'"
[[ -z $wait || $wait =~ ^[1-9][0-9]*$ ]] || die "--wait must be a positive number of seconds, not '$wait'"
if [ -z "$ripsim" ]; then
    if [ -x "$here/../../build/ripsim" ]; then ripsim=$here/../../build/ripsim
    else ripsim=$(command -v ripsim) || die "no ripsim: build it (ninja -C build) or pass --ripsim PATH"; fi
fi
[ -x "$ripsim" ] || die "--ripsim $ripsim is not executable"
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
out=${out:-$dir/sweep.db}
case $out in /*) ;; *) out=$PWD/$out ;; esac

export RIPSIM SWEEP_DIR SWEEP_SHARDS SWEEP_N SWEEP_SEED SWEEP_OUT
RIPSIM=$(cd "$(dirname "$ripsim")" && pwd)/$(basename "$ripsim")
SWEEP_DIR=$dir SWEEP_SHARDS=$shards SWEEP_N=$n SWEEP_SEED=$seed SWEEP_OUT=$out

rm -f "$dir/merge.done"
array=$(sbatch --parsable --array="0-$((shards - 1))" --output="$dir/shard-%a.out" "$@" "$here/shard.sbatch")
array=${array%%;*}
merge_opts=(--parsable --dependency=afterok:"$array" --kill-on-invalid-dep=yes --output="$dir/merge.out")
if [ -z "$wait" ]; then
    merge=$(sbatch "${merge_opts[@]}" "$@" "$here/merge.sbatch")
    echo "array job ${array} (${shards} shards), merge job ${merge%%;*} -> $out"
    exit 0
fi
echo "array job ${array} (${shards} shards), merge job waited for (at most ${wait} s) -> $out" >&2
rc=0
# --parsable prints the merge job's id at submission, before the wait
timeout "$wait" sbatch --wait "${merge_opts[@]}" "$@" "$here/merge.sbatch" >"$dir/merge.jobid" || rc=$?
if [ $rc -eq 124 ]; then
    merge=$(cut -d';' -f1 "$dir/merge.jobid")
    scancel "$array" ${merge:+"$merge"} 2>/dev/null || true
    echo "submit.sh: not done after $wait s; jobs $array ${merge:-} cancelled" >&2
elif [ $rc -ne 0 ] || [ ! -e "$dir/merge.done" ]; then
    # sbatch --wait gives 0 for a merge job cancelled before it ran
    [ $rc -ne 0 ] || rc=1
    echo "submit.sh: the sweep failed: a shard or the merge did not succeed (see $dir/shard-*.out, $dir/merge.out)" >&2
fi
exit "$rc"
