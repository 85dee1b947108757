/*
** compare.c — workspaces of one layer under each strategy (compare.h).
*/
#include "compare.h"

#include <stdio.h>
#include <string.h>

/* Index of a registry formula by name; the registry is fixed (formulas/registry.c). */
static int formula(const rip_eval *ev, const char *name)
{
    for (size_t i = 0; i < ev->n_formulas; i++)
        if (strcmp(ev->info[i].name, name) == 0)
            return (int)i;
    return -1;
}

int rip_compare_layer(const rip_layer *L, rip_engine engine, bool with_sim, rip_compare *c,
                      char err[RIP_ERR_LEN])
{
    memset(c, 0, sizeof *c);
    if (rip_evaluate(L, engine, with_sim, &c->ev, err) != 0)
        return -1;
    c->T = rip_layer_transpose(L);
    c->col_gap_formula = rip_thm4(&c->T, RIP_SIGMA_TAPS);
    c->col_gap_truth = -1;
    if (with_sim && rip_sim_truth(&c->T, RIP_CONFIG_PADDED_TAPS, engine, &c->col_gap_truth) != 0) {
        snprintf(err, RIP_ERR_LEN, "layer: out of memory simulating the column-major traversal");
        return -1;
    }

    const rip_eval *ev = &c->ev;
    int i_hb = formula(ev, "thm11"), i_rip = formula(ev, "thm4_taps");
    int i_dense = formula(ev, "thm13_taps"), i_naive = formula(ev, "naive_workspace");
    c->gap_padded = ev->value[i_rip];
    c->gap_dense = ev->defined[i_dense] ? ev->value[i_dense] : -1;
    c->w_naive = ev->value[i_naive];
    c->w_hb = L->n_in_padded + ev->value[i_hb];
    c->w_rip = L->n_in_padded + c->gap_padded;
    c->w_rip_col = L->n_in_padded + c->col_gap_formula;
    c->w_rip_best = c->w_rip < c->w_rip_col ? c->w_rip : c->w_rip_col;
    c->w_dense = c->gap_dense >= 0 ? L->n_in_dense + c->gap_dense : -1;

    c->ratio = (double)c->w_rip / (double)c->w_hb;
    c->ratio_best = (double)c->w_rip_best / (double)c->w_hb;
    c->save = 1.0 - (double)c->w_rip / (double)c->w_naive;
    c->dense = c->w_dense >= 0 ? 1.0 - (double)c->w_dense / (double)c->w_rip : 0.0;
    c->generalized = !rip_layer_is_restricted(L);

    if (with_sim) {
        for (size_t i = 0; i < ev->n_formulas; i++)
            c->n_disagree += ev->verdict[i] == RIP_UNSAFE || ev->verdict[i] == RIP_LOOSE;
        c->n_disagree += c->col_gap_formula != c->col_gap_truth;
    }
    return 0;
}
