/*
** plan_render.h — the renderings of a memory plan (plan.h) that `ripsim
** plan` shows: a readable table, one JSON object, ASCII and SVG pictures of
** memory over time, and the "check" line's text.
**
** Each renderer writes to the FILE* the caller gives (never opens or
** chooses a stream itself) and returns nothing: write errors are the
** caller's to find (ferror, or committing its output).  p and plan must
** belong together (plan made for p by rip_plan_new); none is modified.
*/
#ifndef RIPSIM_PLAN_RENDER_H
#define RIPSIM_PLAN_RENDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "plan.h"

/*
** The readable summary to f: problem, strategy, peak against the lower
** bound, in-place pairs, shifts, time (for milp the program's size), the
** check line check_note, then one row per tensor (offset, size, lifetime,
** in-place partner).  A bound-only plan stops after its peak and time.
** is_graph: p came from a graph or model (else an interval list).
*/
void rip_plan_render_table(FILE *f, const rip_problem *p, const rip_plan *plan, bool is_graph,
                           const char *check_note);

/*
** The plan as one JSON object and a newline to f (keys: problem, kind,
** strategy, peak_bytes, lower_bound_bytes, bound_only, optimal, seconds,
** optimal_by, align, n_tensors, n_steps, n_candidates, checked, n_vars,
** n_constraints, n_binaries, offsets, in_place, shifts, tensors).
** checked: whether rip_plan_check verified it.
*/
void rip_plan_render_json(FILE *f, const rip_problem *p, const rip_plan *plan, bool is_graph, bool checked);

/*
** An ASCII picture of memory to f, starting with a blank line: rows are
** address bands (at most 24), columns steps (at most 96), one letter per
** tensor, '.' free, '#' several; then a legend.  plan must be a placement
** (not bound_only).
*/
void rip_plan_render_ascii(FILE *f, const rip_problem *p, const rip_plan *plan);

/*
** A complete SVG document to f: x = steps, y = addresses growing upwards,
** one rectangle per tensor with its id, the peak and the lower bound as
** lines (drawn on the SVG canvas, svg.h).  plan must be a placement (not
** bound_only).  RIP_OK; RIP_S_INTERNAL for a coordinate that is not
** finite, RIP_S_IO for a failed write, with err.
*/
rip_status rip_plan_render_svg(FILE *f, const rip_problem *p, const rip_plan *plan, char err[RIP_ERR_LEN]);

/*
** What rip_plan_check verified, exactly (plan.h), into buf (n bytes,
** truncated to fit): placement always; per kind of used in-place pair, how
** its rule was established (simulated: the checker re-derived the gaps and
** replayed the aliases, as it does for graphs).
*/
void rip_plan_check_claim(char *buf, size_t n, const rip_problem *p, const rip_plan *plan, bool simulated);

#endif
