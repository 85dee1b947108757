#!/usr/bin/env bash
# real-models.sh — generate the real TFLite models of tests/tflm/cases.tsv
# (`ripsim codegen MODEL.tflite`, base and rip plan) with their sample
# inputs, for the QEMU images and the Pico links (./build.sh firmware).
#
#   firmware/tools/real-models.sh --gen GEN [--ripsim BIN] [--tflm TREE]
#       [--models DIR] [--work DIR]
#
# GEN/<case>/<plan>/ receives what `ripsim codegen` writes, the model named
# after its case (person, no_person, vww_96_int8, ...); GEN/inputs.tsv lists
# per case the model, how its input is given (--input or --input-f32) and
# the file.  The inputs are the TFLM peer's (tests/tflm/README.md): the
# same recipes, made by tests/tflm/peer_input.c (compiled here with cc into
# --work, default GEN/.work), a float32 sample of an int8 input quantized
# by ripsim (--input-f32, the peer's rule).
#   --ripsim  the ripsim binary (default build/ripsim of this checkout)
#   --tflm    the TensorFlow Lite Micro tree of the peer (the folder holding
#             tflite-micro/; default ../shared/vendor/tflite-micro beside
#             this checkout, the tests' meson option tflm_path)
#   --models  the models folder (default ../shared/vendor/models, the
#             meson option models_path)
# Without the TFLM tree or the models folder: one line on stderr, nothing
# generated, exit 77.  Exit 1 when a model fails to generate (ripsim's
# message above it), 64 bad arguments.  Every path may hold spaces.
set -euo pipefail
fw=$(cd "$(dirname "$0")/.." && pwd)
root=$(dirname "$fw")
gen='' ripsim=$root/build/ripsim tflm=$root/../shared/vendor/tflite-micro models=$root/../shared/vendor/models work=''
need_value() { [ "$#" -ge 2 ] || { echo "real-models.sh: $1 needs a value" >&2; exit 64; }; }
while [ "$#" -gt 0 ]; do
    case $1 in
    --gen) need_value "$@"; gen=$2; shift 2 ;;
    --ripsim) need_value "$@"; ripsim=$2; shift 2 ;;
    --tflm) need_value "$@"; tflm=$2; shift 2 ;;
    --models) need_value "$@"; models=$2; shift 2 ;;
    --work) need_value "$@"; work=$2; shift 2 ;;
    *) echo "real-models.sh: unknown argument: $1" >&2; exit 64 ;;
    esac
done
[ -n "$gen" ] || { echo "real-models.sh: --gen GEN is required" >&2; exit 64; }
[ -x "$ripsim" ] || { echo "real-models.sh: no ripsim binary at $ripsim (build first, or --ripsim)" >&2; exit 64; }
tree=$tflm/tflite-micro
if [ ! -d "$tree/tensorflow/lite/micro" ] || [ ! -d "$models" ]; then
    echo "real-models.sh: skipped: no TFLite Micro tree at $tflm or no models at $models: the real models are not generated" >&2
    exit 77
fi
tflm=$(cd "$tflm" && pwd) models=$(cd "$models" && pwd) tree=$tflm/tflite-micro
mkdir -p "$gen"
gen=$(cd "$gen" && pwd)
[ -n "$work" ] || work=$gen/.work
mkdir -p "$work"
cc=${CC:-cc}
if [ ! -x "$work/peer_input" ] || [ "$root/tests/tflm/peer_input.c" -nt "$work/peer_input" ]; then
    # shellcheck disable=SC2086  # CC may be a command with arguments
    $cc -std=c11 -O2 -Wall -Wextra -Werror -o "$work/peer_input" "$root/tests/tflm/peer_input.c"
fi

# path_of P: a cases.tsv path (tflm:X in the TFLM tree, else in the models folder).
path_of() { case $1 in tflm:*) echo "$tree/${1#tflm:}" ;; /*) echo "$1" ;; *) echo "$models/$1" ;; esac; }

manifest=$work/inputs.tsv.tmp
: >"$manifest"
n=0
while IFS=$'\t' read -r name model recipe; do
    case $name in ''|'#'*) continue ;; esac
    model=$(path_of "$model")
    read -r -a r <<<"$recipe"
    src=$work/$name.src opt=--input
    case ${r[0]} in
    bmp) src=$(path_of "${r[1]}") ;;
    carray)
        [ "${r[1]}" = f32 ] && opt=--input-f32
        "$work/peer_input" carray "${r[1]}" "$(path_of "${r[2]}")" "$src" ${r[3]:+"${r[3]}"} ;;
    head-f32) opt=--input-f32; "$work/peer_input" head "$(path_of "${r[1]}")" "${r[2]}" "$src" ;;
    seeded-i8) "$work/peer_input" seeded-i8 "${r[1]}" "${r[2]}" "$src" ;;
    seeded-f32) opt=--input-f32; "$work/peer_input" seeded-f32 "${r[1]}" "${r[2]}" "${r[3]}" "${r[4]}" "$src" ;;
    f32) opt=--input-f32; "$work/peer_input" f32 "$src" "${r[@]:1}" ;;
    *) echo "real-models.sh: tests/tflm/cases.tsv: $name: unknown input recipe ${r[0]}" >&2; exit 1 ;;
    esac
    for plan in base rip; do
        mkdir -p "$gen/$name"
        "$ripsim" codegen "$model" "$opt" "$src" --plan "$plan" --name "$name" --out "$gen/$name/$plan" >/dev/null ||
            { echo "real-models.sh: $name $plan: ripsim codegen failed" >&2; exit 1; }
        n=$((n + 1))
    done
    printf '%s\t%s\t%s\t%s\n' "$name" "$model" "$opt" "$src" >>"$manifest"
done <"$root/tests/tflm/cases.tsv"
mv "$manifest" "$gen/inputs.tsv"
echo "real-models.sh: generated $n models into $gen" >&2
