/*
** naive_workspace.c — the dual-buffer baseline: the padded
** input and the output held in disjoint buffers,
**   W_naive = H_p W_p C_in + H_out W_out C_out = N_in_padded + N_out.
** This is a workspace size in scalars, not a gap (is_workspace in the
** registry).
*/
#include "formulas.h"

/* Contract: L derived (its overflow bound makes the sum safe). */
int64_t rip_naive_workspace(const rip_layer *L)
{
    return L->n_in_padded + L->n_out;
}
