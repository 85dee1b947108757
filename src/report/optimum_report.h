/*
** optimum_report.h — what the traversal-optimal search (sim/optimum.h) says
** about the paper: results/optimum.md (herringbone against the optimum on
** every small restricted layer, the Gural-Murmann optimality claim, and on
** a seeded set of anisotropic layers), results/fig_optimum.svg (the optimum
** against herringbone and RiP) and results/fig3.svg (the paper's Fig. 2/3
** visiting orders with the optimal order of the same grid beside them).
*/
#ifndef RIPSIM_OPTIMUM_REPORT_H
#define RIPSIM_OPTIMUM_REPORT_H

#include <stdio.h>

#include "layer.h"
#include "progress.h"
#include "status.h"

/* Seeded anisotropic layers in results/optimum.md and the figure. */
#define RIP_OPTIMUM_ANISO_LAYERS 2000
#define RIP_OPTIMUM_ANISO_SEED 20261130u

/* results/optimum.md to out.  progress (may be NULL) counts layers.
** RIP_OK; RIP_S_NOMEM, RIP_S_INTERNAL (the search or the simulator failed)
** with err.  Write errors are the caller's (ferror on out). */
rip_status rip_optimum_md_write(FILE *out, const rip_progress_cb *progress, char err[RIP_ERR_LEN]);

/* results/fig_optimum.svg to out: herringbone and RiP gaps against the
** optimum on the anisotropic set.  Statuses as above. */
rip_status rip_fig_optimum_write(FILE *out, const rip_progress_cb *progress, char err[RIP_ERR_LEN]);

/* results/fig3.svg to out: row-major and herringbone orders on two uneven
** grids, legs numbered, and an optimal order beside them (titled with its
** gap, or as equal to herringbone's).  Statuses as above. */
rip_status rip_fig3_write(FILE *out, char err[RIP_ERR_LEN]);

#endif
