/*
** compare.h — one layer's workspaces under dual buffering, herringbone and
** RiP, row-major and column-major (paper Sec. 5.3, Appendix H, Tab. 6).
**
** Following Sec. 5.3 the comparison reads taps from the workspace
** (sigma = C_out), the execution order herringbone's accounting assumes, and
** stores the padded input; the dense column uses Theorem 13 with the same
** sigma.  All workspaces are in scalars and come from the closed forms; the
** simulated truths that judge them ride along in `ev` (and col_truth_*), so
** that a table built from closed forms also says where they disagree.
*/
#ifndef RIPSIM_COMPARE_H
#define RIPSIM_COMPARE_H

#include "evaluate.h"

typedef struct rip_compare {
    rip_eval ev;              /* every formula and the seven truths (row-major) */
    rip_layer T;              /* the transposed layer: column-major traversal */
    int64_t col_gap_formula;  /* Theorem 4, sigma = C_out, on T */
    int64_t col_gap_truth;    /* simulated rip_padded_taps on T (-1 without sim) */

    int64_t w_naive;          /* N_in_padded + N_out */
    int64_t w_hb;             /* N_in_padded + Theorem 11 */
    int64_t w_rip;            /* N_in_padded + Theorem 4 (taps), row-major */
    int64_t w_rip_col;        /* N_in_padded + Theorem 4 (taps) on T, column-major */
    int64_t w_rip_best;       /* min(w_rip, w_rip_col) */
    int64_t w_dense;          /* N_in_dense + Theorem 13 (taps); -1 when undefined */
    int64_t gap_padded;       /* Theorem 4 (taps) */
    int64_t gap_dense;        /* Theorem 13 (taps); -1 when undefined */

    double ratio;             /* w_rip / w_hb */
    double ratio_best;        /* w_rip_best / w_hb */
    double save;              /* 1 - w_rip / w_naive */
    double dense;             /* 1 - w_dense / w_rip (0 when undefined) */
    bool generalized;         /* outside Gural & Murmann's restricted setting */
    int n_disagree;           /* judged formulas that are not tight, incl. column-major */
} rip_compare;

/*
** Fill *c for layer L (derived, channel-mixing).  with_sim false skips the
** simulator (truths -1, n_disagree 0).  Returns 0, or -1 with err when the
** layer is too large to simulate or memory runs out.
*/
int rip_compare_layer(const rip_layer *L, rip_engine engine, bool with_sim, rip_compare *c,
                      char err[RIP_ERR_LEN]);

#endif
