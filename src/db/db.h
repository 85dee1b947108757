/*
** db.h — the SQLite verdict database: opening, checking, creating, merging.
**
** Schema: db_schema.c (version RIP_DB_SCHEMA_VERSION, stored in PRAGMA
** user_version).  One database holds one run, run_id 1.  Versions 1 and 2
** (a row per truth and per verdict), 3 (one row per layer, six
** configurations) and 4 (no provenance in runs, no SPEC, no column
** dictionary) are checked as any other, then refused by every command but
** `ripsim migrate` with the hint to convert them (rip_db_migrate, in
** place).
**
** The rules this interface keeps:
**  - Every database a command opens is checked first, by one check
**    (rip_db_check) inside one read transaction, through a read-only
**    connection before anything writes to it.  A database that fails is
**    refused with one line, the same for every command, and left
**    byte-identical.
**  - Readers (report, merge inputs) never create a file beside the database:
**    ripsim databases use a rollback journal, which readers never write, and
**    a database left in WAL mode by another tool is read as immutable when
**    it has no -wal file.
**  - A new database appears in one transaction (schema, reference tables and
**    run row), so an interrupted creation leaves an empty file that the next
**    run creates again.
**  - A database locked by another process is waited for RIP_DB_BUSY_MS, then
**    reported as RIP_S_BUSY.
** Functions return a rip_status and, on failure, one line in err.
*/
#ifndef RIPSIM_DB_H
#define RIPSIM_DB_H

#include <sqlite3.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "evaluate.h"
#include "layer.h"
#include "progress.h"
#include "status.h"

#define RIP_DB_SCHEMA_VERSION 5
#define RIP_DB_SCHEMA_OLDEST 1  /* versions 1 to 4 are read only by rip_db_migrate */
#define RIP_DB_V3_CONFIGS 6     /* configurations of versions 1 to 3 (all but herringbone_pruned) */
#define RIP_DB_N_FORMULAS 8     /* value columns of layer_results: the registry's formulas */
#define RIP_DB_EXEC_CONFIGS 4   /* rows of table executions per executed layer: the four rip_* */
#define RIP_DB_RUN_ID 1
#define RIP_DB_BUSY_MS 5000   /* how long to wait for another process's lock */
#define RIP_DB_UNRECORDED "unrecorded"  /* provenance a database migrated from version 4 or older lacks */

extern const char rip_db_schema_sql[];
extern const char rip_db_executions_sql[];   /* what version 2 added to version 1 */
extern const char rip_db_optima_sql[];       /* table optima, view optimum_gaps (sweep --optimum) */
extern const char rip_db_recount_sql[];      /* versions 3 to 5: rebuild verdict_counts from the rows */
extern const char rip_db_schema_v2_sql[];    /* version 2, as older ripsim created it (tests) */
extern const char rip_db_schema_v3_sql[];    /* version 3, as older ripsim created it (tests) */
extern const char rip_db_schema_v4_sql[];    /* version 4, as older ripsim created it (check, tests) */
extern const char rip_db_layer_results_typed_sql[];  /* version 4's layer_results as older ripsim created it */

/* One generator category as table generators records it (the paper's
** Tab. 5): given by the sweep, which owns the categories. */
typedef struct rip_db_generator {
    const char *name, *title, *ranges;
    int tier, weight;
} rip_db_generator;

typedef struct rip_run_info {
    int64_t seed, n_layers, shard_index, shard_count;
    char generator_set[2048];
    char version[64];
    char commit[64];        /* runs.source_commit: git describe, "unknown", or RIP_DB_UNRECORDED */
    char fingerprint[24];   /* runs.generator_fingerprint: 16 hex digits, or RIP_DB_UNRECORDED */
    /* the categories rip_db_write_run records in table generators, in their
    ** order (the sweep's rip_sweep_generator_rows); rip_db_read_run does not
    ** read them back and leaves them as they are */
    const rip_db_generator *generators;
    size_t n_generators;
} rip_run_info;

/* What a read-only check of an existing path found. */
typedef struct rip_db_found {
    bool empty;          /* no database yet: missing, 0 bytes, or an interrupted creation */
    bool has_run;        /* the run row exists (then run is filled) */
    rip_run_info run;
    int64_t layers;      /* layers stored */
    int64_t formulas;    /* rows of the formulas table */
    int64_t schema_version;  /* PRAGMA user_version: RIP_DB_SCHEMA_VERSION (or older, rip_db_inspect_old) */
    int64_t executed;    /* layers with their executions (0 at version 1) */
} rip_db_found;

/*
** Check path read-only and describe it in *found.  A missing or empty file
** is RIP_OK with found->empty.  recover: a hot journal (a write interrupted
** by kill -9 or a crash) is rolled back first, as SQLite does on any write
** open; without it, a hot journal is RIP_S_BUSY.  Errors: RIP_S_DATA (not
** SQLite, not ripsim, other schema version, damaged, inconsistent rows),
** RIP_S_NOINPUT (unreadable), RIP_S_BUSY (locked), RIP_S_NOMEM.
*/
rip_status rip_db_inspect(const char *path, bool recover, rip_db_found *found, char err[RIP_ERR_LEN]);

/* rip_db_inspect that also accepts (and checks) schema versions
** RIP_DB_SCHEMA_OLDEST.. below the current one: the input of a migration. */
rip_status rip_db_inspect_old(const char *path, bool recover, rip_db_found *found, char err[RIP_ERR_LEN]);

/*
** Open an existing database read-only, after the checks of rip_db_inspect
** (never recovering: a reader writes nothing).  A missing file is
** RIP_S_NOINPUT, an empty one RIP_S_DATA.  The connection stays read-only,
** inside the read transaction of the check: what the caller reads is the
** state that was checked (rip_db_close ends it; COMMIT lets writers in).
*/
rip_status rip_db_open_read(const char *path, sqlite3 **db, char err[RIP_ERR_LEN]);

/*
** rip_db_open_read, then a private temporary copy of the checked state
** (SQLite's backup of its pages, in the read transaction of the check,
** into an anonymous on-disk database that SQLite deletes when it is
** closed), and the file closed: for a reader that takes seconds (claims),
** which would otherwise keep a sweep that writes the file from committing
** (a rollback journal lets no writer commit while a reader holds the
** file).  Memory: SQLite's page cache, not the file's size (an in-memory
** copy made `ripsim claims` on a 1,000,000-layer sweep take 134 MB; this
** one 23 MB); disk: the file's size in the temporary directory.  The
** errors of rip_db_open_read.
*/
rip_status rip_db_open_snapshot(const char *path, sqlite3 **db, char err[RIP_ERR_LEN]);

/*
** Open a database that rip_db_inspect accepted, for writing: rollback
** journal (switching a WAL database back), synchronous=FULL, busy timeout.
** RIP_S_CANTCREATE (not writable), RIP_S_BUSY, RIP_S_IO.
*/
rip_status rip_db_open_write(const char *path, sqlite3 **db, char err[RIP_ERR_LEN]);

/*
** Create path (missing or 0 bytes) with the schema, the reference tables
** and the run row, in one transaction; *db is then open for writing.
** RIP_S_CANTCREATE, RIP_S_BUSY (another process created it meanwhile),
** RIP_S_IO.
*/
rip_status rip_db_create(const char *path, const rip_run_info *run, sqlite3 **db, char err[RIP_ERR_LEN]);

/*
** Open path read-only without the checks of rip_db_inspect (schema version
** only): for a summary printed right after a sweep checked and wrote it.
** RIP_S_NOINPUT, RIP_S_DATA (not the current schema version).
*/
rip_status rip_db_open_read_unchecked(const char *path, sqlite3 **db, char err[RIP_ERR_LEN]);

/*
** What db/ stores but does not compute: the caller's functions.  db/ only
** stores and reads; the simulator's rows come in through these.
**
** pruned: version 4's additions for a converted layer L (derived): the
** padded input scalars some tap reads (*n_in_read) and the truth of
** herringbone_pruned (*gap).  rip_eval_pruned_row (stored_rows.h) is the
** fast simulator's.  RIP_OK, or a status with why.
*/
typedef rip_status (*rip_db_pruned_fn)(const rip_layer *L, int64_t *n_in_read, int64_t *gap, char why[RIP_ERR_LEN]);

/*
** optimum: the traversal-optimal gap of L (derived, at most max_pixels
** output pixels) into *gap, its live-bytes lower bound, the row-major gap
** of the same rule, and a visiting order attaining it: *n_pix pixel
** indices into order[max_pixels].  rip_eval_optimum_row (stored_rows.h) is
** sim/optimum.h's search.  RIP_OK, or a status with why (RIP_S_INTERNAL:
** the optimum was not confirmed).
*/
typedef rip_status (*rip_db_optimum_fn)(const rip_layer *L, int64_t max_pixels, int64_t *gap, int64_t *lower,
                                        int64_t *row_gap, int64_t *order, int64_t *n_pix, char why[RIP_ERR_LEN]);

/*
** Convert the database at path (schema version 1 to 4, checked read-only
** first) to the current version (the truths of herringbone_pruned and
** n_in_read, which versions 1 to 3 lack, computed by pruned() from each
** stored layer's geometry; version 4's rows, optima included, copied as
** they are; the provenance older versions lack recorded as
** RIP_DB_UNRECORDED): built under a temporary name beside it,
** every row compared with the original, then renamed over it, so that a
** kill or failure at any point leaves path as it was (at worst a stale
** temporary ".NAME.migrate-PID-N" beside it).  *from receives the version
** found; nothing is done (RIP_OK) at the current version.  A path that is
** a symbolic link is converted through it (the file it names, in its
** folder), the result keeping that file's owner, group and mode.
** RIP_S_DATA (damaged, not ripsim, rows that do not convert: a layer that
** does not derive), RIP_S_NOINPUT, RIP_S_CANTCREATE (also: the owner
** cannot be kept), RIP_S_IO, RIP_S_BUSY, RIP_S_NOMEM, or pruned()'s
** status.  progress (may be NULL) hears each of the four stages as it
** starts, done 0..3 of 4 ("creating the converted copy", "converting the
** rows", "checking the copy", "putting it in place"), and done 4 of 4
** once the copy is in place: the points at which a test can stop it.
*/
rip_status rip_db_migrate(const char *path, int64_t *from, int64_t *layers, rip_db_pruned_fn pruned,
                          const rip_progress_cb *progress,
                          char err[RIP_ERR_LEN]);

/* Close, reporting nothing; NULL is fine. */
void rip_db_close(sqlite3 *db);

/* Read the run row: 0 found, 1 no run yet, -1 error (err).  A runs table
** of version 4 or older gives commit and fingerprint RIP_DB_UNRECORDED. */
int rip_db_read_run(sqlite3 *db, rip_run_info *run, char err[RIP_ERR_LEN]);

/* Insert the run row and the reference tables (configs, formulas, the
** generators run->generators names, and the column dictionary); 0 or -1. */
int rip_db_write_run(sqlite3 *db, const rip_run_info *run, char err[RIP_ERR_LEN]);

/*
** Do a and b describe the same run (seed, size, generator set, generator
** fingerprint; shard too when with_shard)?  If not, what[] names the first
** field that differs with both values, e.g. "--seed: 3 here, 4 there".
** The version and the source commit are provenance, not identity: a run
** resumed or merged by another build whose generators draw the same layers
** is the same run.  A fingerprint RIP_DB_UNRECORDED (a migrated database)
** matches any.
*/
bool rip_run_same(const rip_run_info *a, const rip_run_info *b, bool with_shard, const char *a_name,
                  const char *b_name, char *what, size_t len);

/*
** The column dictionary (db_columns.c).  rip_db_fill_columns inserts a row
** of table columns for every column of every table and view of db's main
** schema that has none, from the one C table of column docs: RIP_OK;
** RIP_S_INTERNAL naming a column no doc describes; SQLite's status.
** rip_db_open_reference opens a private in-memory database holding this
** binary's schema (with table optima and view optimum_gaps) and its filled
** dictionary, for printing it without a database file.
*/
rip_status rip_db_fill_columns(sqlite3 *db, char err[RIP_ERR_LEN]);
rip_status rip_db_open_reference(sqlite3 **db, char err[RIP_ERR_LEN]);

/* Append a wall-clock event to run_log; 0 or -1. */
int rip_db_log(sqlite3 *db, const char *event, const char *detail);

/* Execute sql (no rows expected); -1 with err on failure. */
int rip_db_exec(sqlite3 *db, const char *sql, char err[RIP_ERR_LEN]);

/* The status of an SQLite result code (BUSY, CORRUPT, FULL, NOMEM, ...). */
rip_status rip_db_status(int sqlite_rc);

/*
** A "file:" URI that opens path for reading without creating any file:
** mode=ro, or immutable=1 for a WAL-mode database that has no -wal file.
** false when it does not fit in len.
*/
bool rip_db_reader_uri(const char *path, char *uri, size_t len);

/*
** The one check of a database (db_check.c), that every command runs on
** every database it opens: the schema version; the schema exactly the
** objects ripsim creates for it (a foreign trigger, view, index or table
** is refused before anything could run it); SQLite's quick_check; the run
** row; every layer in the run with all its rows and of a known generator;
** the lookup tables naming their columns; every stored value an integer in
** the range a sweep stores; and every formula's verdicts, recomputed from
** its values and judging truths, equal to verdict_counts (versions 3 to 5)
** or to the stored verdicts (1, 2).  What it cannot find is a change that
** moves no verdict (db_check_values.c).  db must be inside a read
** transaction, which every statement of the check shares, so a writer's
** commit meanwhile cannot make a whole database look damaged.  Fills
** *found (the schema version, which may be any of RIP_DB_SCHEMA_OLDEST..
** RIP_DB_SCHEMA_VERSION: the caller refuses older ones).  RIP_OK (also for
** an empty file: found->empty); RIP_S_DATA (not ripsim's, damaged,
** inconsistent), RIP_S_BUSY (locked; *hot when a hot journal stopped the
** read), RIP_S_NOINPUT, RIP_S_NOMEM, with one line in err naming path.
*/
rip_status rip_db_check(sqlite3 *db, const char *path, rip_db_found *found, bool *hot, char err[RIP_ERR_LEN]);

/* Run rip_db_check on db in a read transaction of its own (a connection in
** autocommit mode, e.g. a database just written): RIP_OK or its status. */
rip_status rip_db_check_now(sqlite3 *db, const char *path, rip_db_found *found, char err[RIP_ERR_LEN]);

/* Merge (db_merge.c). */
typedef struct rip_merge_result {
    rip_run_info run;    /* the merged run (shard 0/1) */
    int64_t layers;      /* layers in OUT afterwards */
} rip_merge_result;

/*
** Merge the sweep databases in[0..n_in) (and OUT's own rows when it exists)
** into out.  Every input, and an existing OUT, is checked read-only first;
** OUT is built under a temporary name in its folder (through a symbolic
** link: the folder of the file it names) and renamed over it at the end,
** so a failure leaves out as it was and no temporary file.  RIP_S_DATA
** (bad or mismatched input, rows that differ: both files named),
** RIP_S_NOINPUT, RIP_S_CANTCREATE, RIP_S_IO (a failed write names out),
** RIP_S_BUSY, RIP_S_NOMEM.
*/
rip_status rip_db_merge(const char *out, const char *const *in, int n_in, rip_merge_result *res,
                        char err[RIP_ERR_LEN]);

/* Replacing a database (db_replace.c), for merge and migrate. */
struct stat;
/* The file path names, through any symbolic links (realpath), into buf;
** path itself when it does not exist or the name does not fit. */
const char *rip_db_resolve(const char *path, char *buf, size_t len);
/*
** Create an empty file with a fresh name beside path (".BASE.TAG-PID-K" in
** path's folder), its name in tmp; with like, the file gets like's owner,
** group and mode (RIP_S_CANTCREATE when it cannot: a replacement must not
** change hands), else 0666 less the umask.  RIP_OK; RIP_S_CANTCREATE with
** err.
*/
rip_status rip_db_temp_beside(const char *path, const char *tag, const struct stat *like, char *tmp, size_t len,
                              char err[RIP_ERR_LEN]);
/* Flush tmp, rename it over path, flush the folder: 0, or -1 with errno. */
int rip_db_replace(const char *tmp, const char *path);
/* Remove tmp and its rollback journal, if any. */
void rip_db_remove_temp(const char *tmp);

typedef struct rip_optima_result {
    int64_t eligible;   /* stored layers with at most max_pixels output pixels */
    int64_t before;     /* of those, with an optimum at the start */
    int64_t added;      /* optima this call computed and committed */
} rip_optima_result;

/*
** `ripsim sweep --optimum P` (db_optima.c): create table optima and view
** optimum_gaps if missing, then compute and store the traversal-optimal
** gap, computed by optimum(), of every stored layer with at most
** max_pixels output pixels that has none, in committed batches (a rerun
** resumes).  The database must have passed rip_db_inspect.  RIP_OK;
** RIP_S_BUSY, RIP_S_CANTCREATE, RIP_S_IO, RIP_S_NOMEM, RIP_S_DATA (a
** stored layer that does not derive), or optimum()'s status, with err.
*/
rip_status rip_db_optima_fill(const char *path, int64_t max_pixels, rip_db_optimum_fn optimum,
                              const rip_progress_cb *progress,
                              rip_optima_result *res, char err[RIP_ERR_LEN]);

#endif
