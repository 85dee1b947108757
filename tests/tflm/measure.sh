#!/usr/bin/env bash
# measure.sh — TensorFlow Lite Micro's own figures for every case of the
# peer (tests/tflm/README.md), as one TSV on stdout: what results/
# real-models.md compares ripsim with (results/tflm-peer.tsv is this
# script's output, committed; the codegen_tflite suite runs it again and
# requires the same bytes).
#
#   tests/tflm/measure.sh PEER_DIR > results/tflm-peer.tsv
#
# PEER_DIR: what build-peer.sh made (build-tflm-peer/ after the tflm_peer
# suite ran): its cases.tsv and ref/tflm_peer.  Per case, one run of the
# reference-kernel peer on the case's input tensor bytes:
#   arena_used_bytes  TFLM's MicroInterpreter::arena_used_bytes()
#   output_bytes      all outputs' bytes, in the model's order
#   output_crc32      CRC-32/IEEE of those bytes concatenated (float32
#                     little-endian), what a generated model's checksum is
#   output_values     the outputs' values when their bytes are at most 16
#                     (int8 as integers, float32 with 9 digits), else -
#   operators         OP:COUNT in the order of first appearance
# The model column is the file's name.  Nothing here depends on the
# machine's speed (invoke times are not kept).  Exit 0, 64 usage, 66 no
# peer, 1 a run failed.
set -euo pipefail
[ "$#" -eq 1 ] || { echo "usage: tests/tflm/measure.sh PEER_DIR" >&2; exit 64; }
peer=$1
if [ ! -x "$peer/ref/tflm_peer" ] || [ ! -f "$peer/cases.tsv" ]; then
    echo "measure.sh: $peer: no ref/tflm_peer and cases.tsv (run tests/tflm/build-peer.sh)" >&2
    exit 66
fi
reports=$(mktemp)
trap 'rm -f "$reports"' EXIT
while IFS=$'\t' read -r name model input; do
    "$peer/ref/tflm_peer" "$model" --input "$input" --repeat 0 >"$reports.one" ||
        { echo "measure.sh: $name: the peer failed" >&2; rm -f "$reports.one"; exit 1; }
    { printf '%s\t' "$name"; tr -d '\n' <"$reports.one"; printf '\n'; } >>"$reports"
    rm -f "$reports.one"
done <"$peer/cases.tsv"
python3 - "$reports" <<'EOF'
import json, os, struct, sys, zlib
rows, commit, kernels = [], set(), set()
for line in open(sys.argv[1]):
    name, doc = line.rstrip("\n").split("\t", 1)
    r = json.loads(doc)
    commit.add(r["tflm_commit"])
    kernels.add(r["kernels"])
    out = b"".join(bytes.fromhex(o["hex"]) for o in r["outputs"])
    values = []
    for o in r["outputs"]:
        b = bytes.fromhex(o["hex"])
        if o["type"] == "FLOAT32":
            values += ["%.9g" % v for v in struct.unpack("<%df" % (len(b) // 4), b)]
        else:
            values += [str(v) for v in struct.unpack("%db" % len(b), b)]
    ops, order = {}, []
    for o in r["operators"]:
        if o["op"] not in ops:
            order.append(o["op"])
        ops[o["op"]] = ops.get(o["op"], 0) + 1
    rows.append([name, os.path.basename(r["model"]), str(r["arena_used_bytes"]), str(len(out)),
                 "%08x" % zlib.crc32(out), " ".join(values) if len(out) <= 16 else "-",
                 " ".join("%s:%d" % (op, ops[op]) for op in order)])
if len(commit) != 1 or len(kernels) != 1:
    sys.exit("measure.sh: the runs disagree on the TFLM commit or kernels")
print("# results/tflm-peer.tsv: TensorFlow Lite Micro's own figures for the real models, one run of")
print("# the peer per case of tests/tflm/cases.tsv on its input (tests/tflm/README.md).")
print("# tflm_commit %s, kernels %s; made by tests/tflm/measure.sh build-tflm-peer" % (commit.pop(), kernels.pop()))
print("\t".join(["case", "model", "arena_used_bytes", "output_bytes", "output_crc32", "output_values", "operators"]))
for r in rows:
    print("\t".join(r))
EOF
