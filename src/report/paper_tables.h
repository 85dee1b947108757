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
#include "progress.h"
#include "status.h"
#include "plan/plan.h"
#include "deployment.h"

/* Plan one graph file: load, build the problem, run the strategy, check the
** plan (simulate: re-derive RiP gaps with the simulator).  On success *p and
** *plan are owned by the caller (rip_problem_free, rip_plan_free).  Returns
** RIP_OK, or RIP_S_DATA / RIP_S_NOINPUT / RIP_S_NOMEM with err, and
** RIP_S_INTERNAL when a strategy fails or makes a plan the checker refuses. */
rip_status rip_plan_graph_file(const char *path, bool rip, bool inplace_depthwise, const char *strategy,
                               const rip_plan_opts *po, rip_problem *p, rip_plan **plan, char err[RIP_ERR_LEN]);

/* Tab. 3 as Markdown to out; with dep (results/deployment.json, may be
** NULL) also the deployment table.  progress (may be NULL) counts the
** eleven models.  RIP_OK, or RIP_S_NOINPUT (missing reference or graph),
** RIP_S_DATA, RIP_S_NOMEM, RIP_S_INTERNAL, with err.  Write errors are the
** caller's to find (ferror on out). */
rip_status rip_table3_write(FILE *out, const char *models_dir, const rip_deployment *dep,
                            const rip_progress_cb *progress, char err[RIP_ERR_LEN]);

/* Tab. 7 likewise; progress counts the 33 models.  with_times false leaves
** the wall-clock columns out, so the output is byte-reproducible (the test
** compares that form). */
rip_status rip_table7_write(FILE *out, const char *models_dir, double time_limit, bool with_times,
                            const rip_progress_cb *progress, char err[RIP_ERR_LEN]);

/* Fig. 1 as an SVG document to out.  RIP_OK, or a status with err as for
** the tables (RIP_S_IO when out reports a write error). */
rip_status rip_fig1_write(FILE *out, const char *models_dir, char err[RIP_ERR_LEN]);

#endif
