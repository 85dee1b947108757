#!/bin/sh
# new-category.sh — follow the README's checklist for a new generator
# category, word for word, on a copy of the tree (issue 23 item 6).
#
# usage: tests/new-category.sh SRC DIR
#   SRC  the source tree (its README.md holds the checklist)
#   DIR  an empty folder: the copy goes to DIR/tree, the checklist's
#        commands run there (their output in DIR/checklist.log), and the
#        sweep they end with is DIR/tree/new-category.db
# The checklist is the first ```sh block after the heading
# "### Adding a generator category" of README.md; nothing else of it is
# assumed here.  Exit: 0 the checklist ran, 64 usage, 65 no checklist
# found, 1 a command of the checklist failed (the log says which).
set -eu

if [ $# -ne 2 ]; then
    echo "usage: new-category.sh SRC DIR" >&2
    exit 64
fi
src=$1
dir=$2

block=$(awk '
    /^### Adding a generator category/ { in_section = 1; next }
    in_section && /^##/ { exit }
    in_section && /^```sh$/ { in_block = 1; next }
    in_block && /^```$/ { exit }
    in_block { print }
' "$src/README.md")
if [ -z "$block" ]; then
    echo "new-category.sh: no sh block under '### Adding a generator category' in $src/README.md" >&2
    exit 65
fi

# the tree as a fresh clone has it: the tracked files, or (outside git)
# everything but build folders and databases
mkdir -p "$dir/tree"
if git -C "$src" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    git -C "$src" ls-files -z | (cd "$src" && xargs -0 cp --parents -t "$dir/tree")
else
    (cd "$src" && tar --exclude='./build*' --exclude='*.db' -cf - .) | (cd "$dir/tree" && tar -xf -)
fi

printf '%s\n' "$block" > "$dir/checklist.sh"
cd "$dir/tree"
# a user's shell: none of the caller's environment (a Criterion test that
# runs this passes its workers' variables, which a nested Criterion test
# binary would take for its own)
clean() { env -i PATH="$PATH" HOME="${HOME:-/tmp}" LANG=C.UTF-8 "$@"; }
clean meson setup build >"$dir/setup.log" 2>&1 || { cat "$dir/setup.log" >&2; exit 1; }
if ! clean sh -eux "$dir/checklist.sh" >"$dir/checklist.log" 2>&1; then
    echo "new-category.sh: the checklist failed; the end of $dir/checklist.log:" >&2
    tail -n 30 "$dir/checklist.log" >&2
    exit 1
fi
