#!/usr/bin/env bash
# build-orders-m33.sh — builds the cmsis_orders_m33 suite's harness
# (tests/cmsis_m33/orders_m33.c) for QEMU's mps2-an505: the CMSIS-NN int8
# kernels that suite drives, compiled as the Cortex-M33 build of TFLM
# compiles them (tests/tflm/build-m33.sh: arm-none-eabi-gcc -mcpu=cortex-m33
# -mthumb -mfloat-abi=softfp, so the compiler defines __ARM_FEATURE_DSP and
# CMSIS-NN's arm_nn_math_types.h ARM_MATH_DSP; -O2), picolibc with
# semihosting as the project's other M33 images (firmware/cross/qemu-m33.ini).
# The memory map is not the Pico 2 budget of those images: a job of a real
# model's layer holds its input, output, filter and the overlapped buffer at
# once, so the code goes to the 4 MB ZBT SSRAM at 0x10000000 and the data,
# heap and a 64 KB stack to the 16 MB PSRAM at 0x80000000.
#
# usage: build-orders-m33.sh --cmsis DIR --src DIR --out FILE
# Writes FILE (an ELF) atomically, its objects in FILE.obj/.  Exit status: 0;
# 64 usage; 66 no CMSIS-NN tree; 69 no arm-none-eabi-gcc; 70 a compile or
# link failed (the compiler's messages on stderr).
set -euo pipefail

usage() {
  echo "usage: build-orders-m33.sh --cmsis DIR --src DIR --out FILE" >&2
  exit 64
}
CMSIS='' SRC='' OUT=''
while [ $# -gt 0 ]; do
  case $1 in
    --cmsis|--src|--out)
      if [ $# -lt 2 ]; then echo "build-orders-m33.sh: $1 needs a value" >&2; exit 64; fi
      case $1 in --cmsis) CMSIS=$2 ;; --src) SRC=$2 ;; --out) OUT=$2 ;; esac
      shift 2 ;;
    *) echo "build-orders-m33.sh: unknown argument $1" >&2; usage ;;
  esac
done
if [ -z "$CMSIS" ] || [ -z "$SRC" ] || [ -z "$OUT" ]; then usage; fi
if [ ! -f "$CMSIS/Include/arm_nnfunctions.h" ]; then
  echo "build-orders-m33.sh: no CMSIS-NN tree at $CMSIS" >&2
  exit 66
fi
CC=arm-none-eabi-gcc
if ! "$CC" --version > /dev/null 2>&1; then echo "build-orders-m33.sh: no $CC" >&2; exit 69; fi

ARCH=(-mcpu=cortex-m33 -mthumb -mfloat-abi=softfp)
LIBC=(--specs=picolibc.specs --oslib=semihost --crt0=semihost)
CFLAGS=(-std=c11 -O2 -ffunction-sections -fdata-sections "${ARCH[@]}" "${LIBC[@]}" "-I$CMSIS/Include")
MEM=(-Wl,--defsym=__flash=0x10000000 -Wl,--defsym=__flash_size=0x400000
     -Wl,--defsym=__ram=0x80000000 -Wl,--defsym=__ram_size=0x1000000 -Wl,--defsym=__stack_size=0x10000)
# The kernels the harness calls (cmsis_kernels.h) and what their DSP paths call.
S=$CMSIS/Source
NN=(ConvolutionFunctions/arm_convolve_wrapper_s8.c ConvolutionFunctions/arm_convolve_s8.c
    ConvolutionFunctions/arm_convolve_1x1_s8.c ConvolutionFunctions/arm_convolve_1x1_s8_fast.c
    ConvolutionFunctions/arm_convolve_1_x_n_s8.c ConvolutionFunctions/arm_convolve_get_buffer_sizes_s8.c
    ConvolutionFunctions/arm_nn_mat_mult_kernel_s8_s16.c ConvolutionFunctions/arm_nn_mat_mult_kernel_row_offset_s8_s16.c
    ConvolutionFunctions/arm_depthwise_conv_wrapper_s8.c ConvolutionFunctions/arm_depthwise_conv_s8.c
    ConvolutionFunctions/arm_depthwise_conv_3x3_s8.c ConvolutionFunctions/arm_depthwise_conv_s8_opt.c
    ConvolutionFunctions/arm_depthwise_conv_get_buffer_sizes_s8.c
    PoolingFunctions/arm_avgpool_s8.c PoolingFunctions/arm_avgpool_get_buffer_sizes_s8.c
    PoolingFunctions/arm_max_pool_s8.c BasicMathFunctions/arm_elementwise_add_s8.c PadFunctions/arm_pad_s8.c
    FullyConnectedFunctions/arm_fully_connected_s8.c FullyConnectedFunctions/arm_fully_connected_per_channel_s8.c
    FullyConnectedFunctions/arm_fully_connected_get_buffer_sizes_s8.c FullyConnectedFunctions/arm_vector_sum_s8.c
    NNSupportFunctions/arm_nn_mat_mult_nt_t_s8.c NNSupportFunctions/arm_nn_vec_mat_mult_t_s8.c
    NNSupportFunctions/arm_nn_vec_mat_mult_t_per_ch_s8.c NNSupportFunctions/arm_q7_to_q15_with_offset.c
    NNSupportFunctions/arm_s8_to_s16_unordered_with_offset.c)

OBJ=$OUT.obj
rm -rf "$OBJ" "$OUT" "$OUT.tmp"
mkdir -p "$OBJ"
srcs=()
for f in "${NN[@]}"; do srcs+=("$S/$f"); done
# Third-party code: its warnings are not ours (-w); the harness is built warning-free.
if ! (cd "$OBJ" && "$CC" "${CFLAGS[@]}" -w -c "${srcs[@]}") ||
   ! "$CC" "${CFLAGS[@]}" -Wall -Wextra -Werror "-I$SRC/tests" -c "$SRC/tests/cmsis_m33/orders_m33.c" \
       -o "$OBJ/orders_m33.o" ||
   ! "$CC" "${ARCH[@]}" "${LIBC[@]}" "${MEM[@]}" -Wl,--gc-sections -o "$OUT.tmp" "$OBJ"/*.o; then
  echo "build-orders-m33.sh: the harness did not build" >&2
  exit 70
fi
mv "$OUT.tmp" "$OUT"
