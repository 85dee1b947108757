/*
** kernel_trace.c — the trace engine of kernel_order.h: a kernel's real
** read/write stream run at a gap d.
**
** Passes over the generator's stream (each pass calls the generator once
** and numbers its events 0, 1, ...):
**   build   last[i] = the last event reading input scalar i (-1: never
**           read), and the stream's shape checked (writes inside the
**           output);
**   run(d)  every written scalar j: input scalar i = j - d, in range and
**           last[i] > this event: a corruption (the first one ends the run);
**   bound   the smallest live input index p(e) = min{i : last[i] > e} only
**           grows along the stream (the live set only shrinks), so one
**           pointer gives it; a write of j at e fails exactly for
**           d = j - i with i live, the largest being j - p(e).
** The cost of a pass is the scalars its events name: reads for build,
** writes for run and bound (the bound moves its pointer over N_in once).
*/
#include "kernel_order.h"

#include <stdio.h>
#include <stdlib.h>

typedef enum { PASS_BUILD, PASS_RUN, PASS_BOUND } pass_kind;

struct rip_kt_sink {
    pass_kind pass;
    int64_t event;            /* ordinal of the event being emitted */
    int64_t n_in, n_out;
    int64_t *last;            /* build: written; run, bound: read */
    bool bad;                 /* build: a malformed event was seen */
    int64_t bad_event;
    /* run */
    int64_t d;
    bool failed;
    rip_kt_report rep;
    /* bound */
    int64_t p;                /* smallest input index whose last read is after this event */
    int64_t threshold;
};

struct rip_ktrace {
    rip_kt_kernel k;
    int64_t *last;
};

/* Contract (kernel_order.h): a read block; build records last reads, other passes only count it. */
void rip_kt_read(rip_kt_sink *s, int64_t start, int64_t len, int64_t count, int64_t stride)
{
    const int64_t e = s->event++;
    if (len < 1 || count < 1)
        return;
    if (s->pass != PASS_BUILD)
        return;
    for (int64_t r = 0; r < count; r++) {
        const int64_t a = start + r * stride;
        const int64_t lo = a < 0 ? 0 : a, hi = a + len > s->n_in ? s->n_in : a + len;
        for (int64_t i = lo; i < hi; i++)
            s->last[i] = e;
    }
}

/* One written run [a, a + len) at event e under the run pass. */
static void run_write(rip_kt_sink *s, int64_t e, int64_t a, int64_t len)
{
    for (int64_t j = a; j < a + len && !s->failed; j++) {
        const int64_t i = j - s->d;
        if (i >= 0 && i < s->n_in && s->last[i] > e) {
            s->failed = true;
            s->rep = (rip_kt_report){ e, j, i };
        }
    }
}

/* Contract (kernel_order.h): a write block, checked by the pass running. */
void rip_kt_write(rip_kt_sink *s, int64_t start, int64_t len, int64_t count, int64_t stride)
{
    const int64_t e = s->event++;
    if (len < 1 || count < 1)
        return;
    const int64_t first = start, far = start + (count - 1) * stride;
    const int64_t lo = first < far ? first : far, hi = (first < far ? far : first) + len - 1;
    switch (s->pass) {
    case PASS_BUILD:
        if ((lo < 0 || hi >= s->n_out) && !s->bad) {
            s->bad = true;
            s->bad_event = e;
        }
        break;
    case PASS_RUN:
        for (int64_t r = 0; r < count && !s->failed; r++)
            run_write(s, e, start + r * stride, len);
        break;
    case PASS_BOUND:
        while (s->p < s->n_in && s->last[s->p] <= e)
            s->p++;
        if (s->p < s->n_in && hi - s->p + 1 > s->threshold)
            s->threshold = hi - s->p + 1;
        break;
    }
}

/* Contract (kernel_order.h). */
rip_status rip_ktrace_new(const rip_kt_kernel *k, rip_ktrace **t, char err[RIP_ERR_LEN])
{
    *t = NULL;
    if (k == NULL || k->gen == NULL || k->n_in < 1 || k->n_out < 1) {
        snprintf(err, RIP_ERR_LEN, "kernel trace: no generator, or no input or output scalars");
        return RIP_S_DATA;
    }
    rip_ktrace *tr = malloc(sizeof *tr);
    int64_t *last = malloc((size_t)k->n_in * sizeof *last);
    if (tr == NULL || last == NULL) {
        free(tr);
        free(last);
        snprintf(err, RIP_ERR_LEN, "kernel trace: out of memory for %lld input scalars", (long long)k->n_in);
        return RIP_S_NOMEM;
    }
    for (int64_t i = 0; i < k->n_in; i++)
        last[i] = -1;
    rip_kt_sink s = { .pass = PASS_BUILD, .n_in = k->n_in, .n_out = k->n_out, .last = last };
    k->gen(k->ctx, &s);
    if (s.bad) {
        free(tr);
        free(last);
        snprintf(err, RIP_ERR_LEN, "kernel trace: event %lld writes outside the %lld output scalars",
                 (long long)s.bad_event, (long long)k->n_out);
        return RIP_S_DATA;
    }
    tr->k = *k;
    tr->last = last;
    *t = tr;
    return RIP_OK;
}

void rip_ktrace_free(rip_ktrace *t)
{
    if (t == NULL)
        return;
    free(t->last);
    free(t);
}

/* Contract (kernel_order.h). */
bool rip_ktrace_run(const rip_ktrace *t, int64_t d, rip_kt_report *rep)
{
    rip_kt_sink s = { .pass = PASS_RUN, .n_in = t->k.n_in, .n_out = t->k.n_out, .last = t->last, .d = d,
                      .rep = { -1, -1, -1 } };
    t->k.gen(t->k.ctx, &s);
    if (rep)
        *rep = s.rep;
    return !s.failed;
}

/* Contract (kernel_order.h). */
int64_t rip_ktrace_bound(const rip_ktrace *t)
{
    rip_kt_sink s = { .pass = PASS_BOUND, .n_in = t->k.n_in, .n_out = t->k.n_out, .last = t->last };
    t->k.gen(t->k.ctx, &s);
    return s.threshold;
}

/* Contract (kernel_order.h). */
rip_status rip_ktrace_gap(const rip_ktrace *t, int64_t *gap, char err[RIP_ERR_LEN])
{
    const int64_t g = rip_ktrace_bound(t);
    const bool at = rip_ktrace_run(t, g, NULL);
    const bool below = g > 0 && rip_ktrace_run(t, g - 1, NULL);
    if (!at || below || g > t->k.n_out) {
        snprintf(err, RIP_ERR_LEN, "kernel trace: the one-pass gap %lld is not confirmed by the runs "
                 "(at it: %s, one below: %s) (internal error)", (long long)g, at ? "completes" : "fails",
                 g == 0 ? "not run" : below ? "completes" : "fails");
        return RIP_S_INTERNAL;
    }
    *gap = g >= t->k.n_out ? -1 : g;
    return RIP_OK;
}

/* Contract (kernel_order.h). */
rip_status rip_kt_gap(const rip_kt_kernel *k, int64_t *gap, char err[RIP_ERR_LEN])
{
    rip_ktrace *t = NULL;
    rip_status st = rip_ktrace_new(k, &t, err);
    if (st == RIP_OK)
        st = rip_ktrace_gap(t, gap, err);
    rip_ktrace_free(t);
    return st;
}
