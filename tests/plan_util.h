/*
** plan_util.h — helpers shared by the files of the plan suite
** (tests/test_plan.c, plan_checker.c, plan_gaps.c): the suite's temporary
** folder (defined in test_plan.c), writing files there, planning and
** loading graphs.
*/
#ifndef RIPSIM_TEST_PLAN_UTIL_H
#define RIPSIM_TEST_PLAN_UTIL_H

#include <criterion/criterion.h>
#include <fcntl.h>
#include <sys/stat.h>

#include "plan/check_replay.h"
#include "plan/graph.h"
#include "data_path.h"
#include "plan/plan.h"

/* ---- helpers ---- */

extern char tmpdir[256];

/* Writes text to tmpdir/name; returns the path (one of 8 rotating buffers).
** Fails the test when the file cannot be written. */
static inline const char *write_file(const char *name, const char *text)
{
    static char paths[8][320];
    static int next;
    char *p = paths[next++ % 8];
    snprintf(p, 320, "%s/%s", tmpdir, name);
    FILE *f = fopen(p, "w");
    cr_assert_not_null(f, "cannot create %s", p);
    fputs(text, f);
    cr_assert_eq(fclose(f), 0);
    return p;
}


/* Run strategy `name` on p; the plan must pass the checker (simulate for
** graphs).  The caller frees the plan. */
static inline rip_plan *plan_with(const rip_problem *p, const char *name, uint64_t seed, bool simulate)
{
    const rip_strategy *s = rip_strategy_by_name(name);
    cr_assert_not_null(s, "strategy %s is registered", name);
    rip_plan *plan = rip_plan_new(p, s->name);
    cr_assert_not_null(plan);
    rip_plan_opts o = {.seed = seed};
    char err[RIP_ERR_LEN];
    int rc = rip_strategy_run(s, p, &o, plan, err);
    cr_assert_eq(rc, 0, "%s on %s: %s", name, p->name, err);
    if (!plan->bound_only) {
        int c = rip_plan_check(p, plan, simulate, err);
        cr_assert_eq(c, 0, "%s on %s: invalid plan: %s", name, p->name, err);
        cr_assert_geq(plan->peak, plan->lower_bound, "%s on %s: peak below the lower bound", name, p->name);
    }
    return plan;
}

/* Loads the graph CSV at path into the problem *p (RiP, in-place depthwise and
** alignment as given); fails the test with the loader's message on an error. */
static inline void load_graph(const char *path, bool rip, bool dw, int64_t align, rip_problem *p)
{
    char err[RIP_ERR_LEN];
    rip_graph g;
    int rc = rip_graph_load(path, &g, err);
    cr_assert_eq(rc, 0, "%s", err);
    rip_graph_opts o = {.rip = rip, .inplace_depthwise = dw, .sigma_taps = false, .align = align};
    rc = rip_problem_from_graph(&g, &o, p, err);
    rip_graph_free(&g);
    cr_assert_eq(rc, 0, "%s", err);
}

/* The integer after "key": in a JSON text, or fail. */
static inline long long json_int(const char *json, const char *key)
{
    char pat[64];
    snprintf(pat, sizeof pat, "\"%s\":", key);
    const char *s = strstr(json, pat);
    cr_assert_not_null(s, "no key %s in %s", key, json);
    return strtoll(s + strlen(pat), NULL, 10);
}

/* ---- graph -> problem ---- */

#define GHEAD "op_id,op,inputs,h_in,w_in,c_in,h_out,w_out,c_out,k_h,k_w,s_h,s_w,p_top,p_left,p_bottom,p_right,d_h,d_w,dtype_bytes\n"

/* ---- the checker on hand-made plans ---- */

/* Two tensors, both live at step 0: a [0,0] and b [0,1]. */
static inline void two_tensors(rip_problem *p, rip_tensor *t, int64_t sa, int64_t sb, int64_t align)
{
    memset(p, 0, sizeof *p);
    memset(t, 0, 2 * sizeof *t);
    snprintf(p->name, sizeof p->name, "hand");
    snprintf(t[0].id, sizeof t[0].id, "a");
    snprintf(t[1].id, sizeof t[1].id, "b");
    t[0].size = sa, t[0].first = 0, t[0].last = 0, t[0].producer_op = -1;
    t[1].size = sb, t[1].first = 0, t[1].last = 1, t[1].producer_op = 0;
    p->t = t;
    p->n = 2;
    p->n_steps = 2;
    p->align = align;
}

#endif
