/*
** place.h — first-fit placement shared by the greedy strategies (internal
** to src/plan/: naive, greedy-size, tinyengine and hill-climb use it).
**
** A placer keeps the tensors placed so far in ascending order of offset.
** First fit walks that list, skipping tensors whose lifetimes do not meet
** the new one, and returns the lowest offset (a multiple of the problem's
** alignment) whose gap to the next conflicting block is large enough:
** exactly TFLite Micro's GreedyMemoryPlanner inner loop
** (CalculateOffsetsIfNeeded: "gap = next_entry->offset - candidate_offset;
** if (gap >= wanted_size) break"), plus alignment.  O(placed) per query.
*/
#ifndef RIPSIM_PLAN_PLACE_H
#define RIPSIM_PLAN_PLACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "plan.h"

typedef struct rip_placer {
    const rip_problem *p;
    int64_t *off;      /* per tensor; valid for placed tensors (the caller's array) */
    int *by_off;       /* placed tensor indices, ascending offset, ties in insertion order */
    size_t n_placed;
} rip_placer;

/* Set up a placer writing offsets into off[p->n].  0, or -1 out of memory. */
int rip_placer_init(rip_placer *pl, const rip_problem *p, int64_t *off);
void rip_placer_free(rip_placer *pl);

/* Forget every placement (offsets stay in off[] but are no longer used). */
void rip_placer_reset(rip_placer *pl);

/* Lowest aligned offset where `size` bytes for tensor t overlap no placed
** tensor whose lifetime meets t's, ignoring tensor `skip` (-1: none). */
int64_t rip_placer_first_fit(const rip_placer *pl, int t, int64_t size, int skip);

/* Is [x, x + size) free of placed tensors meeting t in time, other than skip? */
bool rip_placer_free_at(const rip_placer *pl, int t, int64_t x, int64_t size, int skip);

/* Record tensor t at offset x. */
void rip_placer_put(rip_placer *pl, int t, int64_t x);

/* Make order[0..start) the placed set, at the offsets already in off[]
** (a prefix kept from an earlier run): O(start log start). */
void rip_placer_load_prefix(rip_placer *pl, const int *order, size_t start);

/* Place order[start..n) one by one at their first fit (after
** rip_placer_load_prefix(order, start)); returns the highest block end of
** all n placed tensors. */
int64_t rip_placer_run(rip_placer *pl, const int *order, size_t n, size_t start);

/* Strategy helper: monotonic wall-clock seconds. */
double rip_plan_clock(void);

#endif
