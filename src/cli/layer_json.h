/*
** layer_json.h — the `layer` object of the commands' JSON output, one
** definition so that `ripsim layer --json` and `ripsim execute --json`
** print the same keys in the same order.
*/
#ifndef RIPSIM_LAYER_JSON_H
#define RIPSIM_LAYER_JSON_H

#include <stdio.h>

#include "layer.h"

/* Print "\"layer\":{...}" (no separator after it) for L (derived) to out. */
void rip_layer_json(FILE *out, const rip_layer *L);

#endif
