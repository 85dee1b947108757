# shellcheck shell=bash
# build-lib.sh — what the two TFLM build scripts (build-peer.sh for the
# host, build-m33.sh for the Cortex-M33) share; sourced by them, not run.

# stale TARGET DEP...: TARGET is missing or older than a DEP.
stale() {
  local t=$1 d
  shift
  [ -e "$t" ] || return 0
  for d in "$@"; do [ "$t" -nt "$d" ] || return 0; done
  return 1
}

# run_jobs JOBS FN KINDS SRCS OBJS: FN KIND SRC OBJ for each entry of the
# three arrays (passed by name), JOBS at a time; status 1 when any failed.
run_jobs() {
  local jobs=$1 fn=$2 i running=0 failed=0
  local -n kinds=$3 srcs=$4 objs=$5
  for i in "${!srcs[@]}"; do
    if [ "$running" -ge "$jobs" ]; then
      wait -n || failed=1
      running=$((running - 1))
    fi
    "$fn" "${kinds[$i]}" "${srcs[$i]}" "${objs[$i]}" &
    running=$((running + 1))
  done
  while [ "$running" -gt 0 ]; do
    wait -n || failed=1
    running=$((running - 1))
  done
  return "$failed"
}
