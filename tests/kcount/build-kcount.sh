#!/usr/bin/env bash
# build-kcount.sh — builds the kernel-count harness (tests/kcount/kcount_target.c)
# for one core, with ripsim's kernels as the tree holds them (every
# firmware/kernels/*.c and *.S, so whatever paths are there are measured),
# the marker functions the instruction counter watches
# (firmware/runtime/rk_markers.c) and the CMSIS-NN kernels the harness calls:
#   m0   QEMU's microbit (a Cortex-M0), -mcpu=cortex-m0plus -mthumb as the
#        project's M0 images (firmware/cross/qemu-m0.ini): CMSIS-NN's pure C
#        (no __ARM_FEATURE_DSP);
#   m33  QEMU's mps2-an505, -mcpu=cortex-m33 -mthumb -mfloat-abi=softfp as
#        tests/cmsis_m33/build-orders-m33.sh: CMSIS-NN's DSP path.
# Both -O2, picolibc with semihosting.  The memory maps are not the Pico
# budgets (the harness holds a layer's values, three outputs and the
# in-place workspace at once; which layers fit a core is the host driver's
# rule, kcount.c): m0 puts the code at 0 in a 2 MB flash and the data, heap
# and a 64 KB stack in 4 MB of SRAM at 0x20000000 (QEMU's nrf51 SRAM made
# that large: -global nrf51-soc.sram-size=0x400000, kcount.c); m33 as
# build-orders-m33.sh (code in the 4 MB SSRAM at 0x10000000, data in the
# 16 MB PSRAM at 0x80000000).  Also builds the QEMU plugin
# firmware/tools/icount.c with the host's gcc beside FILE (libicount.so).
#
# usage: build-kcount.sh --core m0|m33 --cmsis DIR --src DIR --out FILE
# Writes FILE (an ELF) atomically, its objects in FILE.obj/.  Exit status: 0;
# 64 usage; 66 no CMSIS-NN tree; 69 no arm-none-eabi-gcc; 70 a compile or
# link failed (the compiler's messages on stderr).
set -euo pipefail

usage() {
  echo "usage: build-kcount.sh --core m0|m33 --cmsis DIR --src DIR --out FILE" >&2
  exit 64
}
CORE='' CMSIS='' SRC='' OUT=''
while [ $# -gt 0 ]; do
  case $1 in
    --core|--cmsis|--src|--out)
      if [ $# -lt 2 ]; then echo "build-kcount.sh: $1 needs a value" >&2; exit 64; fi
      case $1 in --core) CORE=$2 ;; --cmsis) CMSIS=$2 ;; --src) SRC=$2 ;; --out) OUT=$2 ;; esac
      shift 2 ;;
    *) echo "build-kcount.sh: unknown argument $1" >&2; usage ;;
  esac
done
if [ -z "$CORE" ] || [ -z "$CMSIS" ] || [ -z "$SRC" ] || [ -z "$OUT" ]; then usage; fi
if [ ! -f "$CMSIS/Include/arm_nnfunctions.h" ]; then
  echo "build-kcount.sh: no CMSIS-NN tree at $CMSIS" >&2
  exit 66
fi
CC=arm-none-eabi-gcc
if ! "$CC" --version > /dev/null 2>&1; then echo "build-kcount.sh: no $CC" >&2; exit 69; fi

case $CORE in
  m0)
    ARCH=(-mcpu=cortex-m0plus -mthumb)
    MEM=(-Wl,--defsym=__flash=0x0 -Wl,--defsym=__flash_size=0x200000
         -Wl,--defsym=__ram=0x20000000 -Wl,--defsym=__ram_size=0x400000 -Wl,--defsym=__stack_size=0x10000) ;;
  m33)
    ARCH=(-mcpu=cortex-m33 -mthumb -mfloat-abi=softfp)
    MEM=(-Wl,--defsym=__flash=0x10000000 -Wl,--defsym=__flash_size=0x400000
         -Wl,--defsym=__ram=0x80000000 -Wl,--defsym=__ram_size=0x1000000 -Wl,--defsym=__stack_size=0x10000) ;;
  *) echo "build-kcount.sh: --core: m0 or m33 (got '$CORE')" >&2; exit 64 ;;
esac
LIBC=(--specs=picolibc.specs --oslib=semihost --crt0=semihost)
CFLAGS=(-std=c11 -O2 -ffunction-sections -fdata-sections "${ARCH[@]}" "${LIBC[@]}")
S=$CMSIS/Source
NN=(ConvolutionFunctions/arm_convolve_wrapper_s8.c ConvolutionFunctions/arm_convolve_s8.c
    ConvolutionFunctions/arm_convolve_1x1_s8.c ConvolutionFunctions/arm_convolve_1x1_s8_fast.c
    ConvolutionFunctions/arm_convolve_1_x_n_s8.c ConvolutionFunctions/arm_convolve_get_buffer_sizes_s8.c
    ConvolutionFunctions/arm_nn_mat_mult_kernel_s8_s16.c ConvolutionFunctions/arm_nn_mat_mult_kernel_row_offset_s8_s16.c
    ConvolutionFunctions/arm_depthwise_conv_wrapper_s8.c ConvolutionFunctions/arm_depthwise_conv_s8.c
    ConvolutionFunctions/arm_depthwise_conv_3x3_s8.c ConvolutionFunctions/arm_depthwise_conv_s8_opt.c
    ConvolutionFunctions/arm_depthwise_conv_get_buffer_sizes_s8.c
    BasicMathFunctions/arm_elementwise_add_s8.c
    FullyConnectedFunctions/arm_fully_connected_s8.c FullyConnectedFunctions/arm_fully_connected_get_buffer_sizes_s8.c
    FullyConnectedFunctions/arm_vector_sum_s8.c
    NNSupportFunctions/arm_nn_mat_mult_nt_t_s8.c NNSupportFunctions/arm_nn_vec_mat_mult_t_s8.c
    NNSupportFunctions/arm_q7_to_q15_with_offset.c NNSupportFunctions/arm_s8_to_s16_unordered_with_offset.c)

OBJ=$OUT.obj
rm -rf "$OBJ" "$OUT" "$OUT.tmp"
mkdir -p "$OBJ/cmsis" "$OBJ/rk"
srcs=()
for f in "${NN[@]}"; do srcs+=("$S/$f"); done
rk=()
for f in "$SRC"/firmware/kernels/*.c "$SRC"/firmware/kernels/*.S; do [ -e "$f" ] && rk+=("$f"); done
RKINC=("-I$SRC/firmware/kernels" "-I$SRC/firmware/runtime" "-I$SRC/tests" "-I$SRC/tests/kcount")
# Third-party code: its warnings are not ours (-w); ripsim's code and the harness are built warning-free.
if ! (cd "$OBJ/cmsis" && "$CC" "${CFLAGS[@]}" "-I$CMSIS/Include" -w -c "${srcs[@]}") ||
   ! (cd "$OBJ/rk" && "$CC" "${CFLAGS[@]}" -Wall -Wextra -Werror "${RKINC[@]}" -c "${rk[@]}" \
        "$SRC/firmware/runtime/rk_markers.c" "$SRC/firmware/runtime/rk_crc32.c") ||
   ! "$CC" "${CFLAGS[@]}" -Wall -Wextra -Werror "-I$CMSIS/Include" "${RKINC[@]}" \
       -c "$SRC/tests/kcount/kcount_target.c" -o "$OBJ/kcount_target.o" ||
   ! "$CC" "${ARCH[@]}" "${LIBC[@]}" "${MEM[@]}" -Wl,--gc-sections -o "$OUT.tmp" \
       "$OBJ"/*.o "$OBJ"/cmsis/*.o "$OBJ"/rk/*.o; then
  echo "build-kcount.sh: the harness did not build" >&2
  exit 70
fi
if ! gcc -O2 -shared -fPIC -fvisibility=hidden -o "$(dirname "$OUT")/libicount.so" "$SRC/firmware/tools/icount.c"; then
  echo "build-kcount.sh: the QEMU plugin firmware/tools/icount.c did not build" >&2
  exit 70
fi
mv "$OUT.tmp" "$OUT"
