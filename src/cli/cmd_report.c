/*
** cmd_report.c — `ripsim report`: the command line around report.c.
**
** Parses the options, opens the database read-only (db.h validates it),
** renders the whole report into memory and only then writes it to stdout
** or --out, so that a failure never leaves half a report behind.  Every
** error is one line on stderr and an exit status of cli.h.
*/
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "args.h"
#include "cli.h"
#include "db.h"
#include "report.h"

#define DEFAULT_DB "results/sweep.db"

static const char usage_text[] =
    "usage: ripsim report [--db FILE] [--format md|csv|tex] [--out FILE]\n"
    "\n"
    "Read a sweep database and report it beside the paper: the run and its\n"
    "completeness, the share of restricted layers (Sec. 5.2), the verdicts of\n"
    "every closed form, the paper's claims checked one by one (agrees/differs),\n"
    "loose-margin and unsafe-shortfall statistics, Tab. 5 as drawn with its\n"
    "tiers, and a findings paragraph computed from the numbers.\n"
    "\n"
    "options:\n"
    "  --db FILE      sweep database (default " DEFAULT_DB "); opened read-only\n"
    "  --format F     md   Markdown (default)\n"
    "                 csv  long format, one cell per line: section,row,column,value\n"
    "                 tex  LaTeX fragment (tabular environments) for \\input\n"
    "  --out FILE     write the report to FILE instead of stdout; FILE is\n"
    "                 written only once the whole report has been computed\n"
    "  -h, --help     this help\n"
    "\n"
    "The output is deterministic: the same database gives the same bytes.\n"
    "An incomplete run is reported (with a warning on stderr and a banner in\n"
    "the report) and exits 0.\n"
    "The database is opened read-only and creates no file beside it, so it\n"
    "may be another user's or in a read-only folder; it is checked first\n"
    "(SQLite quick_check and ripsim's row counts).\n"
    "Exit status: 0 ok, 64 usage error, 65 not a ripsim database, damaged,\n"
    "wrong schema version or no layers yet, 66 database missing or unreadable,\n"
    "70 internal error, 71 out of memory, 73 --out cannot be created, 74 read\n"
    "or write error, 75 the database is locked by another process or has an\n"
    "interrupted write (rerun its sweep to recover), retry later.\n";

static int usage_error(const char *msg, const char *arg)
{
    fprintf(stderr, "ripsim report: %s%s%s%s\nTry 'ripsim report --help'.\n", msg, arg ? " '" : "",
            arg ? arg : "", arg ? "'" : "");
    return RIP_EX_USAGE;
}

/* Write len bytes of text to path (or stdout when NULL).  Returns 0 or an exit status. */
static int write_out(const char *path, const char *text, size_t len)
{
    if (!path) {
        if (fwrite(text, 1, len, stdout) != len || fflush(stdout) != 0) {
            fprintf(stderr, "ripsim report: cannot write to standard output: %s\n", strerror(errno));
            return RIP_EX_IOERR;
        }
        return 0;
    }
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "ripsim report: cannot create %s: %s\n", path, strerror(errno));
        return RIP_EX_CANTCREAT;
    }
    bool ok = fwrite(text, 1, len, f) == len;
    int saved = errno;
    if (fclose(f) != 0 && ok) {
        ok = false;
        saved = errno;
    }
    if (!ok) {
        fprintf(stderr, "ripsim report: cannot write %s: %s\n", path, strerror(saved));
        unlink(path);
        return RIP_EX_IOERR;
    }
    return 0;
}

int rip_cmd_report(int argc, char **argv)
{
    const char *db_path = DEFAULT_DB, *out_path = NULL;
    rip_report_format fmt = RIP_REPORT_MD;

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = NULL;
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            fputs(usage_text, stdout);
            return RIP_EX_OK;
        } else if (rip_arg_value(argc, argv, &i, "--db", &v)) {
            if (!v || !*v)
                return usage_error("--db needs a FILE", NULL);
            db_path = v;
        } else if (rip_arg_value(argc, argv, &i, "--format", &v)) {
            if (!v)
                return usage_error("--format needs md, csv or tex", NULL);
            if (!rip_report_format_parse(v, &fmt))
                return usage_error("--format must be md, csv or tex, not", v);
        } else if (rip_arg_value(argc, argv, &i, "--out", &v)) {
            if (!v || !*v)
                return usage_error("--out needs a FILE", NULL);
            out_path = v;
        } else if (a[0] == '-') {
            return usage_error("unknown option", a);
        } else {
            return usage_error("unexpected argument", a);
        }
    }

    sqlite3 *db = NULL;
    char err[RIP_ERR_LEN] = "";
    char *text = NULL;
    size_t len = 0;
    FILE *mem = NULL;
    rip_report_status st = {0};
    int status = rip_exit_status(rip_db_open_read(db_path, &db, err));
    if (status != 0) {
        fprintf(stderr, "ripsim report: %s\n", err);
        goto done;
    }
    mem = open_memstream(&text, &len);
    if (!mem) {
        fprintf(stderr, "ripsim report: out of memory\n");
        status = RIP_EX_OSERR;
        goto done;
    }
    status = rip_report_write(db, fmt, mem, &st, err);
    if (fclose(mem) != 0 && status == 0) {
        snprintf(err, sizeof err, "out of memory");
        status = RIP_EX_OSERR;
    }
    mem = NULL;
    if (status != 0) {
        fprintf(stderr, "ripsim report: %s: %s\n", db_path, err);
        goto done;
    }
    if (st.layers_present < st.layers_expected || st.layers_partial > 0)
        fprintf(stderr, "ripsim report: warning: %s is incomplete: %lld of %lld layers present, "
                "%lld lacking verdicts\n", db_path, (long long)st.layers_present,
                (long long)st.layers_expected, (long long)st.layers_partial);
    status = write_out(out_path, text, len);
done:
    if (mem)
        fclose(mem);
    free(text);
    rip_db_close(db);
    return status;
}
