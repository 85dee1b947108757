/*
** place.c — the first-fit placer of place.h.
**
** Correctness of the walk: the list is sorted by offset and the candidate
** offset only grows (to the aligned end of each conflicting block met), so
** the first conflicting block starting at or beyond candidate + size
** leaves a hole that fits, and every conflicting block before it ends at
** or before the candidate.  Ties among equal offsets do not change the
** answer (the candidate is the maximum of the ends seen).
*/
#include "place.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

int rip_placer_init(rip_placer *pl, const rip_problem *p, int64_t *off)
{
    pl->p = p;
    pl->off = off;
    pl->n_placed = 0;
    pl->by_off = malloc((p->n ? p->n : 1) * sizeof *pl->by_off);
    return pl->by_off ? 0 : -1;
}

void rip_placer_free(rip_placer *pl)
{
    free(pl->by_off);
    pl->by_off = NULL;
    pl->n_placed = 0;
}

void rip_placer_reset(rip_placer *pl)
{
    pl->n_placed = 0;
}

int64_t rip_placer_first_fit(const rip_placer *pl, int t, int64_t size, int skip)
{
    const rip_tensor *tt = &pl->p->t[t];
    const int64_t align = pl->p->align >= 1 ? pl->p->align : 1;
    int64_t cand = 0;
    for (size_t j = 0; j < pl->n_placed; j++) {
        int u = pl->by_off[j];
        const rip_tensor *tu = &pl->p->t[u];
        if (u == skip || !rip_tensors_meet(tt, tu))
            continue;
        if (pl->off[u] >= cand + size)
            break;
        int64_t end = rip_align_up(pl->off[u] + tu->size, align);
        if (end > cand)
            cand = end;
    }
    return cand;
}

bool rip_placer_free_at(const rip_placer *pl, int t, int64_t x, int64_t size, int skip)
{
    const rip_tensor *tt = &pl->p->t[t];
    for (size_t j = 0; j < pl->n_placed; j++) {
        int u = pl->by_off[j];
        if (pl->off[u] >= x + size)
            break;
        if (u == skip || !rip_tensors_meet(tt, &pl->p->t[u]))
            continue;
        if (pl->off[u] + pl->p->t[u].size > x)
            return false;
    }
    return true;
}

void rip_placer_put(rip_placer *pl, int t, int64_t x)
{
    pl->off[t] = x;
    size_t lo = 0, hi = pl->n_placed; /* first position with offset > x */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (pl->off[pl->by_off[mid]] <= x)
            lo = mid + 1;
        else
            hi = mid;
    }
    memmove(pl->by_off + lo + 1, pl->by_off + lo, (pl->n_placed - lo) * sizeof *pl->by_off);
    pl->by_off[lo] = t;
    pl->n_placed++;
}

typedef struct off_pos {
    int64_t off;
    size_t pos;
    int t;
} off_pos;

static int cmp_off_pos(const void *a, const void *b)
{
    const off_pos *x = a, *y = b;
    if (x->off != y->off)
        return x->off < y->off ? -1 : 1;
    return (x->pos > y->pos) - (x->pos < y->pos);
}

void rip_placer_load_prefix(rip_placer *pl, const int *order, size_t start)
{
    pl->n_placed = 0;
    off_pos *v = malloc((start ? start : 1) * sizeof *v);
    if (v == NULL) { /* fall back to insertion, O(start^2) but no memory */
        for (size_t i = 0; i < start; i++)
            rip_placer_put(pl, order[i], pl->off[order[i]]);
        return;
    }
    for (size_t i = 0; i < start; i++)
        v[i] = (off_pos){pl->off[order[i]], i, order[i]};
    qsort(v, start, sizeof *v, cmp_off_pos);
    for (size_t i = 0; i < start; i++)
        pl->by_off[i] = v[i].t;
    pl->n_placed = start;
    free(v);
}

int64_t rip_placer_run(rip_placer *pl, const int *order, size_t n, size_t start)
{
    int64_t peak = 0;
    for (size_t i = 0; i < start; i++) {
        int64_t end = pl->off[order[i]] + pl->p->t[order[i]].size;
        if (end > peak)
            peak = end;
    }
    for (size_t i = start; i < n; i++) {
        int t = order[i];
        int64_t x = rip_placer_first_fit(pl, t, pl->p->t[t].size, -1);
        rip_placer_put(pl, t, x);
        if (x + pl->p->t[t].size > peak)
            peak = x + pl->p->t[t].size;
    }
    return peak;
}

double rip_plan_clock(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}
