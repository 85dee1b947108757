/*
** milp_lns.c — the milp strategy's large-neighbourhood search (milp.c
** describes the strategy): the start plan improved window by window, each
** window's tensors re-solved by CBC with every other tensor held.
*/
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "milp_internal.h"
#include "plan.h"
#include "plan_log.h"
#include "status.h"

/* The top a tensor reaches in plan pl (its block, or its shift block). */
static int64_t mp_top(const mp *m, const rip_plan *pl, int t)
{
    int64_t top = pl->offset[t] + m->p->t[t].size;
    int k = m->shift_of[t];
    if (k >= 0 && pl->in_place[k] && pl->shift[k]) {
        int64_t b = pl->offset[t] + m->p->cand[k].gap + m->p->t[t].size;
        if (b > top)
            top = b;
    }
    return top;
}

static int mp_cmp_i64(const void *x, const void *y)
{
    int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
    return (a > b) - (a < b);
}

/* Index of v in the sorted array pts[0..n) (v is present). */
static int64_t mp_index(const int64_t *pts, int64_t n, int64_t v)
{
    int64_t lo = 0, hi = n - 1;
    while (lo < hi) {
        int64_t mid = (lo + hi) / 2;
        if (pts[mid] < v)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}
/*
** One window of the search: the tensors of free_ re-solved by CBC with
** every other tensor held at cur and cur's peak as the bound of every free
** top, for at most 5 s (reproducible: MILP_LNS_WINDOW_NODES nodes), the
** child stopped at deadline (0: none).  cand is a scratch plan.  The result
** goes into cur when every free tensor ends below cur's peak (*kept).
** *finished: CBC answered (else it was stopped and *clocked is set).
** Returns RIP_OK (*oom set when out of memory, err not set) or a failed
** solver's status with err (mp_solve).
*/
static rip_status mp_window(const mp *m, const rip_plan_opts *o, rip_plan *cur, const bool *free_, double deadline,
                            rip_plan *cand, bool *clocked, bool *kept, bool *finished, bool *oom,
                            char err[RIP_ERR_LEN])
{
    const rip_problem *p = m->p;
    *kept = *finished = false;
    mp_model mm;
    if (mp_build(m, cur, free_, cur->peak, 0, &mm)) {
        mp_model_free(&mm);
        *oom = true;
        return RIP_OK;
    }
    /* a window gets at most 5 s (reproducible: its node budget); the
    ** child is stopped at the deadline */
    double left = 0.8 * (deadline - mp_now());
    double secs = o->reproducible ? 0 : left < 5 ? (left > 0.01 ? left : 0.01) : 5;
    rip_milp_answer ans;
    rip_status rc = mp_solve(&mm, false, secs, o->reproducible ? MILP_LNS_WINDOW_NODES : 0, deadline, &ans, err);
    if (rc == RIP_OK && !ans.finished)
        *clocked = true;
    char cerr[RIP_ERR_LEN];
    int ex = rc == RIP_OK && ans.sol ? mp_extract(m, &mm, cur, ans.sol, cand, cerr) : 1;
    *oom = ex < 0;
    if (ex == 0) {
        int64_t local = 0;
        for (size_t t = 0; t < p->n; t++)
            if (free_[t]) {
                int64_t top = mp_top(m, cand, (int)t);
                if (top > local)
                    local = top;
            }
        if (local < cur->peak) {
            mp_copy_plan(p, cur, cand);
            *kept = true;
        }
    }
    *finished = rc == RIP_OK && ans.finished;
    free(ans.sol);
    mp_model_free(&mm);
    return rc;
}

/* Contract: milp_internal.h.
**
** Large-neighbourhood search on the start plan: free the tensors alive in
** a window of steps around a tensor that sets the peak, hold the rest, and
** let CBC minimise the highest top among the free ones; keep the result
** when every free tensor ends below the peak.  Each kept step removes at
** least one tensor from the peak, so the peak falls once none is left
** there.  A window that cannot improve is widened.  Stops at the lower
** bound, when the window covers every step, or at the deadline (a window
** whose solver is stopped there gains nothing).  Under opts.reproducible a
** window's CBC has MILP_LNS_WINDOW_NODES nodes instead of 5 s, the search
** MILP_LNS_WINDOWS windows, and the deadline (0: none) is only a safety
** net: *clocked is set when it stopped a window or the search.  Returns
** RIP_OK, or with err RIP_S_NOMEM (out of memory) or a failed solver's
** status (mp_solve).
*/
rip_status mp_lns(const mp *m, const rip_plan_opts *o, rip_plan *cur, double deadline, bool *clocked,
                  char err[RIP_ERR_LEN])
{
    const rip_problem *p = m->p;
    /* time is compressed to the distinct lifetime ends, so a window of w
    ** points means the same for graphs (consecutive steps) and for buffer
    ** lists (arbitrary times) */
    size_t np = 2 * p->n;
    int64_t *pts = malloc((np + 1) * sizeof *pts);
    int64_t *lo = malloc((p->n + 1) * sizeof *lo), *hi = malloc((p->n + 1) * sizeof *hi);
    int64_t *res = calloc(np + 1, sizeof *res);
    bool *free_ = malloc((p->n + 1) * sizeof *free_);
    int *hot = malloc((p->n + 1) * sizeof *hot);
    rip_plan *cand = rip_plan_new(p, "milp");
    rip_status rc = RIP_OK;
    bool oom = !pts || !lo || !hi || !res || !free_ || !hot || !cand;
    if (oom)
        goto out;
    for (size_t t = 0; t < p->n; t++) {
        pts[2 * t] = p->t[t].first;
        pts[2 * t + 1] = p->t[t].last;
    }
    qsort(pts, np, sizeof *pts, mp_cmp_i64);
    int64_t ns = 0;
    for (size_t i = 0; i < np; i++)
        if (ns == 0 || pts[ns - 1] != pts[i])
            pts[ns++] = pts[i];
    /* live bytes per point: where to centre a window */
    for (size_t t = 0; t < p->n; t++) {
        lo[t] = mp_index(pts, ns, p->t[t].first);
        hi[t] = mp_index(pts, ns, p->t[t].last);
        for (int64_t s = lo[t]; s <= hi[t]; s++)
            res[s] += p->t[t].size;
    }
    int64_t w = 2;
    size_t tried = 0;
    for (int windows = 0; cur->peak > cur->lower_bound; windows++) {
        if (deadline > 0 && mp_now() >= deadline) {
            *clocked = true;
            break;
        }
        if (o->reproducible && windows >= MILP_LNS_WINDOWS)
            break;
        size_t nh = 0;
        for (size_t t = 0; t < p->n; t++)
            if (mp_top(m, cur, (int)t) >= cur->peak)
                hot[nh++] = (int)t;
        if (nh == 0)
            break;
        if (tried >= nh) {
            tried = 0;
            if (w > ns)
                break;   /* the last window held every tensor */
            w *= 2;
        }
        int h = hot[tried % nh];
        int64_t centre = lo[h];
        for (int64_t s = lo[h]; s <= hi[h]; s++)
            if (res[s] > res[centre])
                centre = s;
        int64_t a = centre - w, b = centre + w;
        size_t nfree = 0;
        for (size_t t = 0; t < p->n; t++) {
            free_[t] = lo[t] <= b && a <= hi[t];
            nfree += free_[t];
        }
        bool kept, finished;
        rc = mp_window(m, o, cur, free_, deadline, cand, clocked, &kept, &finished, &oom, err);
        if (o->verbose && rc == RIP_OK && !oom)
            rip_plan_log(o, "milp: lns window of %lld points around tensor %s, %zu free: %s, peak %lld",
                    (long long)(2 * w + 1), p->t[h].id, nfree,
                    kept ? "improved" : finished ? "no gain" : "stopped at the deadline", (long long)cur->peak);
        if (rc != RIP_OK || oom)
            goto out;
        if (kept)
            tried = 0;
        else
            tried++;
    }
out:
    if (oom) {
        rc = RIP_S_NOMEM;
        snprintf(err, RIP_ERR_LEN, "out of memory");
    }
    free(pts);
    free(lo);
    free(hi);
    free(res);
    free(free_);
    free(hot);
    rip_plan_free(cand);
    return rc;
}
