/*
** fuzz_spec.c — libFuzzer harness of the layer SPEC parser (src/core/spec.c).
**
** Input: the bytes of one SPEC (as `ripsim layer SPEC` gets it; the first
** NUL ends it, as it would end an argv word).  Checks beyond "no crash, no
** sanitizer report": a rejected SPEC comes with a one-line message; an
** accepted one prints back (rip_spec_format) to a SPEC that parses to the
** same layer, and every closed form evaluates on it without undefined
** behaviour (the overflow policy of rip_layer_derive promises headroom;
** kernels up to FUZZ_FORMULA_MAX_K taps, see fuzz_limits.h).
*/
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "evaluate.h"
#include "fuzz_limits.h"
#include "spec.h"

static int same_layer(const rip_layer *a, const rip_layer *b)
{
    return a->cin == b->cin && a->cout == b->cout && a->h_in == b->h_in && a->w_in == b->w_in &&
           a->k_h == b->k_h && a->k_w == b->k_w && a->s_h == b->s_h && a->s_w == b->s_w &&
           a->d_h == b->d_h && a->d_w == b->d_w && a->p_top == b->p_top &&
           a->p_bottom == b->p_bottom && a->p_left == b->p_left && a->p_right == b->p_right;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *spec = malloc(size + 1);
    if (!spec)
        return 0;
    memcpy(spec, data, size);
    spec[size] = '\0';

    rip_layer L, back;
    char err[RIP_ERR_LEN] = "", text[1024];
    if (rip_spec_parse(spec, &L, err) != 0) {
        if (err[0] == '\0' || strchr(err, '\n')) {
            fprintf(stderr, "fuzz_spec: rejected without a one-line message: '%s'\n", err);
            abort();
        }
    } else {
        rip_spec_format(&L, text, sizeof text);
        if (rip_spec_parse(text, &back, err) != 0 || !same_layer(&L, &back)) {
            fprintf(stderr, "fuzz_spec: '%s' prints as '%s', which reads back differently (%s)\n",
                    spec, text, err);
            abort();
        }
        if (fuzz_kernel_ok(L.k_h, L.k_w)) {
            rip_eval ev;
            rip_layer T = rip_layer_transpose(&L);
            rip_evaluate(&L, RIP_ENGINE_FAST, false, &ev, err);
            rip_evaluate(&T, RIP_ENGINE_FAST, false, &ev, err);
        }
    }
    free(spec);
    return 0;
}
