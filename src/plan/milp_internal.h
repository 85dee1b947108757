/*
** milp_internal.h — what the files of the milp strategy share (milp.c,
** milp_compact.c, milp_start.c, milp_model.c, milp_lns.c): the pair index
** of a problem (mp), the program being assembled (mp_model), the budgets
** of a reproducible run and the functions one file calls in another.
** Private to the MILP module (ripsim-milp.so): every function here is
** hidden, so the module's one export stays rip_milp_module.  milp.c's
** opening comment describes the program and the strategy.
*/
#ifndef RIPSIM_PLAN_MILP_INTERNAL_H
#define RIPSIM_PLAN_MILP_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "milp_run.h"
#include "plan.h"
#include "status.h"

#define MP_HIDDEN __attribute__((visibility("hidden")))

/* C, the objective's weight per byte of a shifted input (milp.c, Objective). */
#define MILP_SHIFT_C 1e-4

/* The budgets of a reproducible run (opts.reproducible), in place of the
** clock: the exact start's search nodes, the neighbourhood search's
** windows and each window's CBC nodes.  On the Tab. 3 and Tab. 7 graphs
** the exact start ends within 1e6 nodes and a window within a few
** hundred CBC nodes; the search needs at most 7 windows per graph. */
#define MILP_EXACT_START_NODES 4000000ULL
#define MILP_LNS_WINDOWS 256
#define MILP_LNS_WINDOW_NODES 20000

typedef struct mp_pair {
    int a, b;          /* a < b */
} mp_pair;

/* One difference constraint x[to] >= x[from] + c (bytes), for compaction. */
typedef struct mp_edge {
    int from, to;
    int64_t c;
    int64_t key;       /* sort key: the source's current offset */
} mp_edge;

typedef struct mp {
    const rip_problem *p;
    int n;
    int64_t U;
    int64_t *s;        /* aligned size in units of U */
    mp_pair *pair;
    int npair;
    int *pair_start;   /* CSR by a: pairs (a, b) for b > a */
    int *cand_pair;    /* per candidate: its pair index, -1 if its pair does not meet */
    bool *usable;      /* per candidate */
    int *shift_of;     /* per tensor: the usable GAP candidate it is the input of, or -1 */
    int *pc_start, *pc;/* per pair: its usable candidates (CSR) */
} mp;

/* The program being assembled (milp_model.c: columns, rows as triplets,
** then packed by columns for Cbc_loadProblem). */
typedef struct mp_model {
    int *col_x;        /* per tensor; -1: fixed */
    int *col_z;        /* per pair; -1: both ends fixed (no rows) */
    int *col_d, *col_r;/* per candidate; -1: a constant (the fixed plan's) */
    int col_P;
    int ncol, nrow, nbin;
    double *xlo, *xhi; /* per tensor, units of U (fixed: both the value) */
    /* columns: bounds, objective, integrality */
    double *clb, *cub, *cobj;
    char *cint;
    size_t ccap;
    /* rows: bounds, and the matrix as (row, column, value) triplets */
    double *rlo, *rhi;
    size_t rcap;
    int *trow, *tcol;
    double *tval;
    size_t nnz, tcap;
    bool oom;          /* an append failed; the model is unusable */
    /* the matrix by columns (mp_pack), the MIP start (mp_set_start) */
    CoinBigIndex *mstart;
    int *mindex;
    double *mvalue;
    int *start_idx;
    double *start_val;
    int nstart;
    const char *name;
} mp_model;

/* ---- milp_compact.c: the pair index, compaction, plan helpers ---- */

/* CLOCK_MONOTONIC in seconds: the clock of every deadline here. */
MP_HIDDEN double mp_now(void);

/*
** Index problem p into m: U (the gcd unit), aligned sizes in units of U,
** the pairs of tensors alive together (CSR by the lower index), the usable
** candidates (input dies at the op, output born there) and each pair's
** candidates.  deadline: CLOCK_MONOTONIC seconds (0: none), looked at while
** listing the pairs (quadratic in the tensors).  Returns 0; -1 out of
** memory; 1 the deadline passed.  The caller calls mp_free(m) in every
** case.
*/
MP_HIDDEN int mp_init(mp *m, const rip_problem *p, double deadline);

/* Release what mp_init allocated in m (m itself is the caller's). */
MP_HIDDEN void mp_free(mp *m);

/* Does candidate k (a GAP candidate used with a shift) make the row "its
** input below tensor t" clear the shift block?  True when t is live at the
** candidate's op and is neither its input nor its output. */
MP_HIDDEN bool mp_blocks(const mp *m, int k, int t);

/*
** Compaction: given which candidates are used (d, r, per candidate) and,
** for every pair not lifted by a used candidate, which tensor lies below
** (below[k]: pair k's a below its b), set every offset to the least
** solution of the resulting difference constraints (bytes, multiples of
** U).  off[] (per tensor) holds the current offsets on entry (they only
** order the relaxation) and the result on return.  Returns 0; 1 the
** orientation is inconsistent (off unchanged); -1 out of memory (off
** unchanged).
*/
MP_HIDDEN int mp_compact(const mp *m, const bool *d, const bool *r, const bool *below, int64_t *off);

/* The orientation of every pair (below[k], per pair of m) from the offsets
** off of a valid plan: a below b when lower, ties by index. */
MP_HIDDEN void mp_orient(const mp *m, const int64_t *off, bool *below);

/* The program's objective of plan pl in bytes: its peak plus MILP_SHIFT_C
** times the size of every shifted input. */
MP_HIDDEN double mp_objective(const rip_problem *p, const rip_plan *pl);

/* Copy the placement of src (offsets, in-place and shift flags, peak) into
** dst; both plans of p. */
MP_HIDDEN void mp_copy_plan(const rip_problem *p, rip_plan *dst, const rip_plan *src);

/* ---- milp_start.c: the start portfolio ---- */

/*
** Run the start heuristics on m's problem with the options o (deadline:
** CLOCK_MONOTONIC seconds, 0: none) and put the best checked, compacted
** plan into best (its offsets, flags and peak; best->lower_bound must be
** set), its heuristic's name into src (srclen bytes).  *clocked is set
** when the deadline passed over a heuristic.  Returns RIP_OK; RIP_S_NOMEM
** when out of memory here or in a heuristic; RIP_S_INTERNAL when no
** heuristic gave a valid plan; err says which.
*/
MP_HIDDEN rip_status mp_start(const mp *m, const rip_plan_opts *o, double deadline, rip_plan *best, char *src,
                              size_t srclen, bool *clocked, char err[RIP_ERR_LEN]);

/* ---- milp_model.c: the program for CBC and its solution ---- */

/*
** Build into mm the program with the tensors of free_ (per tensor; NULL:
** all) as variables and every other tensor, and every candidate between
** two fixed tensors, held at the plan fix.  P bounds the tops of the free
** tensors (and their shift blocks) only; ub (bytes) bounds every free top,
** lb (bytes) is P's lower bound.  The MIP start is fix.  Returns 0, or -1
** out of memory; the caller frees mm with mp_model_free either way.
*/
MP_HIDDEN int mp_build(const mp *m, const rip_plan *fix, const bool *free_, int64_t ub, int64_t lb, mp_model *mm);

/* Release everything mm holds and zero it (a zeroed mm is fine). */
MP_HIDDEN void mp_model_free(mp_model *mm);

/*
** Read CBC's solution sol (mm->ncol values) of mm into cand, a plan of the
** whole problem (the parts mm holds fixed come from fix): rounded, checked
** (rip_plan_check without simulation) and, if the check fails, compacted
** with the solution's binaries and checked again.  Returns 0 for a valid
** plan in cand, 1 for none (why in cerr), -1 out of memory.
*/
MP_HIDDEN int mp_extract(const mp *m, const mp_model *mm, const rip_plan *fix, const double *sol, rip_plan *cand,
                         char cerr[RIP_ERR_LEN]);

/* ---- milp.c: the solve call ---- */

/*
** Solve mm with CBC in a child process (milp_run.c): CBC's log under
** verbose, its own time limit seconds (0: none) and node limit max_nodes
** (0: none), the child stopped at deadline (CLOCK_MONOTONIC seconds, 0:
** none).  rip_milp_run's contract: RIP_OK with r->finished false for a
** timeout; a failed solver is an error (RIP_S_NOMEM, RIP_S_INTERNAL with
** err), never a timeout.  r->sol is the caller's to free.
*/
MP_HIDDEN rip_status mp_solve(const mp_model *mm, bool verbose, double seconds, int max_nodes, double deadline,
                              rip_milp_answer *r, char err[RIP_ERR_LEN]);

/* ---- milp_lns.c: the neighbourhood search ---- */

/*
** Large-neighbourhood search from the plan cur (a valid plan of m's
** problem, improved in place): windows of steps around the tensors that
** set the peak are re-solved by CBC with everything else held, until the
** lower bound, a window covering every step, or deadline (CLOCK_MONOTONIC
** seconds, 0: none); under o->reproducible on a budget of windows and
** nodes.  *clocked is set when the deadline stopped a window or the
** search.  Returns RIP_OK (cur valid, never worse); RIP_S_NOMEM or a failed
** solver's status (mp_solve) with err.
*/
MP_HIDDEN rip_status mp_lns(const mp *m, const rip_plan_opts *o, rip_plan *cur, double deadline, bool *clocked,
                            char err[RIP_ERR_LEN]);

#endif
