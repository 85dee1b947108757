/*
** thm13_debt.h — the per-pixel dense debt behind Theorem 13, exposed so
** that tests can check the (rbar, cbar) reading of thm13.c against a brute
** force enumeration of every output's taps.  Not part of the formulas.h API;
** nothing outside formulas/ and tests/test_formulas.c should need it.
*/
#ifndef RIPSIM_THM13_DEBT_H
#define RIPSIM_THM13_DEBT_H

#include "formulas.h"

/*
** Dense-layout debt D(r,c) of Eq. 41 (sigma of Eq. 6 included), for
** 0 <= r < H_out, 0 <= c < W_out of a derived layer.  The last pixel, and any
** pixel after which no unprocessed output reads a real input pixel, give
** sigma (Eq. 40's +inf branch).  Defined for any derived layer; Theorem 13's
** precondition is checked by rip_thm13, not here.
*/
int64_t rip_thm13_debt(const rip_layer *L, rip_tap_order order, int64_t r, int64_t c);

#endif
