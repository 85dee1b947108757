#!/bin/sh
# build-images.sh — build and run the QEMU images of one target and print
# one JSON line per image (tools/qemu-run.sh), sorted by image name.
#
#   firmware/tools/build-images.sh --target qemu-m0|qemu-m33
#       [--gen-dir GEN] [--build DIR] [--suite models|selftest|all]
#       [--no-icount] [--no-run]
#
# GEN: what `ripsim codegen` wrote, GEN/<model>/<plan>/{model.c,...}.
# DIR: the cross build folder (default build/firmware/TARGET under the
#   source tree); configured on first use, reconfigured whenever --gen-dir
#   is given (new model folders) or dropped.
# --suite: which images to report (default: models with --gen-dir,
#   otherwise selftest).
# --no-icount: run without the instruction counter (tools/icount.c, built
#   here with the host's gcc into DIR/libicount.so); --no-run: build only.
# An image too large for its board is a result (fits false), not an error:
# the build goes on (tools/link-image.sh).  Exit status: 0 when every image
# that fits ran and returned 0; 1 otherwise (the lines are all printed
# first); 2 when the build itself failed; 64 bad arguments (one line).
# Every path may hold spaces.
set -u
fw=$(cd "$(dirname "$0")/.." && pwd)
root=$(dirname "$fw")
target='' gen='' build='' suite='' icount=1 run=1
# need_value OPTION [VALUE...]: exit 64 unless OPTION has a value after it.
need_value() { [ "$#" -ge 2 ] || { echo "build-images.sh: $1 needs a value" >&2; exit 64; }; }
while [ "$#" -gt 0 ]; do
    case $1 in
    --target) need_value "$@"; target=$2; shift 2 ;;
    --gen-dir) need_value "$@"; gen=$2; shift 2 ;;
    --build) need_value "$@"; build=$2; shift 2 ;;
    --suite) need_value "$@"; suite=$2; shift 2 ;;
    --no-icount) icount=0; shift ;;
    --no-run) run=0; shift ;;
    *) echo "build-images.sh: unknown argument: $1" >&2; exit 64 ;;
    esac
done
case $target in
qemu-m0|qemu-m33) ;;
*) echo "build-images.sh: --target: qemu-m0 or qemu-m33 (got '$target')" >&2; exit 64 ;;
esac
[ -n "$suite" ] || { [ -n "$gen" ] && suite=models || suite=selftest; }
case $suite in models|selftest|all) ;; *) echo "build-images.sh: --suite: models, selftest or all" >&2; exit 64 ;; esac
if [ -n "$gen" ]; then
    [ -d "$gen" ] || { echo "build-images.sh: --gen-dir: $gen: no such folder" >&2; exit 64; }
    gen=$(cd "$gen" && pwd)
fi
[ -n "$build" ] || build=$root/build/firmware/$target

mkdir -p "$(dirname "$build")" || exit 2
# absolute: qemu-run.sh runs the images from another folder
build=$(cd "$(dirname "$build")" && pwd)/$(basename "$build")
if [ ! -f "$build/build.ninja" ]; then
    meson setup "$build" "$fw" --cross-file "$fw/cross/common.ini" --cross-file "$fw/cross/$target.ini" \
        -Dgen_dir="$gen" >"$build.setup.log" 2>&1 ||
        { cat "$build.setup.log" >&2; exit 2; }
elif [ -n "$gen" ] || [ "$(cat "$build/rk-gen-dir" 2>/dev/null)" != "$gen" ]; then
    # with GEN, always: the folder may hold new models since the last setup
    meson setup --reconfigure "$build" "$fw" -Dgen_dir="$gen" >"$build/setup.log" 2>&1 ||
        { cat "$build/setup.log" >&2; exit 2; }
fi
printf '%s\n' "$gen" >"$build/rk-gen-dir"
ninja -C "$build" >"$build/ninja.log" 2>&1 || { tail -n 40 "$build/ninja.log" >&2; exit 2; }
[ "$run" -eq 1 ] || exit 0

plugin=
if [ "$icount" -eq 1 ]; then
    plugin=$build/libicount.so
    if [ ! -f "$plugin" ] || [ -n "$(find "$fw/tools/icount.c" -newer "$plugin")" ]; then
        gcc -std=c11 -O2 -Wall -Wextra -Werror -shared -fPIC -fvisibility=hidden \
            -o "$plugin" "$fw/tools/icount.c" || exit 2
    fi
fi

# The tests meson registered are the qemu-run.sh commands; run them here,
# one at a time (steadier timings), with the plugin.
cmds=$(meson introspect --tests "$build" | python3 -c '
import json, shlex, sys
want = sys.argv[1]
for t in sorted(json.load(sys.stdin), key=lambda t: t["name"]):
    suites = [s.split(":")[-1] for s in t["suite"]]
    if want == "all" or want in suites:
        print(shlex.join(t["cmd"]))
' "$suite") || exit 2
rc=0
RK_ICOUNT_PLUGIN=$plugin
export RK_ICOUNT_PLUGIN
while IFS= read -r cmd; do
    [ -n "$cmd" ] || continue
    st=0
    (cd "$build" && eval "$cmd") || st=$?
    [ "$st" -eq 0 ] || [ "$st" -eq 77 ] || rc=1
done <<EOF
$cmds
EOF
exit "$rc"
