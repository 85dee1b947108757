/*
** milp_compact.c — the milp strategy's index of a problem and its
** compaction (milp.c describes the strategy): the unit U and the pairs of
** tensors alive together with their usable candidates (mp_init), the least
** placement for a given orientation of every pair (mp_compact, which only
** ever lowers offsets), the orientation of a plan (mp_orient), and the
** small plan helpers the other files share.
*/
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "milp_internal.h"
#include "plan.h"

/* Contract: milp_internal.h. */
double mp_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int mp_find_pair(const mp *m, int a, int b)
{
    if (a > b) {
        int t = a;
        a = b;
        b = t;
    }
    for (int k = m->pair_start[a]; k < m->pair_start[a + 1]; k++)
        if (m->pair[k].b == b)
            return k;
    return -1;
}

static bool mp_live_at(const rip_tensor *t, int64_t step)
{
    return t->first <= step && step <= t->last;
}

/* Contract: milp_internal.h. */
void mp_free(mp *m)
{
    free(m->s);
    free(m->pair);
    free(m->pair_start);
    free(m->cand_pair);
    free(m->usable);
    free(m->shift_of);
    free(m->pc_start);
    free(m->pc);
}

/* 0, -1 out of memory, 1 the deadline (0: none) passed while listing the
** pairs (quadratic in the number of tensors).  mp_free(m) in every case. */
int mp_init(mp *m, const rip_problem *p, double deadline)
{
    memset(m, 0, sizeof *m);
    m->p = p;
    m->n = (int)p->n;
    int64_t V = p->align >= 1 ? p->align : 1;
    size_t n1 = p->n + 1, c1 = p->n_cand + 1;
    m->s = calloc(n1, sizeof *m->s);
    m->pair_start = calloc(n1 + 1, sizeof *m->pair_start);
    m->cand_pair = calloc(c1, sizeof *m->cand_pair);
    m->usable = calloc(c1, sizeof *m->usable);
    m->shift_of = calloc(n1, sizeof *m->shift_of);
    if (!m->s || !m->pair_start || !m->cand_pair || !m->usable || !m->shift_of)
        return -1;
    /* every element is a multiple of V, so their gcd is too */
    int64_t U = 0;
    for (int i = 0; i < m->n; i++)
        U = rip_gcd64(U, rip_align_up(p->t[i].size, V));
    for (size_t k = 0; k < p->n_cand; k++)
        if (p->cand[k].gap > 0)
            U = rip_gcd64(U, p->cand[k].gap);
    m->U = U > 0 ? U : V;
    for (int i = 0; i < m->n; i++) {
        m->s[i] = rip_align_up(p->t[i].size, V) / m->U;
        m->shift_of[i] = -1;
    }
    /* pairs alive together */
    size_t np = 0;
    for (int a = 0; a < m->n; a++) {
        if (deadline > 0 && (a & 63) == 0 && mp_now() > deadline)
            return 1;
        for (int b = a + 1; b < m->n; b++)
            if (rip_tensors_meet(&p->t[a], &p->t[b]))
                np++;
    }
    m->pair = malloc((np + 1) * sizeof *m->pair);
    if (!m->pair)
        return -1;
    np = 0;
    for (int a = 0; a < m->n; a++) {
        if (deadline > 0 && (a & 63) == 0 && mp_now() > deadline)
            return 1;
        m->pair_start[a] = (int)np;
        for (int b = a + 1; b < m->n; b++)
            if (rip_tensors_meet(&p->t[a], &p->t[b]))
                m->pair[np++] = (mp_pair){a, b};
    }
    m->pair_start[m->n] = (int)np;
    m->npair = (int)np;
    /* usable candidates: the input dies at the op and the output is born
    ** there (rip_plan_check requires it; otherwise the pair would share
    ** memory at other steps too) */
    for (size_t k = 0; k < p->n_cand; k++) {
        const rip_candidate *c = &p->cand[k];
        const rip_tensor *ti = &p->t[c->in], *to = &p->t[c->out];
        m->usable[k] = ti->last == c->op && to->first == c->op;
        m->cand_pair[k] = m->usable[k] ? mp_find_pair(m, c->in, c->out) : -1;
        if (m->cand_pair[k] < 0)
            m->usable[k] = false;
        if (m->usable[k] && c->kind == RIP_INPLACE_GAP && m->shift_of[c->in] < 0)
            m->shift_of[c->in] = (int)k;
    }
    m->pc_start = calloc((size_t)m->npair + 2, sizeof *m->pc_start);
    m->pc = malloc(c1 * sizeof *m->pc);
    if (!m->pc_start || !m->pc)
        return -1;
    for (size_t k = 0; k < p->n_cand; k++)
        if (m->usable[k])
            m->pc_start[m->cand_pair[k] + 1]++;
    for (int k = 0; k < m->npair; k++)
        m->pc_start[k + 1] += m->pc_start[k];
    for (size_t k = 0; k < p->n_cand; k++)   /* fill, then shift the starts back */
        if (m->usable[k])
            m->pc[m->pc_start[m->cand_pair[k]]++] = (int)k;
    for (int k = m->npair; k > 0; k--)
        m->pc_start[k] = m->pc_start[k - 1];
    m->pc_start[0] = 0;
    return 0;
}

/* Is candidate k, a used shift of input `in`, a reason for the row "in
** below t" to clear the shift block? (t live at the op, not the output) */
bool mp_blocks(const mp *m, int k, int t)
{
    const rip_candidate *c = &m->p->cand[k];
    return t != c->in && t != c->out && mp_live_at(&m->p->t[t], c->op);
}

static int mp_cmp_edge(const void *x, const void *y)
{
    const mp_edge *a = x, *b = y;
    return (a->key > b->key) - (a->key < b->key);
}
/* Contract: milp_internal.h.  Difference constraints relaxed in passes
** (Bellman-Ford, longest paths from 0), the edges ordered by their source's
** current offset so a plan's own order settles in few passes. */
int mp_compact(const mp *m, const bool *d, const bool *r, const bool *below, int64_t *off)
{
    const rip_problem *p = m->p;
    size_t cap = 2 * (size_t)m->npair + 2 * p->n_cand + 1;
    mp_edge *e = malloc(cap * sizeof *e);
    bool *lifted = calloc((size_t)m->npair + 1, sizeof *lifted);
    int64_t *x = calloc(p->n + 1, sizeof *x);
    if (!e || !lifted || !x) {
        free(e);
        free(lifted);
        free(x);
        return -1;
    }
    size_t ne = 0;
    for (size_t k = 0; k < p->n_cand; k++) {
        if (!m->usable[k] || !d[k])
            continue;
        const rip_candidate *c = &p->cand[k];
        lifted[m->cand_pair[k]] = true;
        if (c->kind == RIP_INPLACE_ALIAS || r[k]) {
            e[ne++] = (mp_edge){c->in, c->out, 0, off[c->in]};
            e[ne++] = (mp_edge){c->out, c->in, 0, off[c->out]};
        } else {
            e[ne++] = (mp_edge){c->out, c->in, c->gap, off[c->out]};
        }
    }
    for (int k = 0; k < m->npair; k++) {
        if (lifted[k])
            continue;
        int lo = below[k] ? m->pair[k].a : m->pair[k].b;
        int hi = below[k] ? m->pair[k].b : m->pair[k].a;
        int64_t c = m->s[lo] * m->U;
        int sk = m->shift_of[lo];
        if (sk >= 0 && d[sk] && r[sk] && mp_blocks(m, sk, hi))
            c += p->cand[sk].gap;
        e[ne++] = (mp_edge){lo, hi, c, off[lo]};
    }
    qsort(e, ne, sizeof *e, mp_cmp_edge);
    bool changed = true;
    int rc = 0;
    for (size_t pass = 0; changed; pass++) {
        if (pass > p->n + 1) {
            rc = 1;   /* a positive cycle: the orientation is inconsistent */
            break;
        }
        changed = false;
        for (size_t i = 0; i < ne; i++) {
            int64_t v = x[e[i].from] + e[i].c;
            if (v > x[e[i].to]) {
                x[e[i].to] = v;
                changed = true;
            }
        }
    }
    if (rc == 0)
        memcpy(off, x, p->n * sizeof *off);
    free(e);
    free(lifted);
    free(x);
    return rc;
}

/* Orientation of every pair from the offsets of a valid plan. */
void mp_orient(const mp *m, const int64_t *off, bool *below)
{
    for (int k = 0; k < m->npair; k++) {
        int a = m->pair[k].a, b = m->pair[k].b;
        below[k] = off[a] < off[b] || (off[a] == off[b] && a < b);
    }
}

/* Contract: milp_internal.h. */
double mp_objective(const rip_problem *p, const rip_plan *pl)
{
    double v = (double)pl->peak;
    for (size_t k = 0; k < p->n_cand; k++)
        if (pl->in_place[k] && pl->shift[k])
            v += MILP_SHIFT_C * (double)p->t[p->cand[k].in].size;
    return v;
}
/* Contract: milp_internal.h. */
void mp_copy_plan(const rip_problem *p, rip_plan *dst, const rip_plan *src)
{
    memcpy(dst->offset, src->offset, p->n * sizeof *dst->offset);
    if (p->n_cand) {
        memcpy(dst->in_place, src->in_place, p->n_cand * sizeof *dst->in_place);
        memcpy(dst->shift, src->shift, p->n_cand * sizeof *dst->shift);
    }
    dst->peak = src->peak;
}
