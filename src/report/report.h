/*
** report.h — the sweep report: paper Sec. 5.2, Lemma 9, Eq. 42 and Tab. 5
** recomputed from a verdict database, each figure beside the paper's.
**
** The report reads one database (db.h, schema version 4) inside the read
** transaction of its check (rip_db_open_read), so a sweep still writing to
** it is seen at one instant, the one that was checked.
** It computes its statistics with GSL and writes one of three renderings of
** the same content to a FILE*:
**
**   md   Markdown: headings, paragraphs and pipe tables.
**   tex  a LaTeX fragment for \input: \subsection*, paragraphs and one
**        tabular per table (plain \hline rules, no packages needed).
**   csv  RFC 4180, flat long ("tidy") format, one cell per line:
**          section,row,column,value
**        section  the table (run, claims, verdicts, loose_margins,
**                 unsafe_shortfalls, tab5, tab5_tiers, pruned (App. E.3's
**                 pruned herringbone against herringbone), executions -- the
**                 last only when the database holds executions of
**                 `sweep --execute`) or a text block
**                 (warning, findings);
**        row      the row's key (formula, generator, claim id, tier, ...);
**        column   the column's key (unsafe, tight, pct_tight, ...);
**        value    a number without unit or % sign, or text; empty where the
**                 md/tex rendering shows "-".
**        Text blocks use column "text".  Load it with any CSV reader and
**        pivot on (section, row) x column.
**
** The body is deterministic: no timestamps or paths; numbers are printed
** with fixed precision (percentages and means with 2 decimals); the same
** database rows give byte-identical output.
*/
#ifndef RIPSIM_REPORT_H
#define RIPSIM_REPORT_H

#include <sqlite3.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "layer.h"
#include "status.h"

typedef enum { RIP_REPORT_MD = 0, RIP_REPORT_CSV, RIP_REPORT_TEX } rip_report_format;

/* "md", "csv" or "tex" into *fmt; false (and *fmt untouched) otherwise. */
bool rip_report_format_parse(const char *name, rip_report_format *fmt);

/* What the caller may want to tell the user besides the body. */
typedef struct rip_report_status {
    int64_t layers_present;   /* layers in the database */
    int64_t layers_expected;  /* layers the run (or this shard of it) should hold */
    int64_t layers_partial;   /* present layers lacking a verdict of some formula */
} rip_report_status;

/*
** Write the report of db to out.
**
** db must have been opened and validated by rip_db_open_read(path,
** ...) (a ripsim database of schema version RIP_DB_SCHEMA_VERSION), whose
** read transaction the report shares (on a connection in autocommit mode it
** opens one of its own); this function also checks that every table and
** view it reads exists.  It never writes to db.  st (may be NULL) receives the completeness figures.
**
** Returns RIP_OK, or a status with one line (no newline) in err:
**   RIP_S_DATA   the database lacks a table, holds no run or no layers,
**                a query fails, or a share counts more than its whole;
**   RIP_S_NOMEM  memory ran out;
**   RIP_S_INTERNAL  a figure is not a finite number (it is never printed)
**                or an interval cannot be computed (confidence.h);
**   RIP_S_IO     writing to out failed.
** On failure out may hold a partial report: callers that must not leave
** one behind render into memory first (cmd_report.c does).
*/
rip_status rip_report_write(sqlite3 *db, rip_report_format fmt, FILE *out, rip_report_status *st,
                            char err[RIP_ERR_LEN]);

#endif
