#!/usr/bin/env bash
# measure-tflm.sh — what ripsim's exact plans save an unchanged TensorFlow
# Lite Micro, per case of the peer and kernel library, as one TSV on stdout
# (results/tflm.tsv is this script's output, committed; `ripsim tables
# tflm` renders results/tflm.md from it; the tflm_offline_peer suite runs
# it again and requires the same bytes).
#
#   tests/tflm/measure-tflm.sh PEER_DIR RIPSIM > results/tflm.tsv
#
# PEER_DIR: what build-peer.sh made (build-tflm-peer/): its cases.tsv, its
# variants and VARIANT/tflm_peer; RIPSIM: the ripsim binary.  Per case and
# variant (ref: tflm-reference, cmsis: tflm-cmsis-nn), three runs of that
# variant's peer on the case's input, each with --find-min-arena:
#   own       the model as it is (TFLM's own greedy plan);
#   no-overlap  `ripsim plan MODEL --for LIB --no-overlap --write` (only
#             RESHAPE outputs at their inputs' offsets);
#   rip       `ripsim plan MODEL --for LIB --write` (the overlaps LIB's
#             modelled kernel orders allow).
# The script fails (exit 1) when a planned run's outputs or any operator's
# output CRC differ from the own run's, when a planned model is not run on
# its offline plan, when a run at the smallest arena gives other outputs,
# when ripsim's predicted head (`arena head` of its plan: this plan's and
# TFLM's own) is not TFLM's measured one, or when TFLM's persistent tail
# (arena_used_bytes - head) differs between the three plans.
# Columns (bytes unless said):
#   case, lib (reference, cmsis-nn), model (the file's name)
#   tflm_arena, tflm_min_arena        the own run's arena_used_bytes and the
#                                     smallest arena AllocateTensors accepts
#   greedy_area                       ripsim's re-enactment of TFLM's greedy
#                                     plan: its tensor area
#   noov_area, noov_arena, noov_min_arena   the no-overlap plan's tensor area,
#                                     TFLM's arena_used_bytes and min arena
#   rip_area, rip_lower_bound, rip_arena, rip_min_arena   the same for the
#                                     overlapping plan, with its live-bytes bound
#   peak_op                           the rip plan's peak: OPERATOR:NAME (input:
#                                     before operator 0)
#   peak_end, peak_live               its end, and the tensors alive there,
#                                     TENSOR:SIZE by offset
#   friendly_area                     the tensor area with every operator at
#                                     the smaller of the two libraries' gaps
#   limits                            OP:NAME:K:GAP:OTHER_GAP:SAVED for every
#                                     operator where LIB's kernel forbids (GAP
#                                     -) or needs more than the other library's
#                                     allows; SAVED: the smaller gap there
#                                     alone; - when none
#   tflm_head, noov_head, rip_head    TFLM's arena head on each plan
#                                     (the peer's arena_head_bytes:
#                                     GetNonPersistentUsedBytes, the tensors
#                                     and the kernels' scratch buffers)
# Nothing here depends on the machine's speed.  Exit 0, 64 usage, 66 no
# peer or ripsim, 1 a run failed or differed.
set -euo pipefail
[ "$#" -eq 2 ] || { echo "usage: tests/tflm/measure-tflm.sh PEER_DIR RIPSIM" >&2; exit 64; }
peer=$1 ripsim=$2
if [ ! -f "$peer/cases.tsv" ] || [ ! -f "$peer/variants" ] || [ ! -x "$peer/ref/tflm_peer" ]; then
    echo "measure-tflm.sh: $peer: no cases.tsv, variants and ref/tflm_peer (run tests/tflm/build-peer.sh)" >&2
    exit 66
fi
[ -x "$ripsim" ] || { echo "measure-tflm.sh: $ripsim: not an executable ripsim" >&2; exit 66; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
: >"$work/runs"
while IFS=$'\t' read -r name model input; do
    while read -r var; do
        case $var in ref) lib=tflm-reference ;; cmsis) lib=tflm-cmsis-nn ;; *) continue ;; esac
        for kind in own noov rip; do
            m=$model
            if [ "$kind" != own ]; then
                m=$work/$kind.tflite
                flag=()
                [ "$kind" = noov ] && flag=(--no-overlap)
                [ "$kind" = rip ] && flag=(--limits)
                "$ripsim" plan "$model" --for "$lib" "${flag[@]}" --write "$m" >"$work/$kind.plan" ||
                    { echo "measure-tflm.sh: $name $lib: ripsim plan failed" >&2; exit 1; }
            fi
            "$peer/$var/tflm_peer" "$m" --input "$input" --find-min-arena --repeat 0 >"$work/$kind.json" ||
                { echo "measure-tflm.sh: $name $var $kind: the peer failed" >&2; exit 1; }
        done
        { printf '%s\t%s\t%s\t' "$name" "$lib" "$(basename "$model")"
          for f in own.json noov.json rip.json noov.plan rip.plan; do
              base64 -w0 <"$work/$f"; printf '\t'
          done; printf '\n'; } >>"$work/runs"
    done <"$peer/variants"
done <"$peer/cases.tsv"
python3 - "$work/runs" <<'PY'
import base64, json, re, sys

def num(s):
    return int(s.replace(",", ""))

def plan_figures(text):
    f = {}
    for key, pat in (("area", r"^tensor area  ([\d,]+) B"), ("greedy", r"^TFLM greedy  ([\d,]+) B"),
                     ("lower", r"^lower bound  ([\d,]+) B"), ("friendly", r"^friendly     ([\d,]+) B")):
        m = re.search(pat, text, re.M)
        f[key] = num(m.group(1)) if m else None
    m = re.search(r"^arena head   ([\d,]+) B with this plan, ([\d,]+) B with TFLM's own", text, re.M)
    if not m:
        sys.exit("measure-tflm.sh: no exact arena head line in ripsim's plan")
    f["head"], f["own_head"] = num(m.group(1)), num(m.group(2))
    m = re.search(r"^peak         (?:operator (\d+) \(([^)]*)\)|before operator 0), end ([\d,]+) B, \d+ tensors "
                  r"alive, [\d,]+ B:(.*)$", text, re.M)
    if not m:
        sys.exit("measure-tflm.sh: no peak line in ripsim's plan")
    f["peak_op"] = "%s:%s" % (m.group(1), m.group(2)) if m.group(1) else "input"
    f["peak_end"] = num(m.group(3))
    f["peak_live"] = " ".join("%s:%d" % (t, num(s)) for t, s in re.findall(r" (\d+) \(([\d,]+) B\)", m.group(4)))
    lim = []
    for op, name, k, g, other, saved in re.findall(
            r"^limited      operator (\d+) \(([^)]*)\) input (\d+): \S+ (none|[\d,]+ B), \S+ ([\d,]+) B, "
            r"the smaller alone saves ([\d,]+) B$", text, re.M):
        lim.append("%s:%s:%s:%s:%d:%d" % (op, name, k, "-" if g == "none" else num(g[:-2]), num(other), num(saved)))
    f["limits"] = " ".join(lim) if lim else "-"
    return f

def crcs(r):
    return [[o["crc32"] for o in op["outputs"]] for op in r["operators"]]

rows, commits = [], set()
for line in open(sys.argv[1]):
    name, lib, model, *blobs = line.rstrip("\n").split("\t")
    own, noov, rip = (json.loads(base64.b64decode(b)) for b in blobs[:3])
    pn, pr = (plan_figures(base64.b64decode(b).decode()) for b in blobs[3:5])
    for what, r in (("own", own), ("no-overlap", noov), ("rip", rip)):
        commits.add(r["tflm_commit"])
        if r["offline_memory_allocation"] != (what != "own"):
            sys.exit("measure-tflm.sh: %s %s %s: offline_memory_allocation is %s" %
                     (name, lib, what, r["offline_memory_allocation"]))
        if not r["min_arena_same_outputs"]:
            sys.exit("measure-tflm.sh: %s %s %s: other outputs at the smallest arena" % (name, lib, what))
        if what != "own" and ([o["hex"] for o in r["outputs"]] != [o["hex"] for o in own["outputs"]] or
                              crcs(r) != crcs(own)):
            sys.exit("measure-tflm.sh: %s %s %s: an output differs from TFLM's own plan" % (name, lib, what))
    for what, r, predicted in (("own", own, pr["own_head"]), ("own", own, pn["own_head"]),
                               ("no-overlap", noov, pn["head"]), ("rip", rip, pr["head"])):
        if r["arena_head_bytes"] != predicted:
            sys.exit("measure-tflm.sh: %s %s %s: ripsim predicts a head of %d B, TFLM's is %d B" %
                     (name, lib, what, predicted, r["arena_head_bytes"]))
    tails = {r["arena_used_bytes"] - r["arena_head_bytes"] for r in (own, noov, rip)}
    if len(tails) != 1:
        sys.exit("measure-tflm.sh: %s %s: TFLM's persistent tail differs between the plans: %s" %
                 (name, lib, sorted(tails)))
    rows.append([name, lib[5:], model, own["arena_used_bytes"], own["min_arena_bytes"], pr["greedy"],
                 pn["area"], noov["arena_used_bytes"], noov["min_arena_bytes"],
                 pr["area"], pr["lower"], rip["arena_used_bytes"], rip["min_arena_bytes"],
                 pr["peak_op"], pr["peak_end"], pr["peak_live"], pr["friendly"], pr["limits"],
                 own["arena_head_bytes"], noov["arena_head_bytes"], rip["arena_head_bytes"]])
if len(commits) != 1:
    sys.exit("measure-tflm.sh: the runs disagree on the TFLM commit")
print("# results/tflm.tsv: ripsim's exact plans run by an unchanged TensorFlow Lite Micro, per case of")
print("# tests/tflm/cases.tsv and kernel library (tests/tflm/measure-tflm.sh; every planned run's outputs")
print("# and operator outputs equal TFLM's own plan's).")
print("# tflm_commit %s; made by tests/tflm/measure-tflm.sh build-tflm-peer build/ripsim" % commits.pop())
print("\t".join(["case", "lib", "model", "tflm_arena", "tflm_min_arena", "greedy_area", "noov_area", "noov_arena",
                 "noov_min_arena", "rip_area", "rip_lower_bound", "rip_arena", "rip_min_arena", "peak_op", "peak_end",
                 "peak_live", "friendly_area", "limits", "tflm_head", "noov_head", "rip_head"]))
for r in rows:
    print("\t".join(str(v) for v in r))
PY
