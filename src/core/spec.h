/*
** spec.h — the layer SPEC mini-language (README.md, "Using it").
**
**   cin=5,cout=8,h=12,w=12,k=3,s=1,d=1,p=0
**
** k, s, d and p take "A" or "AxB" (height x width).  w defaults to h, s and
** d to 1, p to 0.  pt=, pb=, pl=, pr= set the padding of one side each and
** override p= for that side whatever their order.  cin, cout, h and k are
** required.  Whitespace around items is not allowed: a SPEC is one shell
** word.
*/
#ifndef RIPSIM_SPEC_H
#define RIPSIM_SPEC_H

#include "layer.h"

/*
** Parse spec into *L and derive it (rip_layer_derive).  Returns 0 on
** success; on failure returns -1 with one line in err naming the field:
** unknown key, duplicate key, missing required key, not a number, number
** out of range, or any error of rip_layer_derive.
*/
int rip_spec_parse(const char *spec, rip_layer *L, char err[RIP_ERR_LEN]);

/* Format L back as a SPEC that rip_spec_parse reads to the same layer. */
void rip_spec_format(const rip_layer *L, char *buf, size_t len);

#endif
