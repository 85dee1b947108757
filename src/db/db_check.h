/*
** db_check.h — the parts of the one database check (rip_db_check, db.h),
** for db_check.c only.  Each runs inside the caller's read transaction and
** returns a rip_status with one line in err naming path and what is wrong.
*/
#ifndef RIPSIM_DB_CHECK_H
#define RIPSIM_DB_CHECK_H

#include "db.h"

/* Every row of sqlite_master is one ripsim's schema of this version creates, and
** every object it creates is there (db_check_schema.c).  RIP_S_DATA, RIP_S_NOMEM. */
rip_status rip_db_check_schema(sqlite3 *db, const char *path, int64_t version, char err[RIP_ERR_LEN]);

/*
** Versions 3 and 4 (db_check_values.c): one pass over layer_results: every
** value an integer in the range a sweep stores (a closed form's may be
** NULL), every layer in the run and of a known generator; each formula's
** verdicts recomputed from its values and judging truths must equal
** verdict_counts.  n_configs, first_truth: the configuration columns;
** *layers receives the number of rows.
*/
rip_status rip_db_check_layer_values(sqlite3 *db, const char *path, const rip_run_info *run, int64_t first_truth,
                                     int64_t n_configs, int64_t *layers, char err[RIP_ERR_LEN]);

/* Versions 1 and 2: every value an integer, every layer of a known generator,
** every verdict, its truth and margin those of its value and judging truth. */
rip_status rip_db_check_verdict_rows(sqlite3 *db, const char *path, char err[RIP_ERR_LEN]);

/* "PATH: damaged database, refused (WHY)", WHY a format of two integers; RIP_S_DATA. */
rip_status rip_db_damaged(const char *path, const char *why, int64_t a, int64_t b, char err[RIP_ERR_LEN]);

/* One line for a failed SQLite call of a check: locked (RIP_S_BUSY), out of memory, else damaged. */
rip_status rip_db_check_failed(sqlite3 *db, int rc, const char *path, char err[RIP_ERR_LEN]);

#endif
