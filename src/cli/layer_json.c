/*
** layer_json.c — the JSON `layer` object (see layer_json.h).
*/
#include "layer_json.h"

#include "spec.h"

void rip_layer_json(FILE *out, const rip_layer *L)
{
    char spec[256];
    rip_spec_format(L, spec, sizeof spec);
    fprintf(out,
            "\"layer\":{\"cin\":%lld,\"cout\":%lld,\"h_in\":%lld,\"w_in\":%lld,"
            "\"k_h\":%lld,\"k_w\":%lld,\"s_h\":%lld,\"s_w\":%lld,\"d_h\":%lld,\"d_w\":%lld,"
            "\"p_h\":%lld,\"p_w\":%lld,\"h_out\":%lld,\"w_out\":%lld,"
            "\"p_top\":%lld,\"p_bottom\":%lld,\"p_left\":%lld,\"p_right\":%lld,"
            "\"keff_h\":%lld,\"keff_w\":%lld,\"h_p\":%lld,\"w_p\":%lld,\"restricted\":%s,"
            "\"n_in_padded\":%lld,\"n_in_dense\":%lld,\"n_out\":%lld,\"spec\":\"%s\"}",
            (long long)L->cin, (long long)L->cout, (long long)L->h_in, (long long)L->w_in,
            (long long)L->k_h, (long long)L->k_w, (long long)L->s_h, (long long)L->s_w,
            (long long)L->d_h, (long long)L->d_w, (long long)L->p_top, (long long)L->p_left,
            (long long)L->h_out, (long long)L->w_out, (long long)L->p_top,
            (long long)L->p_bottom, (long long)L->p_left, (long long)L->p_right,
            (long long)L->keff_h, (long long)L->keff_w, (long long)L->h_p, (long long)L->w_p,
            rip_layer_is_restricted(L) ? "true" : "false", (long long)L->n_in_padded,
            (long long)L->n_in_dense, (long long)L->n_out, spec);
}
