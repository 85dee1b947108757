/*
** milp.c — the `milp` strategy: the paper's placement program (Sec. 4.3)
** solved with COIN-OR CBC through its C interface.
**
** Units.  Offsets are integer variables in units of U bytes, U the gcd of
** every tensor size rounded up to the alignment V and every gap (each a
** multiple of V, so U is one too and every offset is V-aligned).  This
** loses nothing: for fixed binaries the constraints are difference
** constraints x_b - x_a >= c with every c a multiple of U, whose least
** solution (longest paths from 0) is componentwise lowest, hence of lowest
** peak, and made of multiples of U.  The peak P is continuous, in the same units (P >= x_t + N_t / U).
**
** Variables.
**   x_t   integer, 0 <= U x_t <= UB - N_t           per tensor
**   P     continuous, LB / U <= P <= UB / U          the peak
**   z_ab  binary, 1: a lies below b                  per pair of tensors
**         whose lifetimes overlap -- only those, not all n(n-1)/2 pairs
**   d_i   binary, candidate i used in place          per candidate whose
**         input dies at its op and whose output is born there (others
**         could not share memory at all and get no variable)
**   r_i   binary, GAP candidate i runs with a shift   per GAP candidate
**         (fixed at 0 when the problem has no_shift: no start plan with a
**         shift is taken then either; rip_plan_check refuses one)
** The paper's encoding has 3 binaries on every one of the n(n-1)/2 pairs
** (3n(n-1)/2) plus 2 per candidate; here a pair costs one binary, and only
** pairs alive together have one (rip_plan n_binaries reports the count).
**
** Constraints (M: per row, the largest value its left side can take, from
** the variable bounds).
**   no overlap, pair (a, b):
**       x_a + s_a <= x_b + M (1 - z_ab) + M sum d_i
**       x_b + s_b <= x_a + M z_ab       + M sum d_i
**     s_t = ceil(N_t / U); the sums run over the candidates of that pair,
**     so a used candidate lifts its pair's disjunction and its rule holds
**     instead:
**   ALIAS i:      x_out = x_in                     if d_i (two big-M rows)
**   GAP i:        x_in - x_out >= gap / U          if d_i and not r_i
**                 x_out = x_in                     if r_i
**                 r_i <= d_i
**     and the shift block: for every other tensor T live at the op's step
**     the row "in below T" becomes x_in + s_in + (gap / U) r_i <= x_T + ...,
**     so [x_in, x_in + gap + N_in) is free of T, and P >= x_in + N_in / U +
**     (gap / U) r_i;
**   at most one used candidate per op output and per input tensor;
**   P >= x_t + N_t / U for every tensor.
** Objective: P + C sum_i (N_in(i) / U) r_i with C = 1e-4 (the paper's peak
** + C sum size_i r_i, divided by U).
**
** Valid inequality.  P >= rip_problem_lower_bound / U (a bound on the
** column): every plan's peak is at least the live-bytes bound, so this
** cuts no feasible point off; it only gives the LP relaxation, which is
** weak under big-M rows, the bound that lets CBC stop as soon as a plan
** reaches it.  Likewise UB, the MIP start's objective in bytes, bounds P
** and the offsets without excluding any plan at least as good as the
** start.
**
** MIP start.  The greedy strategies (tinyengine, which uses candidates,
** greedy-size, hill-climb with a short budget, naive) and, for problems
** without candidates, the exact search (exact.c, a quarter of the time
** limit, at most 30 s) are run until one reaches the lower bound, each
** plan checked with rip_plan_check() and compacted onto the U grid (the
** least solution for its binaries, which only lowers offsets); the best
** one is kept.  Where it misses the lower bound it is improved by a large-
** neighbourhood search with the same program: the tensors alive in a
** window of steps around a tensor that sets the peak are left free, all
** others held at the plan, and CBC minimises the highest top among the
** free ones (a few seconds per window); a result is kept when every free
** tensor ends below the peak, and a window that cannot gain is widened.
** The final plan becomes CBC's start for the whole program
** (Cbc_setMIPStartI with every integer column).  When it reaches the lower
** bound with no shift, its objective equals the bound on P and nothing can
** be better: CBC is not run (the program is still built, for its size).  (On the Tab. 3
** and Tab. 7 graphs tinyengine misses the bound on a few models, e.g.
** MCUNet-in2/in3/VWW2 and the EfficientNetV2 stems; one or two windows of
** under ten free tensors close the gap, where CBC alone on the whole
** program takes minutes on EfficientNetV2-B3 and does not finish within
** 150 s on EfficientNetV2-M/L.)
**
** Result.  CBC's best solution is rounded and checked (if the check fails,
** e.g. numerically, it is compacted with its binaries and checked again;
** if it still fails, the start plan is returned).  plan->optimal: CBC
** proved optimality of the solution returned, or its peak equals the lower
** bound.
**
** Time.  opts.time_limit > 0 bounds the whole call in wall-clock time,
** measured from its entry: listing the pairs, each start heuristic (its
** own share, at most what remains; once time is up only naive runs, and
** only if nothing else gave a plan), the neighbourhood search (until half
** the limit), building the program and CBC (the rest).  CBC's own limit
** is not enough: it is not checked inside the root LP, which alone takes
** over a minute on 300 tensors alive together, so the child process CBC
** runs in (below) is killed at the deadline.  A plan found within the
** limit is returned, optimal only if CBC proved it or it meets the lower
** bound.  Without a limit the search gets 120 s and CBC has none.
** opts.verbose shows CBC's log (on its solver process's stdout) and a
** trace of the phases, one line at a time through opts.log (plan_log.h).
**
** Reproducible runs.  With opts.reproducible (every committed result: Tab.
** 3 and 7, Fig. 1, claims, codegen) no phase looks at the clock: the
** start heuristics run on their iteration and node budgets (hill-climb's
** own, exact MILP_EXACT_START_NODES), the neighbourhood search on
** MILP_LNS_WINDOWS windows of MILP_LNS_WINDOW_NODES CBC nodes, CBC on the
** whole program to its end (single-threaded CBC is deterministic), so the
** plan is the same on a fast machine and on a busy one.  opts.time_limit
** is then a safety net only: when it stops any phase the call fails
** (RIP_S_FAILED) instead of returning a plan that another machine would
** not find.
**
** Failures are not timeouts.  Every CBC run, with a limit or without,
** happens in a child process (milp_run.c): CBC's operator new throws
** std::bad_alloc when memory runs out, which no C caller can catch, so in
** ripsim itself it would abort the process.  A child stopped at the
** deadline is a timeout (the best plan so far, "not proven"); a child
** that dies, exits non-zero, sends a broken answer or cannot be started
** fails the whole call, as does running out of memory anywhere here (a
** start heuristic included): a plan made without the solver's answer is
** never passed off as its result.
**
** Returns RIP_OK, or a rip_status with err: RIP_S_DATA (more tensors or
** candidates than the program can index), RIP_S_NOMEM (out of memory, or
** the solver process failed: rip_milp_run), RIP_S_INTERNAL (no heuristic
** gave a valid plan, or the solver process sent a malformed answer).
**
** Files.  This file holds the entry (milp_solve), its fallback and the
** solve call; milp_compact.c the pair index and compaction, milp_start.c
** the start portfolio, milp_model.c the program and its solution,
** milp_lns.c the neighbourhood search (milp_internal.h: what they share).
**
** Packaging.  These files and milp_run.c alone link CBC (and through it
** Clp, LAPACK, gfortran, libstdc++: 22 shared libraries).  They are built
** as the shared module ripsim-milp.so, which milp_load.c opens the first
** time a plan needs it, so every other ripsim process starts without
** them.  Its one exported symbol is rip_milp_module (milp_module.h).
*/
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "milp_internal.h"
#include "milp_module.h"
#include "milp_run.h"
#include "plan.h"
#include "plan_log.h"
#include "status.h"
#include "strategies.h"

/* Contract: milp_internal.h. */
rip_status mp_solve(const mp_model *mm, bool verbose, double seconds, int max_nodes, double deadline,
                    rip_milp_answer *r, char err[RIP_ERR_LEN])
{
    const rip_milp_program pg = {
        .ncol = mm->ncol, .nrow = mm->nrow, .clb = mm->clb, .cub = mm->cub, .cobj = mm->cobj, .cint = mm->cint,
        .rlo = mm->rlo, .rhi = mm->rhi, .start = mm->mstart, .index = mm->mindex, .value = mm->mvalue,
        .nstart = mm->nstart, .start_idx = mm->start_idx, .start_val = mm->start_val, .name = mm->name,
        .verbose = verbose, .seconds = seconds, .max_nodes = max_nodes,
    };
    return rip_milp_run(&pg, deadline, r, err);
}
/* When time ran out before the program could even be set up: the naive
** plan (every tensor its own block), checked; not proven optimal unless it
** meets the lower bound. */
static rip_status mp_fallback(const rip_problem *p, const rip_plan_opts *o, rip_plan *out, char err[RIP_ERR_LEN])
{
    const rip_strategy *st = rip_strategy_by_name("naive");
    rip_plan *pl = st ? rip_plan_new(p, "naive") : NULL;
    rip_status rc = RIP_OK;
    char herr[RIP_ERR_LEN];
    if (!pl) {
        snprintf(err, RIP_ERR_LEN, st ? "out of memory" : "no naive strategy");
        return st ? RIP_S_NOMEM : RIP_S_INTERNAL;
    }
    rip_plan_opts ho = *o;
    ho.verbose = false;
    if (st->run(p, &ho, pl, herr) != 0 || pl->bound_only || rip_plan_check(p, pl, false, herr) != 0) {
        snprintf(err, RIP_ERR_LEN, "no plan within the time limit (%.400s)", herr);
        rc = RIP_S_INTERNAL;
    } else {
        mp_copy_plan(p, out, pl);
        out->optimal = out->peak <= out->lower_bound;
        if (o->verbose)
            rip_plan_log(o, "milp: the time limit passed while setting up the program; naive plan, peak %lld",
                    (long long)out->peak);
    }
    rip_plan_free(pl);
    return rc;
}

/*
** The whole program, started from the plan out (the best so far, of the
** start portfolio and the neighbourhood search, named start_src): built
** (out's program size), solved by CBC until deadline (CLOCK_MONOTONIC
** seconds, 0: none) unless the start already meets the lower bound, and
** CBC's solution kept in out when it checks and is no worse; out->optimal
** set.  cand is a scratch plan of the problem.  *clocked is set when the
** clock stopped CBC or left it no time.  Returns RIP_OK; RIP_S_NOMEM or a
** failed solver's status (mp_solve) with err.
*/
static rip_status mp_whole(const mp *m, const rip_plan_opts *o, double deadline, const char *start_src,
                           rip_plan *out, rip_plan *cand, bool *clocked, char err[RIP_ERR_LEN])
{
    const rip_problem *p = m->p;
    rip_status rc = RIP_OK;
    mp_model mm = {0};
    rip_milp_answer res = {0};
    double start_obj = mp_objective(p, out);
    int64_t ub = out->peak + (int64_t)(start_obj - (double)out->peak) + 1;
    if (mp_build(m, out, NULL, ub, out->lower_bound, &mm)) {
        rc = RIP_S_NOMEM;
        snprintf(err, RIP_ERR_LEN, "out of memory");
        goto end;
    }
    out->n_vars = mm.ncol;
    out->n_cons = mm.nrow;
    out->n_binaries = mm.nbin;
    double left = deadline > 0 ? deadline - mp_now() : 0;
    if (o->verbose)
        rip_plan_log(o, "milp: %s: %zu tensors, %zu candidates, U = %lld B, %d columns (%d binaries), %d rows "
                "(all-pairs encoding: %zu binaries); start %s peak %lld, lower bound %lld", p->name, p->n,
                p->n_cand, (long long)m->U, mm.ncol, mm.nbin, mm.nrow, 3 * p->n * (p->n - 1) / 2 + 2 * p->n_cand,
                start_src, (long long)out->peak, (long long)out->lower_bound);
    if (start_obj <= (double)out->lower_bound) {
        /* the start's objective is the column bound of P with no shift
        ** penalty: nothing is better, so CBC could only prove what the
        ** bound already does (it would, at the root, in tens of ms) */
        if (o->verbose)
            rip_plan_log(o, "milp: the start meets the lower bound without a shift: optimal, CBC not run");
    } else if (deadline > 0 && left <= 0.01) {
        *clocked = true;
        if (o->verbose)
            rip_plan_log(o, "milp: the time limit is used up; CBC not run, the start plan stands");
    } else {
        /* CBC's own limit ends it gracefully (it overruns a little); the
        ** deadline stops it where it does not look at the clock.  A
        ** reproducible run gives CBC no limit: it ends on its own, or the
        ** deadline stops it as a failure */
        double secs = deadline > 0 && !o->reproducible ? 0.9 * left : 0;
        if ((rc = mp_solve(&mm, o->verbose, secs, 0, deadline, &res, err)) != RIP_OK)
            goto end;
        *clocked |= !res.finished;
    }
    bool used_cbc = false;
    if (res.sol) {
        char cerr[RIP_ERR_LEN];
        int ex = mp_extract(m, &mm, out, res.sol, cand, cerr);
        if (ex < 0) {
            rc = RIP_S_NOMEM;
            snprintf(err, RIP_ERR_LEN, "out of memory");
            goto end;
        }
        if (ex == 0 && mp_objective(p, cand) <= mp_objective(p, out) + 1e-6) {
            mp_copy_plan(p, out, cand);
            used_cbc = true;
        } else if (ex > 0 && o->verbose) {
            rip_plan_log(o, "milp: CBC's solution fails the check (%s); keeping the start plan", cerr);
        }
    }
    out->optimal = (res.proven && used_cbc) || out->peak <= out->lower_bound;
    if (o->verbose && res.finished)
        rip_plan_log(o, "milp: CBC status %d/%d, %s, objective %.4f, best bound %.4f; peak %lld%s",
                res.status, res.secondary, res.proven ? "proven optimal" : "not proven", res.obj * (double)m->U,
                res.bound * (double)m->U, (long long)out->peak, used_cbc ? "" : " (start plan)");
    else if (o->verbose && start_obj > (double)out->lower_bound)
        rip_plan_log(o, "milp: CBC stopped at the time limit; peak %lld (start plan)", (long long)out->peak);

end:
    free(res.sol);
    mp_model_free(&mm);
    return rc;
}

/* The strategy (the rip_strategy_fn contract, strategies.h; this file's
** opening comment): the module's solve. */
static rip_status milp_solve(const rip_problem *p, const rip_plan_opts *o, rip_plan *out, char err[RIP_ERR_LEN])
{
    double t0 = mp_now();
    rip_plan_opts none = {0};
    if (!o)
        o = &none;
    /* the time limit bounds the whole call, from here: every phase below
    ** gets what remains of it */
    const double deadline = o->time_limit > 0 ? t0 + o->time_limit : 0;
    snprintf(out->strategy, sizeof out->strategy, "milp");
    out->lower_bound = rip_problem_lower_bound(p);
    out->optimal = false;
    out->n_vars = out->n_cons = out->n_binaries = 0;
    if (p->n == 0) {
        out->peak = 0;
        out->optimal = true;
        out->seconds = mp_now() - t0;
        return RIP_OK;
    }
    if (p->n > (size_t)INT32_MAX / 8 || p->n_cand > (size_t)INT32_MAX / 8) {
        snprintf(err, RIP_ERR_LEN, "problem too large");
        return RIP_S_DATA;
    }

    rip_status rc = RIP_OK;
    mp m;
    rip_plan *cand = NULL;
    char start_src[32] = "";
    bool clocked = false;   /* the clock stopped a phase (an error under opts.reproducible) */
    int init = mp_init(&m, p, deadline);
    if (init < 0 || !(cand = rip_plan_new(p, "milp"))) {
        rc = RIP_S_NOMEM;
        snprintf(err, RIP_ERR_LEN, "out of memory");
        goto done;
    }
    if (init > 0) {
        /* time ran out listing the pairs alive together: the plan of the
        ** only heuristic that needs no time, not proven */
        clocked = true;
        rc = mp_fallback(p, o, out, err);
        goto done;
    }
    rc = mp_start(&m, o, deadline, out, start_src, sizeof start_src, &clocked, err);
    if (rc)
        goto done;

    /* improve the start where it misses the bound: at most half the limit
    ** (reproducible: its budget of windows, the deadline a safety net) */
    if (out->peak > out->lower_bound && (deadline == 0 || mp_now() < deadline)) {
        double lns_end = o->reproducible ? deadline : o->time_limit > 0 ? t0 + 0.5 * o->time_limit : t0 + 120;
        int64_t before = out->peak;
        if ((rc = mp_lns(&m, o, out, lns_end, &clocked, err)) != RIP_OK)
            goto done;
        if (out->peak < before)
            snprintf(start_src + strlen(start_src), sizeof start_src - strlen(start_src), "+lns");
    }

    /* the whole program, started from the best plan so far */
    rc = mp_whole(&m, o, deadline, start_src, out, cand, &clocked, err);

done:
    if (rc == RIP_OK && clocked && o->reproducible) {
        rc = RIP_S_FAILED;
        snprintf(err, RIP_ERR_LEN,
                 "the time limit of %g s ran out before the search ended; a plan cut short by "
                 "the clock would depend on the machine's speed (raise the time limit)", o->time_limit);
    }
    rip_plan_free(cand);
    mp_free(&m);
    out->seconds = mp_now() - t0;
    return rc;
}

/* The module's entry, checked by milp_load.c before use. */
__attribute__((visibility("default"))) const rip_milp_module_info rip_milp_module = {
    .abi = RIP_MILP_MODULE_ABI,
    .version = RIPSIM_VERSION,
    .problem_size = sizeof(rip_problem),
    .plan_size = sizeof(rip_plan),
    .opts_size = sizeof(rip_plan_opts),
    .solve = milp_solve,
};
