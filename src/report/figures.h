/*
** figures.h — SVG figures of a sweep database, written beside
** results/claims.md by `ripsim claims`:
**   fig_verdicts.svg  per generator category and judged closed form, its
**                     verdict shares (unsafe/tight/loose/n/a), the unsafe
**                     and loose layers counted in the bar;
**   fig_margins.svg   histogram of loose margins (value - truth, log scale)
**                     per closed form;
**   fig_rip_hb.svg    2-D histogram of RiP (rip_padded_taps) against
**                     herringbone (herringbone_taps) workspace per layer,
**                     over the decades the sweep spans, with a colour bar.
** Deterministic: the same rows give the same bytes.
*/
#ifndef RIPSIM_FIGURES_H
#define RIPSIM_FIGURES_H

#include <sqlite3.h>
#include <stdio.h>

#include "layer.h"
#include "status.h"

typedef enum { RIP_FIG_VERDICTS = 0, RIP_FIG_MARGINS, RIP_FIG_RIP_HB, RIP_FIG_COUNT } rip_figure;

/* File names of the figures, in rip_figure order. */
extern const char *const rip_figure_names[RIP_FIG_COUNT];

/* Write figure `which` of db (a validated sweep database) to out.  RIP_OK,
** or RIP_S_DATA (a query failed, a loose margin below 1), RIP_S_NOMEM,
** RIP_S_INTERNAL (a number to draw is not finite: not written), RIP_S_IO
** with err. */
rip_status rip_figure_write(sqlite3 *db, rip_figure which, FILE *out, char err[RIP_ERR_LEN]);

#endif
