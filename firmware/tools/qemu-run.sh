#!/bin/sh
# qemu-run.sh — run one QEMU image (firmware/meson.build) and print one JSON
# line about it:
#   {"model","plan","target","arena_bytes","ram_bytes","fits","ran","checksum",
#    "instructions","op_instructions","seconds"}
#
#   qemu-run.sh --target qemu-m0|qemu-m33 --elf IMAGE.elf [--link IMAGE.link]
#               [--model-json model.json | --model NAME --plan PLAN --arena BYTES]
#               [--plugin libicount.so] [--timeout SECONDS] [--expect-overflow]
#
# --link: the link verdict tools/link-image.sh wrote; "overflow" means the
#   image did not fit its board: fits false, nothing run, ram_bytes what the
#   image would have needed (the linker's memory table).
# ram_bytes of a linked image: its RAM extent, .data + .bss + stack (the end
#   of the last RAM section minus the RAM origin, from arm-none-eabi-size -A).
# --plugin (or $RK_ICOUNT_PLUGIN): count instructions with the TCG plugin
#   (tools/icount.c) between rk_mark_begin and rk_mark_end, and per operator;
#   without it "instructions" and "op_instructions" are null.
# Semihosting output goes to this script through a stdio chardev; the image
#   prints `model=... plan=... checksum=XXXXXXXX arena=N` and exits with its
#   status.  seconds: wall time of the QEMU run.
# Exit status: 0 the image ran and returned 0 (and, with a plugin, counts
#   came back; with a model.json holding "checksum", the generator's
#   reference logits' CRC, the image printed that checksum); 77 it did not fit (a result: meson shows the test as
#   skipped); 1 anything else (non-zero status, fault, timeout, no line);
#   64 bad arguments (one line).  --expect-overflow inverts the fit: 0 when
#   the link overflowed, 1 when the image fitted.  Every path may hold
#   spaces (and commas, doubled for QEMU's option parser).
set -u

target='' elf='' link='' mjson='' model='' plan='' arena='' reference='' timeout_s=${RK_QEMU_TIMEOUT:-120}
plugin=${RK_ICOUNT_PLUGIN:-} expect_over=0
# need_value OPTION [VALUE...]: exit 64 unless OPTION has a value after it.
need_value() { [ "$#" -ge 2 ] || { echo "qemu-run.sh: $1 needs a value" >&2; exit 64; }; }
while [ "$#" -gt 0 ]; do
    case $1 in
    --target) need_value "$@"; target=$2; shift 2 ;;
    --elf) need_value "$@"; elf=$2; shift 2 ;;
    --link) need_value "$@"; link=$2; shift 2 ;;
    --model-json) need_value "$@"; mjson=$2; shift 2 ;;
    --model) need_value "$@"; model=$2; shift 2 ;;
    --plan) need_value "$@"; plan=$2; shift 2 ;;
    --arena) need_value "$@"; arena=$2; shift 2 ;;
    --plugin) need_value "$@"; plugin=$2; shift 2 ;;
    --timeout) need_value "$@"; timeout_s=$2; shift 2 ;;
    --expect-overflow) expect_over=1; shift ;;
    *) echo "qemu-run.sh: unknown argument: $1" >&2; exit 64 ;;
    esac
done

# The machines (keep in step with exe_wrapper in firmware/cross/qemu-*.ini):
# the positional parameters, free after the parsing, become QEMU's
# machine arguments, one word each.
case $target in
qemu-m0)
    set -- -M microbit -global nrf51-soc.sram-size=0x42000 -global nrf51-soc.flash-size=0x200000
    ram_base=$((0x20000000)) ;;
qemu-m33)
    set -- -M mps2-an505
    ram_base=$((0x38000000)) ;;
*) echo "qemu-run.sh: --target: qemu-m0 or qemu-m33 (got '$target')" >&2; exit 64 ;;
esac
[ -n "$elf" ] || { echo "qemu-run.sh: --elf is required" >&2; exit 64; }

# A string field of model.json, e.g. "model": "MCUNet-in0".
json_str() { sed -n "s/.*\"$1\": *\"\\([^\"]*\\)\".*/\\1/p" "$mjson" | head -n 1; }
json_num() { sed -n "s/.*\"$1\": *\\([0-9][0-9]*\\).*/\\1/p" "$mjson" | head -n 1; }
if [ -n "$mjson" ]; then
    [ -r "$mjson" ] || { echo "qemu-run.sh: $mjson: cannot read" >&2; exit 64; }
    model=$(json_str model) plan=$(json_str plan) arena=$(json_num arena_bytes)
    reference=$(json_str checksum)
fi

tmp=$(mktemp -d) || exit 71
trap 'rm -rf "$tmp"' EXIT

q() { [ -n "$1" ] && printf '"%s"' "$1" || printf null; }
n() { [ -n "$1" ] && printf '%s' "$1" || printf null; }
emit() {   # fits ran checksum instructions ops ram seconds
    printf '{"model": %s, "plan": %s, "target": "%s", "arena_bytes": %s, "ram_bytes": %s, "fits": %s, "ran": %s, "checksum": %s, "instructions": %s, "op_instructions": %s, "seconds": %s}\n' \
        "$(q "$model")" "$(q "$plan")" "$target" "$(n "$arena")" "$(n "$6")" "$1" "$2" "$(q "$3")" \
        "$(n "$4")" "${5:-null}" "$(n "$7")"
}

# Did it fit?
if [ -n "$link" ]; then
    [ -r "$link" ] || { echo "qemu-run.sh: $link: cannot read" >&2; exit 64; }
    if [ "$(head -n 1 "$link")" = overflow ]; then
        # what it would need: the RAM region plus the overflow
        region=$(sed -n 's/^ram_region \([0-9]*\)$/\1/p' "$link")
        over=$(sed -n "s/.*region .ram' overflowed by \([0-9]*\) bytes.*/\1/p" "$link" | head -n 1)
        need=
        [ -n "$region" ] && [ -n "$over" ] && need=$((region + over))
        emit false false "" "" "" "$need" ""
        sed -n 's/.*\(region .* overflowed by [0-9]* bytes\).*/\1/p' "$link" |
            while IFS= read -r l; do printf 'qemu-run.sh: %s: %s\n' "$(basename "$elf")" "$l"; done >&2
        [ "$expect_over" -eq 1 ] && exit 0
        exit 77
    fi
fi
[ -s "$elf" ] || { echo "qemu-run.sh: $elf: no image" >&2; exit 1; }

# RAM extent from the section table (sections in the target's RAM window).
ram=$(arm-none-eabi-size -A -d "$elf" | awk -v base="$ram_base" '
    NF == 3 && $3 ~ /^[0-9]+$/ && $3 >= base && $3 < base + 16777216 && $1 != ".tbss" {
        if ($3 + $2 > top) top = $3 + $2 }
    END { if (top > 0) print top - base }')

# The plugin watches the three markers (Thumb bit cleared in the plugin).
# Its option is one QEMU word, key=value pairs (file= so that a path with
# "=" is still a path), the paths in it with their commas doubled.
qemu_esc() { printf '%s' "$1" | sed 's/,/,,/g'; }
if [ -n "$plugin" ]; then
    [ -r "$plugin" ] || { echo "qemu-run.sh: $plugin: no such plugin" >&2; exit 64; }
    addr() { arm-none-eabi-nm "$elf" | awk -v s="$1" '$3 == s { print "0x" $1 }' | head -n 1; }
    b=$(addr rk_mark_begin) e=$(addr rk_mark_end) o=$(addr rk_mark_op)
    if [ -z "$b" ] || [ -z "$e" ]; then
        echo "qemu-run.sh: $elf: no rk_mark_begin/rk_mark_end symbol" >&2
        exit 1
    fi
    set -- "$@" -plugin "file=$(qemu_esc "$plugin"),begin=$b,end=$e,op=${o:-0},out=$(qemu_esc "$tmp/icount")"
fi

start=$(date +%s.%N)
timeout "$timeout_s" qemu-system-arm "$@" -display none -monitor none -serial none \
    -chardev stdio,id=sh0 -semihosting-config enable=on,target=native,chardev=sh0 \
    -kernel "$elf" </dev/null >"$tmp/out" 2>"$tmp/err"
rc=$?
end=$(date +%s.%N)
secs=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.3f", b - a }')

line=$(grep -m 1 '^model=' "$tmp/out")
sum=$(printf '%s\n' "$line" | sed -n 's/.* checksum=\([0-9a-f]\{8\}\) .*/\1/p')
printed_arena=$(printf '%s\n' "$line" | sed -n 's/.* arena=\([0-9]*\)$/\1/p')
[ -z "$model" ] && model=$(printf '%s\n' "$line" | sed -n 's/^model=\([^ ]*\) .*/\1/p')
[ -z "$plan" ] && plan=$(printf '%s\n' "$line" | sed -n 's/.* plan=\([^ ]*\) .*/\1/p')
[ -z "$arena" ] && arena=$printed_arena

total='' ops=''
if [ -n "$plugin" ] && [ -s "$tmp/icount" ]; then
    # the first inference's line: "icount total=N ops=a,b,c"
    total=$(sed -n 's/^icount total=\([0-9]*\) .*/\1/p' "$tmp/icount" | head -n 1)
    ops="[$(sed -n 's/^icount total=[0-9]* ops=\([0-9,]*\)$/\1/p' "$tmp/icount" | head -n 1 | sed 's/,/, /g')]"
fi

if [ "$rc" -ne 0 ] || [ -z "$sum" ] || { [ -n "$arena" ] && [ -n "$printed_arena" ] && [ "$arena" != "$printed_arena" ]; }; then
    [ "$rc" -eq 124 ] && echo "qemu-run.sh: $(basename "$elf"): timed out after ${timeout_s} s" >&2
    [ "$rc" -ne 0 ] && [ "$rc" -ne 124 ] && echo "qemu-run.sh: $(basename "$elf"): exit status $rc" >&2
    [ -z "$sum" ] && echo "qemu-run.sh: $(basename "$elf"): no model= line" >&2
    [ -n "$printed_arena" ] && [ -n "$arena" ] && [ "$arena" != "$printed_arena" ] &&
        echo "qemu-run.sh: $(basename "$elf"): arena $printed_arena, expected $arena" >&2
    head -c 2000 "$tmp/err" >&2
    emit true false "" "" "" "$ram" "$secs"
    exit 1
fi
emit true true "$sum" "$total" "$ops" "$ram" "$secs"
if [ -n "$reference" ] && [ "$sum" != "$reference" ]; then
    echo "qemu-run.sh: $(basename "$elf"): checksum $sum, the generator's reference $reference" >&2
    exit 1
fi
[ "$expect_over" -eq 1 ] && { echo "qemu-run.sh: $(basename "$elf"): fitted, an overflow was expected" >&2; exit 1; }
if [ -n "$plugin" ] && [ -z "$total" ]; then
    echo "qemu-run.sh: $(basename "$elf"): the plugin wrote no count" >&2
    exit 1
fi
exit 0
