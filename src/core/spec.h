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
**
** Aliases: the names of the database and JSON (h_in, k_h, p_top, ...) and
** of layer CSV files (c_in, c_out) are read too (`ripsim layer --help`), so a
** row of any of them pastes back.  k_h, k_w, s_h, s_w, d_h, d_w, p_h, p_w
** set one component each; a width component defaults to its height one
** (w to h, k_w to k_h, ..., p_w to p_h), p_h pads top and bottom, p_w left
** and right, and pt/pb/pl/pr (p_top, ...) override them side by side.  A
** field given twice, under one name or two, must have the same value.
*/
#ifndef RIPSIM_SPEC_H
#define RIPSIM_SPEC_H

#include "layer.h"

/*
** Parse spec into *L and derive it (rip_layer_derive).  Returns 0 on
** success; on failure returns -1 with one line in err naming the field:
** unknown key, a derived column (h_out, n_out, ...), a field given twice
** with different values (naming both names), missing required key, not a
** number, number out of range, or any error of rip_layer_derive.
*/
int rip_spec_parse(const char *spec, rip_layer *L, char err[RIP_ERR_LEN]);

/* Format L back as a SPEC that rip_spec_parse reads to the same layer. */
void rip_spec_format(const rip_layer *L, char *buf, size_t len);

#endif
