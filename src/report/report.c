/*
** report.c — `ripsim report`: the sweep database read back against the paper.
**
** Two halves.  rpt_gather() (report_gather.c) reads the small tables (run,
** formulas with their verdict counts, generators, executions) and makes one
** pass over layer_results (report_scan.c), all inside one read
** transaction, and computes the statistics with GSL into a report_data;
** render() turns that into sections, paragraphs and tables
** (report_claims.c, report_sections*.c) through a small document model
** (report_doc.c) that has one emitter per format (md, csv, tex; see
** report.h for the formats).  Nothing here writes to the database.
**
** The paper's figures are in report_internal.h, each with its place in
** rip-convolution.txt; report_claims.c says when a claim "agrees".
*/
#include "report.h"

#include <string.h>

#include "report_internal.h"

/* Every section of r, in order, to d. */
static void render(doc *d, const report_data *r)
{
    rpt_doc_begin(d);
    rpt_section_run(d, r);
    rpt_section_claims(d, r);
    rpt_section_verdicts(d, r);
    rpt_section_margins(d, r);
    rpt_section_tab5(d, r);
    rpt_section_pruned(d, r);
    rpt_section_executions(d, r);
    rpt_section_optimum(d, r);
    rpt_section_findings(d, r);
}

/* ---- entry points --------------------------------------------------------------- */

/* "md", "csv" or "tex" into *fmt (report.h). */
bool rip_report_format_parse(const char *name, rip_report_format *fmt)
{
    static const char *const names[] = {"md", "csv", "tex"};
    for (int i = 0; i < 3; i++)
        if (name && strcmp(name, names[i]) == 0) {
            *fmt = (rip_report_format)i;
            return true;
        }
    return false;
}

/* The report of db to out; inputs, statuses and partial output: report.h. */
rip_status rip_report_write(sqlite3 *db, rip_report_format fmt, FILE *out, rip_report_status *st,
                     char err[RIP_ERR_LEN])
{
    report_data r;
    memset(&r, 0, sizeof r);
    bool in_txn = false;   /* a read transaction of our own (none open: not opened by rip_db_open_read) */
    rip_status status = RIP_S_DATA;

    if (sqlite3_get_autocommit(db)) {
        if (sqlite3_exec(db, "BEGIN", NULL, NULL, NULL) != SQLITE_OK) {
            snprintf(err, RIP_ERR_LEN, "cannot start a read transaction: %s", sqlite3_errmsg(db));
            goto done;
        }
        in_txn = true;
    }
    status = rpt_gather(db, &r, err);
    if (st) {
        st->layers_present = r.present;
        st->layers_expected = r.expected;
        st->layers_partial = r.partial;
    }
    if (status != 0)
        goto done;

    doc d = {.out = out, .fmt = fmt};
    render(&d, &r);
    if (d.oom) {
        snprintf(err, RIP_ERR_LEN, "out of memory while rendering the report");
        status = RIP_S_NOMEM;
    } else if (d.nonfinite) {
        snprintf(err, RIP_ERR_LEN, "a figure of the report is not a finite number (NaN or infinite): not printed");
        status = RIP_S_INTERNAL;
    } else if (fflush(out) != 0 || ferror(out)) {
        snprintf(err, RIP_ERR_LEN, "cannot write the report");
        status = RIP_S_IO;
    }
done:
    if (in_txn && sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK && status == 0) {
        snprintf(err, RIP_ERR_LEN, "cannot end the read transaction: %s", sqlite3_errmsg(db));
        status = RIP_S_DATA;
    }
    rpt_data_free(&r);
    if (status != 0)
        rip_err_one_line(err);   /* SQLite may quote damaged schema text */
    return status;
}
