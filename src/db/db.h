/*
** db.h — the SQLite verdict database (DESIGN.md, "Interfaces that must hold").
**
** Schema: db_schema.c (version RIP_DB_SCHEMA_VERSION, stored in PRAGMA
** user_version).  One database holds one run, run_id 1.  Opening never
** modifies a database whose schema or run does not match: callers check
** first (rip_db_open, rip_db_read_run) and write only afterwards.
*/
#ifndef RIPSIM_DB_H
#define RIPSIM_DB_H

#include <sqlite3.h>
#include <stdbool.h>
#include <stdint.h>

#include "evaluate.h"
#include "layer.h"

#define RIP_DB_SCHEMA_VERSION 1
#define RIP_DB_RUN_ID 1

extern const char rip_db_schema_sql[];

typedef struct rip_run_info {
    int64_t seed, n_layers, shard_index, shard_count;
    char generator_set[2048];
    char version[64];
} rip_run_info;

/*
** Open path.  mode: RIP_DB_READ (must exist, read only), RIP_DB_WRITE (must
** exist), RIP_DB_CREATE (created with the schema when missing or empty;
** *created tells which).  An existing database must be a ripsim database of
** schema version RIP_DB_SCHEMA_VERSION; otherwise nothing is written.
** Returns 0 and *db, or an exit status of cli.h with one line in err:
** RIP_EX_NOINPUT (missing file), RIP_EX_DATAERR (not SQLite, not ripsim,
** other schema version), RIP_EX_CANTCREAT (cannot create), RIP_EX_IOERR.
*/
typedef enum { RIP_DB_READ, RIP_DB_WRITE, RIP_DB_CREATE } rip_db_mode;
int rip_db_open(const char *path, rip_db_mode mode, sqlite3 **db, bool *created, char err[RIP_ERR_LEN]);

/* Close, reporting nothing; NULL is fine. */
void rip_db_close(sqlite3 *db);

/* Read the run row: 0 found, 1 no run yet, -1 error. */
int rip_db_read_run(sqlite3 *db, rip_run_info *run, char err[RIP_ERR_LEN]);

/* Insert the run row and the reference tables (formulas, generators). */
int rip_db_write_run(sqlite3 *db, const rip_run_info *run, char err[RIP_ERR_LEN]);

/* Switch an opened, validated database to WAL with batched commits. */
int rip_db_tune_for_writing(sqlite3 *db, char err[RIP_ERR_LEN]);

/* Append a wall-clock event to run_log. */
int rip_db_log(sqlite3 *db, const char *event, const char *detail);

/* Execute sql (no rows expected); -1 with err on failure. */
int rip_db_exec(sqlite3 *db, const char *sql, char err[RIP_ERR_LEN]);

#endif
