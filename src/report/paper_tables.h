/*
** paper_tables.h — the graph-level tables and figure of the paper,
** regenerated from the model graphs with the planner (issue 5):
** Tab. 3 (eleven MCUNet models, TinyEngine baseline vs RiP, fits Pico 1),
** Tab. 7 (33 keras.applications graphs, dual-buffer MILP vs RiP MILP) and
** Fig. 1 (MCUNet-in3's arena across its operators under three schedules).
*/
#ifndef RIPSIM_PAPER_TABLES_H
#define RIPSIM_PAPER_TABLES_H

#include <stdbool.h>
#include <stdio.h>

#include "layer.h"
#include "plan/plan.h"

/* Plan one graph file: load, build the problem, run the strategy, check the
** plan (simulate: re-derive RiP gaps with the simulator).  On success *p and
** *plan are owned by the caller (rip_problem_free, rip_plan_free).  Returns
** 0 or an exit status with err. */
int rip_plan_graph_file(const char *path, bool rip, bool inplace_depthwise, const char *strategy,
                        const rip_plan_opts *po, rip_problem *p, rip_plan **plan, char err[RIP_ERR_LEN]);

int rip_table3_write(FILE *out, const char *models_dir, char err[RIP_ERR_LEN]);

/* with_times false leaves the wall-clock columns out, so the output is
** byte-reproducible (the test compares that form). */
int rip_table7_write(FILE *out, const char *models_dir, double time_limit, bool with_times,
                     char err[RIP_ERR_LEN]);

/* Write the SVG to svg_path; if png_path is not NULL also a PNG (through
** rsvg-convert when installed; a missing converter is reported in err with
** status RIP_EX_UNAVAILABLE and the SVG kept). */
int rip_fig1_write(const char *svg_path, const char *png_path, const char *models_dir,
                   char err[RIP_ERR_LEN]);

#endif
