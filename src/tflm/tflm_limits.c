/*
** tflm_limits.c — the peak of a TFLM plan, the pairs where one kernel
** library limits an overlap another allows, and the friendly oracle
** (tflm_limits.h).
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tflm_limits.h"

void rip_tflm_peak_free(rip_tflm_peak *p)
{
    if (p) {
        free(p->live);
        free(p->live_size);
        memset(p, 0, sizeof *p);
    }
}

/* Is buffer b alive at scope s (a buffer used but never created counts from scope 0)? */
static bool alive_at(const rip_tflm_buf *b, int s)
{
    return b->last >= 0 && (b->first < 0 ? 0 : b->first) <= s && s <= b->last;
}

rip_status rip_tflm_peak_of(const rip_tflm_alloc *a, const int32_t *off, rip_tflm_peak *p, char err[RIP_ERR_LEN])
{
    memset(p, 0, sizeof *p);
    p->scope = -1;
    const size_t n = a->n;
    int64_t *fixed = malloc((n + 1) * sizeof *fixed), *x = malloc((n + 1) * sizeof *x), area;
    p->live = malloc((n + 1) * sizeof *p->live);
    p->live_size = malloc((n + 1) * sizeof *p->live_size);
    rip_status st = RIP_S_NOMEM;
    if (!fixed || !x || !p->live || !p->live_size) {
        snprintf(err, RIP_ERR_LEN, "tflm peak: out of memory");
        goto done;
    }
    for (size_t i = 0; i < n; i++)
        fixed[i] = off[a->buf[i].tensor];
    if ((st = rip_tflm_greedy(a, fixed, x, &area, err)) != RIP_OK)
        goto done;
    int64_t best_live = 0;
    for (int s = 0; s <= (int)a->n_ops; s++) {
        int64_t end = 0, live = 0;
        for (size_t i = 0; i < n; i++)
            if (alive_at(&a->buf[i], s)) {
                live += a->buf[i].size;
                if (x[i] + a->buf[i].size > end)
                    end = x[i] + a->buf[i].size;
            }
        if (end > p->end || (end == p->end && end > 0 && live > best_live))
            p->end = end, p->scope = s, best_live = live;
    }
    for (size_t i = 0; p->scope >= 0 && i < n; i++) {   /* the alive buffers, by offset (insertion) */
        if (!alive_at(&a->buf[i], p->scope))
            continue;
        size_t j = p->n_live++;
        for (; j > 0 && x[a->buf_of[p->live[j - 1]]] > x[i]; j--)
            p->live[j] = p->live[j - 1], p->live_size[j] = p->live_size[j - 1];
        p->live[j] = a->buf[i].tensor, p->live_size[j] = a->buf[i].size;
        p->live_bytes += a->buf[i].size;
    }
    st = RIP_OK;
done:
    free(fixed);
    free(x);
    if (st != RIP_OK)
        rip_tflm_peak_free(p);
    return st;
}

rip_status rip_tflm_limits(const rip_tfl_model *m, const rip_tflm_alloc *a, rip_tflm_lib lib, rip_tflm_lib other,
                           rip_tflm_limit **out, size_t *n, char err[RIP_ERR_LEN])
{
    const rip_tfl_subgraph *sg = &m->subgraphs[0];
    rip_tflm_lib libs[2] = {lib, other};
    rip_tflm_oracle or[2] = {{rip_tflm_gap_lib, &libs[0]}, {rip_tflm_gap_lib, &libs[1]}};
    size_t cap = 0;
    for (size_t o = 0; o < sg->n_operators; o++)
        cap += sg->operators[o].n_inputs;
    *n = 0;
    *out = malloc((cap + 1) * sizeof **out);
    if (!*out) {
        snprintf(err, RIP_ERR_LEN, "%s: out of memory", m->label);
        return RIP_S_NOMEM;
    }
    for (size_t o = 0, k = 0; rip_tflm_next_pair(m, a, &o, &k); k++) {
        const rip_tfl_operator *op = &sg->operators[o];
        int k_first;
        bool alias;
        int64_t g[2];
        for (int l = 0; l < 2; l++) {
            rip_status st = rip_tflm_op_rule(m, &or[l], o, op->inputs[k], &k_first, &alias, &g[l], err);
            if (st != RIP_OK) {
                free(*out);
                *out = NULL, *n = 0;
                return st;
            }
        }
        if (k_first != (int)k || alias || g[1] < 0 || (g[0] >= 0 && g[0] <= g[1]))
            continue;   /* once per input tensor; only where lib limits what other allows */
        (*out)[(*n)++] = (rip_tflm_limit){.op = o, .k = (int)k, .in = op->inputs[k], .out = op->outputs[0],
                                          .gap_lib = g[0], .gap_other = g[1]};
    }
    return RIP_OK;
}

rip_status rip_tflm_gap_friendly(void *ctx, const rip_tfl_model *m, size_t op, int k, int64_t *gap,
                                 char err[RIP_ERR_LEN])
{
    const rip_tflm_friendly *f = ctx;
    if (f == NULL) {
        snprintf(err, RIP_ERR_LEN, "tflm plan: no libraries given to the friendly oracle");
        return RIP_S_INTERNAL;
    }
    rip_status st = rip_tflm_overlap_gap(m, op, k, f->lib, gap, err);
    if (st != RIP_OK || (f->only >= 0 && (long)op != f->only))
        return st;
    int64_t g;
    if ((st = rip_tflm_overlap_gap(m, op, k, f->other, &g, err)) != RIP_OK)
        return st;
    if (g >= 0 && (*gap < 0 || g < *gap))
        *gap = g;
    return RIP_OK;
}
