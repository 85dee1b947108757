/*
** layer_json.h — the `layer` object of the commands' JSON output, one
** definition so that `ripsim layer --json` and `ripsim execute --json`
** print the same keys in the same order.
*/
#ifndef RIPSIM_LAYER_JSON_H
#define RIPSIM_LAYER_JSON_H

#include <stdio.h>

#include "layer.h"

/* Print "\"layer\":{...}" (no separator after it) for L (derived) to out:
** the geometry under its database names (p_h, p_w: top and left padding),
** the derived sizes the text form of `ripsim layer` prints (keff_h,
** keff_w, h_p, w_p, restricted, n_in_padded, n_in_dense, n_out) and spec,
** the canonical SPEC, which pastes back. */
void rip_layer_json(FILE *out, const rip_layer *L);

#endif
