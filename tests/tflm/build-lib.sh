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

# obj_of DIR REL: the object of source REL in $OUT/obj/DIR (path flattened:
# the tree has several kernel_util.cc and common.cc).
obj_of() { local s=${2%.*}; echo "$OUT/obj/$1/${s//\//__}.o"; }

# queue KIND ROOT REL...: each source's object appended to OBJS, and a job
# (JOB_KIND, JOB_SRC, JOB_OBJ) for each object that is missing.
JOB_KIND=() JOB_SRC=() JOB_OBJ=() OBJS=()
queue() {
  local kind=$1 root=$2 s o
  shift 2
  for s in "$@"; do
    o=$(obj_of "$kind" "$s")
    OBJS+=("$o")
    if [ ! -f "$o" ]; then JOB_KIND+=("$kind"); JOB_SRC+=("$root/$s"); JOB_OBJ+=("$o"); fi
  done
}

# compile_queued SCRIPT JOBS WHAT: the queued jobs through the caller's
# `compile KIND SRC OBJ`, JOBS at a time (WHAT ends the message); exits 70
# when one failed.
compile_queued() {
  [ ${#JOB_SRC[@]} -gt 0 ] || return 0
  echo "$1: compiling ${#JOB_SRC[@]} TFLM/CMSIS-NN sources$3 ($2 jobs)" >&2
  if ! run_jobs "$2" compile JOB_KIND JOB_SRC JOB_OBJ; then
    echo "$1: a TFLM/CMSIS-NN source failed to compile" >&2
    exit 70
  fi
}
