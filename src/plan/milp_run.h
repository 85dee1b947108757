/*
** milp_run.h — one CBC solve of an assembled program, in a child process
** (milp_run.c), for the milp strategy (milp.c).  Part of the MILP module
** (ripsim-milp.so) only.
**
** Why a child, always: CBC is C++, and its operator new throws
** std::bad_alloc when memory runs out (under `ulimit -v`, say); nothing on
** the C side can catch it, so it terminates the process (SIGABRT).  In a
** child that is a failure ripsim sees and reports; ripsim itself never
** runs CBC code, so it can never be aborted by it.  The child also lets a
** deadline stop CBC where CBC does not look at the clock (its root LP).
*/
#ifndef RIPSIM_PLAN_MILP_RUN_H
#define RIPSIM_PLAN_MILP_RUN_H

#include <stdbool.h>

#include <coin/Cbc_C_Interface.h>

#include "layer.h"    /* RIP_ERR_LEN */
#include "status.h"

/* The program as CBC's Cbc_loadProblem takes it, and how to solve it.  The
** arrays belong to the caller; the child reads them from its copy of the
** caller's memory (fork), so nothing is copied. */
typedef struct rip_milp_program {
    int ncol, nrow;
    const double *clb, *cub, *cobj;   /* per column: bounds, objective */
    const char *cint;                 /* per column: integer (1) or continuous (0) */
    const double *rlo, *rhi;          /* per row: bounds */
    const CoinBigIndex *start;        /* the matrix by columns: ncol + 1 starts, */
    const int *index;                 /* row indices */
    const double *value;              /* and values */
    int nstart;                       /* the MIP start: nstart (column, value) pairs */
    const int *start_idx;
    const double *start_val;
    const char *name;                 /* the problem's name, for CBC's log */
    bool verbose;                     /* CBC's log on stdout */
    double seconds;                   /* CBC's own time limit (wall clock); 0: none */
} rip_milp_program;

/* What CBC returned. */
typedef struct rip_milp_answer {
    bool finished;     /* CBC returned within the deadline (false: stopped, nothing else set) */
    bool proven;       /* CBC proved optimality of sol */
    int status, secondary;
    double obj, bound; /* CBC's objective and best bound */
    double *sol;       /* its best solution (ncol values), or NULL; the caller frees it */
} rip_milp_answer;

/*
** Solve pg with CBC in a child process and wait for its answer until
** deadline (CLOCK_MONOTONIC seconds, as milp.c's clock; 0: for ever).
** Returns RIP_OK with r->finished true (CBC's answer) or false (the
** deadline passed first: the child was stopped, which is a timeout, not a
** failure).  A solver that fails is an error, with one line in err naming
** what failed: RIP_S_NOMEM when the child could not be started (pipe,
** fork), was killed by a signal (std::bad_alloc ends in SIGABRT), exited
** non-zero, or its answer could not be read or held; RIP_S_INTERNAL when it
** exited 0 with a truncated or malformed answer.  r->sol is NULL unless
** RIP_OK.
*/
__attribute__((visibility("hidden"))) rip_status rip_milp_run(const rip_milp_program *pg, double deadline,
                                                              rip_milp_answer *r, char err[RIP_ERR_LEN]);

#endif
