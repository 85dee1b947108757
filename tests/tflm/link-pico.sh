#!/usr/bin/env bash
# link-pico.sh — real links of each case's TensorFlow Lite Micro image
# (tests/tflm/tflm_m33.cc with the case's model and input, TFLM with its
# reference kernels, lib "ref", or its CMSIS-NN kernels, lib "cmsis") for the Raspberry Pi Pico (RP2040, Cortex-M0+) and the
# Pico 2 (RP2350, Cortex-M33), and what each takes besides the arena
# (tests/tflm/README.md, "Pico links").  Prints one TSV on stdout:
#   case  lib  board  ram_rest  flash
# ram_rest: the SRAM the linked image takes besides the TFLM arena array
# (.data, .tdata/.tbss, .bss, the 2 KB stack, their alignment; no heap:
# nothing in the image calls malloc, checked), so the image fits a board
# with an arena of A bytes exactly when ram_rest + A <= the board's SRAM;
# flash: the bytes the image places in flash (vector table, code,
# read-only data with the model and its input, the initial values of
# .data).  Each row is checked: linked with the arena array sized
# SRAM - ram_rest the image links, 16 bytes larger it overflows the RAM.
# Sizes only: nothing depends on the machine's speed, nor on the trees'
# paths (build-m33.sh maps them: -ffile-prefix-map).
#
# The link: picolibc's picolibc.ld (as build-m33.sh's QEMU images) with the
# board's memory map given by its defsyms, plus a small script of ours
# (written into OUT) inserting the arena array, a NOLOAD section between
# .bss and the stack, whose bounds are the __heap_start/__heap_end that
# tflm_m33.cc takes for its arena.  Memory maps (the SDK's memmap_default.ld
# address ranges; SRAM is one contiguous range with the two 4 KB scratch
# banks at its top):
#   pico   flash 0x10000100, 2 MB - 256 B (the first 256 B hold the RP2040's
#          second-stage boot loader); SRAM 0x20000000, 264 KB
#   pico2  flash 0x10000000, 4 MB; SRAM 0x20000000, 520 KB
# Not the pico-sdk's CMake build: TFLM is a C++17 library built by our
# scripts (build-m33.sh, one library per core); what the boards decide is
# their memory map, given here, and the SDK's runtime (its crt0, clocks,
# stdio) is not in these images.
#
# usage: link-pico.sh --tflm DIR --cmsis DIR --src DIR --cases FILE
#                     --m33 DIR --m0plus DIR --m33-ref DIR --m0plus-ref DIR
#                     --out DIR [BOARD...]
#   BOARD            pico, pico2 (default both; only their cores are built)
#   --m33, --m0plus  build-m33.sh's folders for each core, CMSIS-NN kernels
#                    (built, or reused, by build-m33.sh --cpu: the library
#                    and the harness, no images)
#   --m33-ref, --m0plus-ref  the same with --kernels reference
#   --out            the links (OUT/NAME-BOARD.elf and its .log)
#   --cases          name, model, input (build-peer.sh's cases.tsv)
# Exit status: 0; 64 usage; 66 a tree or file missing; 69 no cross
# compiler; 70 a build or link failed, or a row's check failed.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck disable=SC1091  # (the file beside this one)
source "$here/build-lib.sh"

usage() {
  echo "usage: link-pico.sh --tflm DIR --cmsis DIR --src DIR --cases FILE --m33 DIR --m0plus DIR" \
       "--m33-ref DIR --m0plus-ref DIR --out DIR [pico|pico2]..." >&2
  exit 64
}
TFLM='' CMSIS='' SRC='' CASES='' OUT='' BOARDS=()
declare -A DIR=()  # [BOARD-LIB]: build-m33.sh's folder
while [ $# -gt 0 ]; do
  case $1 in
    --tflm|--cmsis|--src|--cases|--out|--m33|--m0plus|--m33-ref|--m0plus-ref)
      if [ $# -lt 2 ]; then echo "link-pico.sh: $1 needs a value" >&2; exit 64; fi
      case $1 in
        --tflm) TFLM=$2 ;; --cmsis) CMSIS=$2 ;; --src) SRC=$2 ;; --cases) CASES=$2 ;; --out) OUT=$2 ;;
        --m33) DIR[pico2-cmsis]=$2 ;; --m0plus) DIR[pico-cmsis]=$2 ;;
        --m33-ref) DIR[pico2-ref]=$2 ;; --m0plus-ref) DIR[pico-ref]=$2 ;;
      esac
      shift 2 ;;
    pico|pico2) BOARDS+=("$1"); shift ;;
    *) usage ;;
  esac
done
if [ ${#BOARDS[@]} -eq 0 ]; then BOARDS=(pico pico2); fi
if [ -z "$TFLM" ] || [ -z "$CMSIS" ] || [ -z "$SRC" ] || [ -z "$CASES" ] || [ -z "$OUT" ] || [ ${#DIR[@]} -ne 4 ]; then
  usage
fi
if [ ! -r "$CASES" ]; then echo "link-pico.sh: $CASES: cannot read" >&2; exit 66; fi
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
CC=arm-none-eabi-gcc
LIBS=(ref cmsis)

# The libraries, one per core and kernels (no cases: only the library and
# the harness).
for board in "${BOARDS[@]}"; do
  for lib in "${LIBS[@]}"; do
    case $board in pico) cpu=cortex-m0plus ;; pico2) cpu=cortex-m33 ;; esac
    case $lib in ref) kernels=reference ;; cmsis) kernels=cmsis-nn ;; esac
    mkdir -p "${DIR[$board-$lib]}"
    DIR[$board-$lib]=$(cd "${DIR[$board-$lib]}" && pwd)
    bash "$here/build-m33.sh" --cpu "$cpu" --kernels "$kernels" --tflm "$TFLM" --cmsis "$CMSIS" --src "$SRC" \
      --cases /dev/null --out "${DIR[$board-$lib]}" >&2
  done
done

# The arena array: a section of its own (.tflm_arena, no bits) of SIZE
# bytes, which picolibc.ld does not name: ld places it with the RAM's other
# zeroed sections (the check below: right after .bss, before the stack).
# Its bounds are the __heap_start/__heap_end tflm_m33.cc takes for its
# arena (picolibc.ld only PROVIDEs them).
# arena_obj SIZE OBJ ARCH...
arena_obj() {
  local size=$1 obj=$2
  shift 2
  { printf '%s\n' '/* link-pico.sh: the TFLM arena array */' '  .section .tflm_arena, "aw", %nobits' \
      '  .balign 16' '  .global __heap_start, __heap_end' '__heap_start:'
    if [ "$size" -gt 0 ]; then echo "  .space $size"; fi
    echo '__heap_end:'; } | "$CC" "$@" -x assembler -c -o "$obj" -
}
# board_of BOARD: CPU FLASH FLASH_SIZE RAM_SIZE of the board.
board_of() {
  case $1 in
    pico) echo m0plus 0x10000100 $((2 * 1024 * 1024 - 256)) $((264 * 1024)) ;;
    pico2) echo m33 0x10000000 $((4 * 1024 * 1024)) $((520 * 1024)) ;;
  esac
}
RAM=0x20000000

# link BOARD LIB NAME ARENA ELF: the image of case NAME for BOARD and LIB
# with an arena of ARENA bytes; status 0 linked, 1 the RAM overflowed, 70
# another failure.
link() {
  local cpu flash fsize rsize arch d=${DIR[$1-$2]}
  read -r cpu flash fsize rsize <<< "$(board_of "$1")"
  shift
  case $cpu in
    m33) arch=(-mcpu=cortex-m33 -mthumb -mfloat-abi=softfp) ;;
    m0plus) arch=(-mcpu=cortex-m0plus -mthumb -mfloat-abi=soft) ;;
  esac
  arena_obj "$3" "$4.arena.o" "${arch[@]}"
  if "$CC" "${arch[@]}" --specs=picolibc.specs --oslib=semihost --crt0=semihost \
       "-Wl,--defsym=__flash=$flash" "-Wl,--defsym=__flash_size=$fsize" \
       "-Wl,--defsym=__ram=$RAM" "-Wl,--defsym=__ram_size=$rsize" \
       -Wl,--gc-sections \
       -o "$4" "$d/obj/project/tflm_m33.o" "$OUT/$2-$cpu.o" "$d/obj/project/rk_crc32.o" \
       "$d/obj/project/rk_markers.o" "$d/libtflm-$cpu.a" "$4.arena.o" -lm > "$4.log" 2>&1; then
    return 0
  fi
  if grep -q "region .ram. overflowed" "$4.log"; then return 1; fi
  cat "$4.log" >&2
  return 70
}

# sections ELF: one line per section, NAME SIZE VMA LMA FLAGS (hex as
# objdump prints them; FLAGS its second line, commas dropped).
sections() {
  arm-none-eabi-objdump -h "$1" | while read -r idx name size vma lma _; do
    case $idx in [0-9]*) ;; *) continue ;; esac
    read -r flags
    echo "$name $size $vma $lma ${flags//,/}"
  done
}

# section_end ELF NAME: the end address (VMA + size) of section NAME, decimal.
section_end() {
  local name size vma lma flags
  while read -r name size vma lma flags; do
    if [ "$name" = "$2" ]; then echo $((16#$vma + 16#$size)); fi
  done < <(sections "$1")
}

# section_start ELF NAME: the address (VMA) of section NAME, decimal.
section_start() {
  local name size vma lma flags
  while read -r name size vma lma flags; do
    if [ "$name" = "$2" ]; then echo $((16#$vma)); fi
  done < <(sections "$1")
}

# flash_used ELF FLASH: bytes from FLASH to the end of the last section
# loaded from flash (by its load address, LMA: .data's initial values too).
flash_used() {
  local name size vma lma flags end=$(($2))
  while read -r name size vma lma flags; do
    [[ " $flags " == *" LOAD "* ]] || continue
    if [ $((16#$lma)) -ge $(($2)) ] && [ $((16#$lma + 16#$size)) -gt "$end" ]; then end=$((16#$lma + 16#$size)); fi
  done < <(sections "$1")
  echo $((end - $2))
}

# row NAME MODEL INPUT LIB BOARD: the TSV row of case NAME for LIB on
# BOARD, after its checks (exit 70 when one fails).
row() {
  local name=$1 model=$2 input=$3 lib=$4 board=$5 cpu flash fsize rsize o e st rest used max
  read -r cpu flash fsize rsize <<< "$(board_of "$board")"
  o=$OUT/$name-$cpu.o
  if stale "$o" "$OUT/$name.S" "$model" "$input"; then
    case $cpu in
      m33) "$CC" -mcpu=cortex-m33 -mthumb -c "$OUT/$name.S" -o "$o" ;;
      m0plus) "$CC" -mcpu=cortex-m0plus -mthumb -c "$OUT/$name.S" -o "$o" ;;
    esac
  fi
  e=$OUT/$name-$lib-$board
  st=0
  # (a 16-byte arena, not none: the padding that aligns the array is RAM it costs)
  link "$board" "$lib" "$name" 16 "$e.elf" || st=$?
  if [ "$st" -ne 0 ]; then echo "link-pico.sh: $name $lib $board: the link with a 16-byte arena failed ($e.elf.log)" >&2; exit 70; fi
  if arm-none-eabi-nm "$e.elf" | grep -qw malloc; then
    echo "link-pico.sh: $name $lib $board: the image calls malloc (a heap would be RAM besides the arena)" >&2
    exit 70
  fi
  rest=$(( $(section_end "$e.elf" .stack) - RAM - 16 ))
  used=$(flash_used "$e.elf" "$flash")
  # The decomposition: the arena array SRAM - rest links, 16 B more overflows.
  max=$((rsize - rest))
  st=0
  link "$board" "$lib" "$name" "$max" "$e-max.elf" || st=$?
  if [ "$st" -ne 0 ]; then echo "link-pico.sh: $name $lib $board: an arena of $max B did not link ($e-max.elf.log)" >&2; exit 70; fi
  st=0
  link "$board" "$lib" "$name" $((max + 16)) "$e-over.elf" || st=$?
  if [ "$st" -ne 1 ]; then echo "link-pico.sh: $name $lib $board: an arena of $((max + 16)) B did not overflow the RAM" >&2; exit 70; fi
  # the array where the harness expects it: between .bss and the stack
  if [ "$(arm-none-eabi-nm "$e-max.elf" | sed -n 's/^\([0-9a-f]*\) B __heap_end$/\1/p')" != \
       "$(printf '%08x' "$(section_start "$e-max.elf" .stack)")" ]; then
    echo "link-pico.sh: $name $lib $board: the arena array does not end where the stack begins" >&2
    exit 70
  fi
  rm -f "$e-max.elf" "$e-over.elf"
  printf '%s\t%s\t%s\t%s\t%s\n' "$name" "$lib" "$board" "$rest" "$used"
}

commit=$(sed -n 's/^tflite-micro: *//p' "$TFLM/tflite-micro/PROVENANCE.txt" 2>/dev/null | head -1)
printf '%s\n' "# results/tflm-link.tsv: each case's TFLM image (tests/tflm/tflm_m33.cc, TFLM with reference or CMSIS-NN kernels)" \
  "# linked for the Pico 1 (RP2040, Cortex-M0+) and the Pico 2 (RP2350, Cortex-M33): ram_rest the SRAM" \
  "# besides the arena array, flash its flash bytes (tests/tflm/README.md, \"Pico links\")." \
  "# tflm_commit ${commit:-unknown}; $("$CC" --version | head -1); made by tests/tflm/link-pico.sh"
printf 'case\tlib\tboard\tram_rest\tflash\n'
while IFS=$'\t' read -r name model input; do
  case $name in ''|'#'*) continue ;; esac
  for f in "$model" "$input"; do
    if [ ! -r "$f" ]; then echo "link-pico.sh: $name: $f: cannot read" >&2; exit 66; fi
  done
  model_blob "$model" "$input" "$OUT/$name.S"
  for lib in "${LIBS[@]}"; do
    for board in "${BOARDS[@]}"; do row "$name" "$model" "$input" "$lib" "$board"; done
  done
done < "$CASES"
