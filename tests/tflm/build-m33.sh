#!/usr/bin/env bash
# build-m33.sh — builds TensorFlow Lite Micro with its CMSIS-NN kernels for
# a Cortex-M33 (DSP path) and one image per case, run in QEMU's mps2-an505
# (tests/tflm/README.md, "Cortex-M33"); with --cpu cortex-m0plus the same
# library for the Pico 1's core (ARMv6-M, no DSP: CMSIS-NN's pure-C path),
# OUT/libtflm-m0plus.a, which tests/tflm/link-pico.sh links; with
# --kernels reference TFLM's reference kernels instead (no CMSIS-NN):
#   OUT/libtflm-m33.a     TFLM (the tree's lib_sources.txt, TFLM's CMSIS-NN
#                         wrappers in place of the kernels they cover) and
#                         every CMSIS-NN Source/*.c, arm-none-eabi-g++/gcc
#                         -mcpu=cortex-m33 -mthumb -mfloat-abi=softfp (the
#                         compiler then defines __ARM_FEATURE_DSP, from which
#                         CMSIS-NN's arm_nn_math_types.h sets ARM_MATH_DSP)
#   OUT/NAME.elf          tests/tflm/tflm_m33.cc with the case's model and
#                         input bytes linked in (.incbin), picolibc with
#                         semihosting, the memory map of
#                         firmware/cross/qemu-m33.ini
#   OUT/NAME.link         "ok" or "overflow" and the linker's message
# The cases: name, model, input (absolute paths), tab-separated, as the host
# peer's build writes them (build-tflm-peer/cases.tsv; inputs/NAME.in are
# the tensor bytes TFLM received there).  Objects are kept in OUT/obj and
# reused: the library is compiled once per build folder, again only when the
# compilers, the flags or the trees change; an image is linked again only
# when one of its inputs is newer.
#
# usage: build-m33.sh --tflm DIR --cmsis DIR --src DIR --cases FILE --out DIR
#                     [--cpu cortex-m33|cortex-m0plus] [--kernels cmsis-nn|reference] [NAME...]
#   --cpu      the core (default cortex-m33)
#   --kernels  TFLM's kernels (default cmsis-nn); one OUT per core and kernels
#   NAME...  only these cases (default: every case of FILE; /dev/null: none)
# env: TFLM_M33_JOBS (2).  Runs for the same OUT wait for each other (flock OUT/.lock).  Exit status: 0; 64 usage;
# 66 a tree or file is missing; 69 no cross compiler or no C++ headers for
# it; 70 a compile or link failed (an image that does not fit is not a
# failure: its .link says overflow).
set -euo pipefail
# shellcheck disable=SC1091  # (run from anywhere: the file beside this one)
source "$(dirname "${BASH_SOURCE[0]}")/build-lib.sh"

usage() {
  echo "usage: build-m33.sh --tflm DIR --cmsis DIR --src DIR --cases FILE --out DIR [--cpu CPU] [--kernels K] [NAME...]" >&2
  exit 64
}
TFLM='' CMSIS='' SRC='' CASES='' OUT='' CPU=cortex-m33 KERNELS=cmsis-nn ONLY=()
while [ $# -gt 0 ]; do
  case $1 in
    --tflm|--cmsis|--src|--cases|--out|--cpu|--kernels)
      if [ $# -lt 2 ]; then echo "build-m33.sh: $1 needs a value" >&2; exit 64; fi
      case $1 in
        --tflm) TFLM=$2 ;; --cmsis) CMSIS=$2 ;; --src) SRC=$2 ;; --cases) CASES=$2 ;; --out) OUT=$2 ;;
        --cpu) CPU=$2 ;; --kernels) KERNELS=$2 ;;
      esac
      shift 2 ;;
    -*) echo "build-m33.sh: unknown option $1" >&2; usage ;;
    *) ONLY+=("$1"); shift ;;
  esac
done
if [ -z "$TFLM" ] || [ -z "$CMSIS" ] || [ -z "$SRC" ] || [ -z "$CASES" ] || [ -z "$OUT" ]; then usage; fi
if [ ! -f "$TFLM/lib_sources.txt" ] || [ ! -f "$TFLM/tflite-micro/tensorflow/lite/micro/micro_interpreter.h" ]; then
  echo "build-m33.sh: no TFLite Micro tree at $TFLM (lib_sources.txt, tflite-micro/)" >&2
  exit 66
fi
if [ ! -f "$CMSIS/Include/arm_nnfunctions.h" ]; then echo "build-m33.sh: no CMSIS-NN tree at $CMSIS" >&2; exit 66; fi
if [ ! -r "$CASES" ]; then echo "build-m33.sh: $CASES: cannot read" >&2; exit 66; fi
if [ ! -d "$SRC" ]; then echo "build-m33.sh: no project tree at $SRC" >&2; exit 66; fi
CXX=arm-none-eabi-g++ CC=arm-none-eabi-gcc
if ! "$CXX" --version > /dev/null 2>&1; then echo "build-m33.sh: no $CXX" >&2; exit 69; fi
# Physical absolute paths from here on: the compiler sees them, and PMAP
# maps them (physical: gcc canonicalizes -isystem directories, resolving
# symlinks, so a logical path through a symlink would escape the map).
TFLM=$(cd "$TFLM" && pwd -P) CMSIS=$(cd "$CMSIS" && pwd -P) SRC=$(cd "$SRC" && pwd -P)
T=$TFLM/tflite-micro
JOBS=${TFLM_M33_JOBS:-2}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
exec 9> "$OUT/.lock"
flock 9

# The target: the project's M33 flags and libc (firmware/cross/qemu-m33.ini).
# picolibc as the project's other M33 images: its crt0-semihost gives the
# vector table, .data/.bss set-up, exit(main()) with the status through
# semihosting and a fault report.  Debian packages libstdc++ only for newlib
# (libstdc++-arm-none-eabi-newlib): its headers are used (TFLM includes
# <cstdint>, <algorithm>, <limits>, ...; header-only parts), its library is
# not linked (it would pull newlib); tflm_m33.cc supplies the three C++
# runtime symbols TFLM names.
# The core: the M33 with its FPU's ABI as the project's other M33 images;
# the M0+ (Pico 1) has no FPU.  TAG names the library.
case $CPU in
  cortex-m33) ARCH=(-mcpu=cortex-m33 -mthumb -mfloat-abi=softfp) TAG=m33 ;;
  cortex-m0plus) ARCH=(-mcpu=cortex-m0plus -mthumb -mfloat-abi=soft) TAG=m0plus ;;
  *) echo "build-m33.sh: --cpu $CPU: not cortex-m33 or cortex-m0plus" >&2; exit 64 ;;
esac
# The kernels: TFLM's CMSIS-NN wrappers (CMSIS_NN defined: the kernels'
# headers then name the CMSIS-NN registrations) or its reference kernels.
case $KERNELS in
  cmsis-nn) KDEFS=(-DCMSIS_NN) ;;
  reference) KDEFS=() ;;
  *) echo "build-m33.sh: --kernels $KERNELS: not cmsis-nn or reference" >&2; exit 64 ;;
esac
LIBC=(--specs=picolibc.specs --oslib=semihost --crt0=semihost)
CXXINC=$("$CXX" "${ARCH[@]}" "${LIBC[@]}" -x c++ -E -v /dev/null 2>&1 | sed -n 's|^ *\(/.*/c++/[0-9.]*\)$|\1|p' | head -1)
if [ -z "$CXXINC" ] || [ ! -f "$CXXINC/cstdint" ]; then
  echo "build-m33.sh: $CXX has no C++ headers (apt-get install libstdc++-arm-none-eabi-newlib)" >&2
  exit 69
fi
# The memory map: qemu-m33.ini's flash and RAM (the Pico 2 budget); the
# stack is picolibc.ld's 2 KB at the RAM's top, as in the project's other
# M33 images (the image reports its peak: at most 1,444 B here).
INI=$SRC/firmware/cross/qemu-m33.ini
defsym() { sed -n "s/.*--defsym=$1=\([0-9a-fx]*\)'.*/\1/p" "$INI" | head -1; }
FLASH=$(defsym __flash) FLASH_SIZE=$(defsym __flash_size) RAM=$(defsym __ram) RAM_SIZE=$(defsym __ram_size)
if [ -z "$FLASH" ] || [ -z "$FLASH_SIZE" ] || [ -z "$RAM" ] || [ -z "$RAM_SIZE" ]; then
  echo "build-m33.sh: $INI: no __flash/__ram defsyms" >&2
  exit 66
fi
MEM=("-Wl,--defsym=__flash=$FLASH" "-Wl,--defsym=__flash_size=$FLASH_SIZE"
     "-Wl,--defsym=__ram=$RAM" "-Wl,--defsym=__ram_size=$RAM_SIZE")

# TFLM's flags for a Cortex-M build (as the host peer, without the x86 and
# ctime defines); kernels -O2, the rest -Os; CMSIS-NN C at -O2.
# The trees' paths are mapped to fixed names (-ffile-prefix-map): TFLM's
# TF_LITE_ENSURE messages hold __FILE__, so without it the images' flash
# sizes (results/tflm-link.tsv) would depend on where the checkouts are.
PMAP=("-ffile-prefix-map=$TFLM=tflite-micro" "-ffile-prefix-map=$CMSIS=CMSIS-NN" "-ffile-prefix-map=$SRC=ripsim")
CXXFLAGS=(-std=c++17 -fno-rtti -fno-exceptions -fno-threadsafe-statics -fno-unwind-tables
          -ffunction-sections -fdata-sections -DTF_LITE_STATIC_MEMORY -DKERNELS_OPTIMIZED_FOR_SPEED
          "${KDEFS[@]}" "${ARCH[@]}" "${LIBC[@]}" "${PMAP[@]}")
CFLAGS=(-std=c11 -O2 -ffunction-sections -fdata-sections "${ARCH[@]}" "${LIBC[@]}" "${PMAP[@]}")
INC=("-I$T" "-I$T/third_party/flatbuffers/include" "-I$T/third_party/gemmlowp" "-I$T/third_party/ruy"
     "-I$CMSIS" "-I$CMSIS/Include")
SYSINC=()
for d in "${INC[@]}"; do SYSINC+=(-isystem "${d#-I}"); done
CMSIS_REPLACED=" add conv depthwise_conv fully_connected pad pooling softmax transpose "

key() {
  echo "key 1"
  "$CXX" --version | head -1
  echo "${CXXFLAGS[*]} | ${CFLAGS[*]} | ${INC[*]}"
  cksum < "$TFLM/lib_sources.txt"
  cksum < "$T/PROVENANCE.txt" 2>/dev/null || true
  if [ "$KERNELS" = cmsis-nn ]; then
    (cd "$CMSIS" && find Source Include -type f -printf '%P %s %T@\n' | sort | cksum)
  fi
}
if [ "$(key)" != "$(cat "$OUT/obj/key" 2>/dev/null)" ]; then
  rm -rf "$OUT/obj" "$OUT/libtflm-$TAG.a"
  mkdir -p "$OUT/obj"
  key > "$OUT/obj/key.new"
fi
mkdir -p "$OUT/obj/tflm" "$OUT/obj/cmsis-nn" "$OUT/obj/project"

SRCS=() NN=()
while read -r s; do
  [ -n "$s" ] || continue
  case $s in
    */micro/kernels/*)
      base=$(basename "${s%.*}")
      if [ "$KERNELS" = cmsis-nn ] && [[ $CMSIS_REPLACED == *" $base "* ]]; then s=tensorflow/lite/micro/kernels/cmsis_nn/$base.cc; fi ;;
  esac
  SRCS+=("$s")
done < "$TFLM/lib_sources.txt"
if [ "$KERNELS" = cmsis-nn ]; then
  while read -r s; do NN+=("${s#"$CMSIS/"}"); done < <(find "$CMSIS/Source" -name '*.c' | sort)
fi

compile() {
  local kind=$1 src=$2 obj=$3 opt=-Os
  case $src in */micro/kernels/*) opt=-O2 ;; esac
  case $kind in
    tflm) "$CXX" "${CXXFLAGS[@]}" -Wall -Wno-unused-parameter "$opt" "${INC[@]}" -c "$src" -o "$obj.tmp" ;;
    cmsis-nn) "$CC" "${CFLAGS[@]}" "-I$CMSIS/Include" -c "$src" -o "$obj.tmp" ;;
  esac
  mv "$obj.tmp" "$obj"
}
queue tflm "$T" "${SRCS[@]}"
if [ ${#NN[@]} -gt 0 ]; then queue cmsis-nn "$CMSIS" "${NN[@]}"; fi
compile_queued build-m33.sh "$JOBS" " for the $CPU"
if [ -f "$OUT/obj/key.new" ]; then mv "$OUT/obj/key.new" "$OUT/obj/key"; fi
LIB=$OUT/libtflm-$TAG.a
if stale "$LIB" "${OBJS[@]}"; then
  rm -f "$LIB.tmp"
  arm-none-eabi-ar rcs "$LIB.tmp" "${OBJS[@]}"
  mv "$LIB.tmp" "$LIB"
fi

# ---- the project's side: the harness, CRC-32, the markers ----
P=$OUT/obj/project
PW=(-Wall -Wextra -Werror)
RT=$SRC/firmware/runtime
for c in rk_crc32 rk_markers; do
  if stale "$P/$c.o" "$RT/$c.c" "$RT/$c.h"; then
    "$CC" "${CFLAGS[@]}" "${PW[@]}" "-I$RT" -c "$RT/$c.c" -o "$P/$c.o"
  fi
done
H=$SRC/tests/tflm
if stale "$P/tflm_m33.o" "$H/tflm_m33.cc" "$H/tflm_ops.h" "$RT/rk_crc32.h" "$RT/rk_markers.h"; then
  "$CXX" "${CXXFLAGS[@]}" -O2 "${PW[@]}" "${SYSINC[@]}" "-I$RT" "-DTFLM_M33_KERNELS=\"$KERNELS\"" \
    -c "$H/tflm_m33.cc" -o "$P/tflm_m33.o"
fi

# ---- one image per case ----
want() {
  local n
  [ ${#ONLY[@]} -eq 0 ] && return 0
  for n in "${ONLY[@]}"; do [ "$n" = "$1" ] && return 0; done
  return 1
}
built=0
while IFS=$'\t' read -r name model input; do
  case $name in ''|'#'*) continue ;; esac
  want "$name" || continue
  for f in "$model" "$input"; do
    if [ ! -r "$f" ]; then echo "build-m33.sh: $name: $f: cannot read" >&2; exit 66; fi
  done
  S=$OUT/obj/$name.S
  model_blob "$model" "$input" "$S"
  if stale "$OUT/obj/$name.o" "$S" "$model" "$input"; then
    "$CC" "${ARCH[@]}" -c "$S" -o "$OUT/obj/$name.o"
  fi
  L=("$P/tflm_m33.o" "$OUT/obj/$name.o" "$P/rk_crc32.o" "$P/rk_markers.o" "$LIB")
  # (relinked too when the memory map or this script changes)
  if stale "$OUT/$name.link" "${L[@]}" "$INI" "${BASH_SOURCE[0]}"; then
    rm -f "$OUT/$name.elf"
    if "$CC" "${ARCH[@]}" "${LIBC[@]}" "${MEM[@]}" -Wl,--gc-sections -Wl,--print-memory-usage \
         -o "$OUT/$name.elf" "${L[@]}" -lm > "$OUT/$name.link.tmp" 2>&1; then
      { echo ok; cat "$OUT/$name.link.tmp"; } > "$OUT/$name.link"
    elif grep -q "region .* overflowed" "$OUT/$name.link.tmp"; then
      { echo overflow; cat "$OUT/$name.link.tmp"; } > "$OUT/$name.link"
      rm -f "$OUT/$name.elf"
    else
      cat "$OUT/$name.link.tmp" >&2
      echo "build-m33.sh: $name: the link failed" >&2
      exit 70
    fi
    rm -f "$OUT/$name.link.tmp"
  fi
  built=$((built + 1))
done < "$CASES"
echo "build-m33.sh: OK ($built images)" >&2
