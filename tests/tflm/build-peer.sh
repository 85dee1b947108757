#!/usr/bin/env bash
# build-peer.sh — builds the TensorFlow Lite Micro peer of the tflm_peer
# suite (tests/tflm/README.md) from a TFLM tree outside this project:
#   OUT/ref/libtflm.a     TFLM with its reference kernels (the file list is
#                         the tree's lib_sources.txt, the flags those of
#                         TFLM's host Makefile build, as the tree's build.sh)
#   OUT/cmsis/libtflm.a   the same with TFLM's CMSIS-NN kernel wrappers in
#                         place of the reference kernels they cover, over
#                         CMSIS-NN's pure-C path (no ARM_MATH_DSP/MVEI on the
#                         host); only with --cmsis
#   OUT/VARIANT/tflm_peer               tests/tflm/tflm_peer.cc against each
#   OUT/VARIANT/person_detection_test   TFLM's own test against each, its
#                         image arrays made by ripsim's BMP reader
#   OUT/VARIANT/person_detection_test_rip   the same test, its model array
#                         the bytes of `ripsim plan person_detect.tflite
#                         --for LIB --write OUT/VARIANT/person_detect_rip.tflite`
#                         (LIB the variant's library); only with --ripsim
#   OUT/inputs/NAME.in    each case's input tensor bytes (tests/tflm/cases.tsv)
#   OUT/cases.tsv         name, model, input: what the suite runs
# g++ builds only this peer.  Objects are kept in OUT/obj and reused: the
# library is compiled once per build folder, again only when the compilers,
# the flags or the trees change.
#
# usage: build-peer.sh --tflm DIR --src DIR --models DIR --out DIR [--cmsis DIR] [--ripsim BIN]
#   --tflm    the vendored tree: DIR/lib_sources.txt and DIR/tflite-micro/
#   --src     this project's source root
#   --models  the models folder of tests/tflm/cases.tsv
#   --cmsis   a CMSIS-NN tree (Include/, Source/): also build the cmsis variant
#   --ripsim  the ripsim binary: also build person_detection_test_rip
# env: CXX (g++), CC (cc; may be a command with arguments, as "ccache cc"),
# TFLM_PEER_JOBS (2).  Runs for the same OUT wait for each other (flock
# OUT/.lock).  The tflm_peer suite runs it before its tests.
set -euo pipefail
# shellcheck disable=SC1091  # (run from anywhere: the file beside this one)
source "$(dirname "${BASH_SOURCE[0]}")/build-lib.sh"

usage() {
  echo "usage: build-peer.sh --tflm DIR --src DIR --models DIR --out DIR [--cmsis DIR] [--ripsim BIN]" >&2
  exit 64
}
TFLM='' SRC='' MODELS='' OUT='' CMSIS='' RIPSIM=''
while [ $# -gt 0 ]; do
  case $1 in
    --tflm|--src|--models|--out|--cmsis|--ripsim) ;;
    *) echo "build-peer.sh: unknown option $1 (usage: build-peer.sh --tflm DIR --src DIR --models DIR --out DIR [--cmsis DIR] [--ripsim BIN])" >&2
       exit 64 ;;
  esac
  if [ $# -lt 2 ]; then echo "build-peer.sh: $1 needs a value" >&2; exit 64; fi
  case $1 in
    --tflm) TFLM=$2 ;; --src) SRC=$2 ;; --models) MODELS=$2 ;; --out) OUT=$2 ;; --cmsis) CMSIS=$2 ;; --ripsim) RIPSIM=$2 ;;
  esac
  shift 2
done
if [ -z "$TFLM" ] || [ -z "$SRC" ] || [ -z "$MODELS" ] || [ -z "$OUT" ]; then usage; fi
T=$TFLM/tflite-micro
if [ ! -f "$TFLM/lib_sources.txt" ] || [ ! -f "$T/tensorflow/lite/micro/micro_interpreter.h" ]; then
  echo "build-peer.sh: no TFLite Micro tree at $TFLM (lib_sources.txt, tflite-micro/)" >&2
  exit 66
fi
CXX=${CXX:-g++}
read -r -a CCV <<< "${CC:-cc}"
JOBS=${TFLM_PEER_JOBS:-2}
if ! "$CXX" --version > /dev/null 2>&1; then echo "build-peer.sh: no C++ compiler $CXX" >&2; exit 69; fi
if ! "${CCV[@]}" --version > /dev/null 2>&1; then echo "build-peer.sh: no C compiler ${CCV[*]}" >&2; exit 69; fi
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
exec 9> "$OUT/.lock"
flock 9

# TFLM's host Makefile flags (BUILD_TYPE=default); kernels at -O2, the rest
# at -Os, as TFLM builds them.
CXXFLAGS=(-std=c++17 -fno-rtti -fno-exceptions -fno-threadsafe-statics -ffunction-sections
          -fdata-sections -DTF_LITE_STATIC_MEMORY -DTF_LITE_DISABLE_X86_NEON
          -DKERNELS_OPTIMIZED_FOR_SPEED -DTF_LITE_USE_CTIME)
TP=("$T" "$T/third_party/flatbuffers/include" "$T/third_party/gemmlowp" "$T/third_party/ruy")
INC=() SYSINC=()
for d in "${TP[@]}"; do INC+=("-I$d"); SYSINC+=(-isystem "$d"); done
CMSIS_INC=() CMSIS_DEFS=()
if [ -n "$CMSIS" ]; then
  CMSIS_INC=("-I$CMSIS" "-I$CMSIS/Include")
  CMSIS_DEFS=(-DCMSIS_NN "${CMSIS_INC[@]}")
fi
# CMSIS-NN as TFLM's Makefile compiles it (C, the kernels' -O2).
CMSIS_CFLAGS=(-std=c11 -O2 -ffunction-sections -fdata-sections)
# The kernels TFLM's cmsis_nn directory replaces, among the tree's 14 ops.
CMSIS_REPLACED=" add conv depthwise_conv fully_connected pad pooling softmax transpose "
COMMIT=$(sed -n 's/^tflite-micro: *//p' "$T/PROVENANCE.txt" 2>/dev/null | head -1 || true)
COMMIT=${COMMIT:-unknown}

# ---- the object cache: wiped when what the objects depend on changes ----
key() {
  echo "key 1"
  "$CXX" --version | head -1
  "${CCV[@]}" --version | head -1
  echo "${CXXFLAGS[*]} | ${INC[*]} | ${CMSIS_INC[*]} | ${CMSIS_CFLAGS[*]}"
  cksum < "$TFLM/lib_sources.txt"
  cksum < "$T/PROVENANCE.txt" 2>/dev/null || true
  if [ -n "$CMSIS" ]; then
    (cd "$CMSIS" && find Source Include -type f -printf '%P %s %T@\n' | sort | cksum)
  fi
}
if [ "$(key)" != "$(cat "$OUT/obj/key" 2>/dev/null)" ]; then
  rm -rf "$OUT/obj"
  mkdir -p "$OUT/obj"
  key > "$OUT/obj/key.new"
fi
mkdir -p "$OUT/obj/common" "$OUT/obj/ref" "$OUT/obj/cmsis" "$OUT/obj/cmsis-nn" "$OUT/obj/project"


# compile KIND SRC OBJ (KIND: common, ref, cmsis, cmsis-nn), written to
# OBJ.tmp then renamed, so an interrupted build leaves no object.
compile() {
  local kind=$1 src=$2 obj=$3 opt=-Os
  case $src in */micro/kernels/*) opt=-O2 ;; esac
  case $kind in
    common|ref) "$CXX" "${CXXFLAGS[@]}" -Wall -Wno-unused-parameter "$opt" "${INC[@]}" \
                  -c "$src" -o "$obj.tmp" ;;
    cmsis) "$CXX" "${CXXFLAGS[@]}" -Wall -Wno-unused-parameter "$opt" "${CMSIS_DEFS[@]}" "${INC[@]}" \
             -c "$src" -o "$obj.tmp" ;;
    cmsis-nn) "${CCV[@]}" "${CMSIS_CFLAGS[@]}" "${CMSIS_INC[@]}" -c "$src" -o "$obj.tmp" ;;
  esac
  mv "$obj.tmp" "$obj"
}

COMMON=() REF=() CMS=() CMSNN=()
while read -r s; do
  [ -n "$s" ] || continue
  case $s in
    */micro/kernels/*)
      REF+=("$s")
      base=$(basename "${s%.*}")
      if [[ $CMSIS_REPLACED == *" $base "* ]]; then CMS+=("tensorflow/lite/micro/kernels/cmsis_nn/$base.cc")
      else CMS+=("$s"); fi ;;
    *) COMMON+=("$s") ;;
  esac
done < "$TFLM/lib_sources.txt"
if [ -n "$CMSIS" ]; then
  while read -r s; do CMSNN+=("${s#"$CMSIS/"}"); done < <(find "$CMSIS/Source" -name '*.c' | sort)
fi

# Every missing object, compiled JOBS at a time.
queue common "$T" "${COMMON[@]}"
queue ref "$T" "${REF[@]}"
if [ -n "$CMSIS" ]; then
  queue cmsis "$T" "${CMS[@]}"
  queue cmsis-nn "$CMSIS" "${CMSNN[@]}"
fi
compile_queued build-peer.sh "$JOBS" ""
if [ -f "$OUT/obj/key.new" ]; then mv "$OUT/obj/key.new" "$OUT/obj/key"; fi

VARIANTS=(ref)
if [ -n "$CMSIS" ]; then VARIANTS+=(cmsis); fi
# archive VARIANT KERNEL_SOURCE...: OUT/VARIANT/libtflm.a when an object is newer.
archive() {
  local v=$1 s objs=()
  shift
  for s in "${COMMON[@]}"; do objs+=("$(obj_of common "$s")"); done
  for s in "$@"; do objs+=("$(obj_of "$v" "$s")"); done
  if [ "$v" = cmsis ]; then
    for s in "${CMSNN[@]}"; do objs+=("$(obj_of cmsis-nn "$s")"); done
  fi
  mkdir -p "$OUT/$v"
  stale "$OUT/$v/libtflm.a" "${objs[@]}" || return 0
  rm -f "$OUT/$v/libtflm.a.tmp"
  ar rcs "$OUT/$v/libtflm.a.tmp" "${objs[@]}"
  mv "$OUT/$v/libtflm.a.tmp" "$OUT/$v/libtflm.a"
}
archive ref "${REF[@]}"
if [ -n "$CMSIS" ]; then archive cmsis "${CMS[@]}"; fi

# ---- the project's side: harness, BMP reader, CRC, input maker ----
# Warnings are errors in the project's own code; TFLM's headers are system
# headers here, so theirs are not ours.
PW=(-Wall -Wextra -Werror)
PINC=("-I$SRC/src/io" "-I$SRC/src/core" "-I$SRC/firmware/runtime")
P=$OUT/obj/project
for c in src/io/bmp.c src/core/status.c firmware/runtime/rk_crc32.c tests/tflm/peer_input.c; do
  o=$P/$(basename "${c%.c}").o
  if stale "$o" "$SRC/$c" "$SRC"/src/io/*.h "$SRC"/src/core/*.h "$SRC/firmware/runtime/rk_crc32.h" \
       "$SRC/tests/splitmix.h"; then
    "${CCV[@]}" -std=c11 -D_POSIX_C_SOURCE=200809L -O2 "${PW[@]}" "${PINC[@]}" -c "$SRC/$c" -o "$o"
  fi
done
mkdir -p "$OUT/bin"
if stale "$OUT/bin/peer_input" "$P/peer_input.o"; then "${CCV[@]}" -o "$OUT/bin/peer_input" "$P/peer_input.o"; fi
HARNESS_DEPS=("$SRC/tests/tflm/tflm_peer.cc" "$SRC/tests/tflm/tflm_ops.h" "$SRC/src/io/bmp.h" "$SRC/src/core/status.h"
              "$SRC/src/core/layer.h" "$SRC/firmware/runtime/rk_crc32.h")
for v in "${VARIANTS[@]}"; do
  o=$P/tflm_peer-$v.o defs=() kernels=reference
  if [ "$v" = cmsis ]; then defs=("${CMSIS_DEFS[@]}") kernels=cmsis-nn; fi
  if stale "$o" "${HARNESS_DEPS[@]}"; then
    "$CXX" "${CXXFLAGS[@]}" -O2 "${PW[@]}" "${defs[@]}" "${SYSINC[@]}" "${PINC[@]}" \
      "-DTFLM_PEER_KERNELS=\"$kernels\"" "-DTFLM_PEER_TFLM_COMMIT=\"$COMMIT\"" \
      -c "$SRC/tests/tflm/tflm_peer.cc" -o "$o"
  fi
  L=("$o" "$P/bmp.o" "$P/status.o" "$P/rk_crc32.o" "$OUT/$v/libtflm.a")
  if stale "$OUT/$v/tflm_peer" "${L[@]}"; then "$CXX" -o "$OUT/$v/tflm_peer" "${L[@]}" -lm; fi
done

# ---- the cases' inputs (tests/tflm/cases.tsv) ----
# Each row: name, model, recipe.  A path "tflm:X" is X in the TFLM tree,
# any other relative path is in the models folder.
path_of() { case $1 in tflm:*) echo "$T/${1#tflm:}" ;; /*) echo "$1" ;; *) echo "$MODELS/$1" ;; esac; }
mkdir -p "$OUT/inputs"
: > "$OUT/cases.tsv.tmp"
# (stale only reads cases.tsv's time, so SC2094, read and write of one file, is not so)
# shellcheck disable=SC2094
while IFS=$'\t' read -r name model recipe; do
  case $name in ''|'#'*) continue ;; esac
  model=$(path_of "$model")
  read -r -a r <<< "$recipe"
  src=$OUT/inputs/$name.src opt=--input
  case ${r[0]} in
    bmp) src=$(path_of "${r[1]}") ;;
    carray) if [ "${r[1]}" = f32 ]; then opt=--input-f32; fi ;;
    head-f32|seeded-f32|f32) opt=--input-f32 ;;
    seeded-i8) ;;
    *) echo "build-peer.sh: cases.tsv: $name: unknown input recipe ${r[0]}" >&2; exit 65 ;;
  esac
  if [ "${r[0]}" != bmp ] && stale "$src" "$SRC/tests/tflm/cases.tsv" "$OUT/bin/peer_input"; then
    case ${r[0]} in
      carray) "$OUT/bin/peer_input" carray "${r[1]}" "$(path_of "${r[2]}")" "$src" ${r[3]:+"${r[3]}"} ;;
      head-f32) "$OUT/bin/peer_input" head "$(path_of "${r[1]}")" "${r[2]}" "$src" ;;
      seeded-i8) "$OUT/bin/peer_input" seeded-i8 "${r[1]}" "${r[2]}" "$src" ;;
      seeded-f32) "$OUT/bin/peer_input" seeded-f32 "${r[1]}" "${r[2]}" "${r[3]}" "${r[4]}" "$src" ;;
      f32) "$OUT/bin/peer_input" f32 "$src" "${r[@]:1}" ;;
    esac
  fi
  # The tensor's bytes as TFLM received them: what ripsim is given later.
  if stale "$OUT/inputs/$name.in" "$model" "$src" "$OUT/ref/tflm_peer"; then
    "$OUT/ref/tflm_peer" "$model" "$opt" "$src" --repeat 0 --save-input "$OUT/inputs/$name.in" > /dev/null
  fi
  printf '%s\t%s\t%s\n' "$name" "$model" "$OUT/inputs/$name.in" >> "$OUT/cases.tsv.tmp"
done < "$SRC/tests/tflm/cases.tsv"
mv "$OUT/cases.tsv.tmp" "$OUT/cases.tsv"

# ---- TFLM's own person detection test, its arrays from ripsim's BMP reader ----
PD=tensorflow/lite/micro/examples/person_detection
G=$OUT/gen
# carray NAME FILE HEADER [DIR]: HEADER (in DIR, default G) and its .cc
# defining NAME[] and NAME_size, the names TFLM's generate_cc_arrays.py
# gives; rewritten only when FILE is newer.
carray() {
  local name=$1 file=$2 hdr=$3 n G=${4:-$G}
  stale "$G/${hdr%.h}.cc" "$file" || return 0
  n=$(wc -c < "$file")
  mkdir -p "$G/$(dirname "$hdr")"
  printf '#include <cstdint>\n\nconstexpr unsigned int %s_size = %s;\nextern const unsigned char %s[];\n' \
    "$name" "$n" "$name" > "$G/$hdr"
  { printf '#include "%s"\n\nalignas(16) const unsigned char %s[] = {\n' "$hdr" "$name"
    od -An -v -tu1 "$file" | sed 's/^ *//; s/  */,/g; s/$/,/'
    printf '};\n'; } > "$G/${hdr%.h}.cc"
}
carray g_person_image_data "$OUT/inputs/person.in" "$PD/testdata/person_image_data.h"
carray g_no_person_image_data "$OUT/inputs/no_person.in" "$PD/testdata/no_person_image_data.h"
carray g_person_detect_model_data "$T/tensorflow/lite/micro/models/person_detect.tflite" \
  tensorflow/lite/micro/models/person_detect_model_data.h
MD=tensorflow/lite/micro/models/person_detect_model_data
# person_test VARIANT EXE MODEL_DIR: TFLM's test against VARIANT's library,
# its model array MODEL_DIR/$MD.cc (the header found there first).
person_test() {
  local v=$1 exe=$2 md=$3 defs=()
  if [ "$v" = cmsis ]; then defs=("${CMSIS_DEFS[@]}"); fi
  local S=("$T/$PD/person_detection_test.cc" "$T/$PD/model_settings.cc"
     "$G/$PD/testdata/person_image_data.cc" "$G/$PD/testdata/no_person_image_data.cc"
     "$md/$MD.cc" "$OUT/$v/libtflm.a")
  stale "$exe" "${S[@]}" || return 0
  "$CXX" "${CXXFLAGS[@]}" -O2 -Wall -Wno-unused-parameter "${defs[@]}" "${INC[@]}" "-I$md" "-I$G" \
    -o "$exe" "${S[@]}" -lm
}
for v in "${VARIANTS[@]}"; do
  person_test "$v" "$OUT/$v/person_detection_test" "$G"
  [ -n "$RIPSIM" ] || continue
  # ripsim's plan for the variant's library, replaced only when its bytes
  # change (the array is then not rewritten, the test not rebuilt).
  lib=tflm-reference
  if [ "$v" = cmsis ]; then lib=tflm-cmsis-nn; fi
  rip=$OUT/$v/person_detect_rip.tflite
  "$RIPSIM" plan "$T/tensorflow/lite/micro/models/person_detect.tflite" --for "$lib" --write "$rip.new" > "$rip.log"
  if cmp -s "$rip.new" "$rip"; then rm "$rip.new"; else mv "$rip.new" "$rip"; fi
  carray g_person_detect_model_data "$rip" "$MD.h" "$OUT/gen-rip-$v"
  person_test "$v" "$OUT/$v/person_detection_test_rip" "$OUT/gen-rip-$v"
done

printf '%s\n' "${VARIANTS[@]}" > "$OUT/variants"
echo "build-peer.sh: OK (${VARIANTS[*]})" >&2
