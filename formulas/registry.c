/*
** registry.c — the table of closed forms, in the order of the README's
** table ("What is checked, and how"): name, place in the paper, the execution configuration it
** is judged against, whether it is a workspace rather than a gap, and an
** evaluator with the uniform signature bool (*)(const rip_layer *, int64_t *)
** that returns false when the formula is not defined on the layer.
** The always-defined forms (thm11, thm4, naive_workspace) are adapted by the
** small wrappers below.
*/
#include "formulas.h"

static bool eval_thm11(const rip_layer *L, int64_t *out)
{
    *out = rip_thm11(L);
    return true;
}

static bool eval_thm4_gather(const rip_layer *L, int64_t *out)
{
    *out = rip_thm4(L, RIP_SIGMA_GATHER);
    return true;
}

static bool eval_thm4_taps(const rip_layer *L, int64_t *out)
{
    *out = rip_thm4(L, RIP_SIGMA_TAPS);
    return true;
}

static bool eval_thm13_gather(const rip_layer *L, int64_t *out)
{
    return rip_thm13(L, RIP_SIGMA_GATHER, out);
}

static bool eval_thm13_taps(const rip_layer *L, int64_t *out)
{
    return rip_thm13(L, RIP_SIGMA_TAPS, out);
}

static bool eval_naive(const rip_layer *L, int64_t *out)
{
    *out = rip_naive_workspace(L);
    return true;
}

static const rip_formula_info table[] = {
    {"gm2019_eq1", "Eq. 1 (Gural & Murmann, as published)", "herringbone_taps", false, rip_gm2019_eq1},
    {"corollary1", "Corollary 1, Eqs. 2-3", "herringbone_taps", false, rip_corollary1},
    {"thm11", "Theorem 11, Eq. 38 and E.3", "herringbone_taps", false, eval_thm11},
    {"thm4_gather", "Theorem 4, sigma = 0", "rip_padded_gather", false, eval_thm4_gather},
    {"thm4_taps", "Theorem 4, sigma = C_out", "rip_padded_taps", false, eval_thm4_taps},
    {"thm13_gather", "Theorem 13, sigma = 0", "rip_dense_gather", false, eval_thm13_gather},
    {"thm13_taps", "Theorem 13, sigma = C_out", "rip_dense_taps", false, eval_thm13_taps},
    {"naive_workspace", "dual buffer, N_in_padded + N_out", NULL, true, eval_naive},
};

/* Contract: count non-NULL; returns the static table (never freed). */
const rip_formula_info *rip_formulas(size_t *count)
{
    *count = sizeof table / sizeof table[0];
    return table;
}
