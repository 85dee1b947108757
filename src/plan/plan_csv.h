/*
** plan_csv.h — opening a planner input file (a model graph or an interval
** list) for the CSV reader; internal to src/plan/.
*/
#ifndef RIPSIM_PLAN_CSV_H
#define RIPSIM_PLAN_CSV_H

#include <stdio.h>

#include "csv.h"

/*
** Open path for reading and start a CSV reader on it; name (name_len
** bytes) receives the file's base name without ".csv".  RIP_OK with *f and
** *r (close both); RIP_S_NOINPUT (missing, unreadable, a directory) or
** RIP_S_NOMEM with err, nothing left open.
*/
rip_status rip_plan_csv_open(const char *path, FILE **f, rip_csv **r, char *name, size_t name_len,
                             char err[RIP_ERR_LEN]);

#endif
