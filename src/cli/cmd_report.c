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
#include "json_out.h"
#include "root.h"
#include "out.h"
#include "db.h"
#include "report.h"

#define DEFAULT_DB "results/sweep.db"

static const char about[] =
    "Read a sweep database and report it beside the paper: the run and its\n"
    "completeness, the share of restricted layers (Sec. 5.2), the verdicts of\n"
    "every closed form, the paper's claims checked one by one (agrees/differs),\n"
    "loose-margin and unsafe-shortfall statistics, Tab. 5 as drawn with its\n"
    "tiers, and a findings paragraph computed from the numbers.\n";

static const char notes[] =
    "The output is deterministic: the same database gives the same bytes.\n"
    "An incomplete run is reported (with a warning on stderr and a banner in\n"
    "the report) and exits 0.  --out may not name the database itself.\n"
    "The database is opened read-only and creates no file beside it, so it\n"
    "may be another user's or in a read-only folder; the report reads it in\n"
    "the transaction of its check, as it was checked.\n"
    RIP_DB_CHECK_HELP;

static const rip_exit_doc exits[] = {
    {0, "reported (also for an incomplete run)"},
    {64, "bad command line (also: --out is the database)"},
    {65, "not a ripsim database, damaged, wrong schema version, or no layers yet"},
    {66, "database missing or unreadable"},
    {70, "internal error"},
    {71, "out of memory"},
    {73, "--out cannot be created"},
    {74, "a read or write error (also: the report cannot be written)"},
    {75, "the database is locked by another process or has an interrupted write (rerun its sweep to recover); retry later"},
};

static const char *const formats[] = {"md", "csv", "tex", NULL};

int rip_cmd_report(int argc, char **argv)
{
    const char *db_path = NULL, *out_path = NULL;
    int format_ix = 0;
    bool json = false;
    const rip_opt opts[] = {
        {.name = "--db", .kind = RIP_OPT_STR, .dest = &db_path, .metavar = "FILE",
         .help = "sweep database (default " DEFAULT_DB " in the ripsim tree);\nopened read-only"},
        {.name = "--format", .kind = RIP_OPT_ENUM, .dest = &format_ix, .metavar = "F", .choices = formats,
         .help = "md   Markdown (default)\n"
                 "csv  long format, one cell per line: section,row,column,value\n"
                 "tex  LaTeX fragment (tabular environments) for \\input"},
        {.name = "--out", .kind = RIP_OPT_STR, .dest = &out_path, .metavar = "FILE",
         .help = "write the report to FILE instead of stdout ('-': stdout);\n"
                 "FILE is replaced only once the whole report is written"},
        {.name = "--json", .kind = RIP_OPT_FLAG, .dest = &json, .flag_value = true,
         .help = "with --out FILE: print what was written as one JSON object\n"
                 "on stdout (file, format, bytes, layers present and expected)"},
    };
    const char *pos_db = NULL;
    const rip_cmd cmd = {
        .name = "report", .synopsis = "[--db FILE | FILE] [--format md|csv|tex] [--out FILE [--json]]", .about = about,
        .pos = &pos_db, .max_pos = 1, .opts = opts, .n_opts = sizeof opts / sizeof opts[0], .notes = notes, .exits = exits,
        .n_exits = sizeof exits / sizeof exits[0], .example = "ripsim report --format csv --out report.csv",
    };
    int rc = rip_args_parse(&cmd, argc, argv, stdout, stderr);
    if (rc != RIP_ARGS_CONTINUE)
        return rc;
    if ((rc = rip_args_db(&cmd, &db_path, pos_db)) != 0)
        return rc;
    if (json && (!out_path || strcmp(out_path, "-") == 0))
        return rip_args_usage(&cmd, "--json needs --out FILE (the report itself goes to stdout otherwise)");
    char dbbuf[4096];
    if (!db_path && !(db_path = rip_root_path("report", "--db", DEFAULT_DB, dbbuf, sizeof dbbuf)))
        return RIP_EX_USAGE;
    rip_report_format fmt = (rip_report_format)format_ix;
    if ((rc = rip_out_refuse_input("report", out_path, db_path, "the database being read (--db)")) != 0)
        return rc;

    sqlite3 *db = NULL;
    char err[RIP_ERR_LEN] = "";
    char *text = NULL;
    size_t len = 0;
    FILE *mem = NULL;
    rip_report_status st = {0};
    /* a temporary copy, made in the transaction of the check: the claims
    ** queries take a while, and a sweep writing the file meanwhile must not
    ** be kept from committing (with a rollback journal no one commits while
    ** anyone reads) */
    int status = rip_exit_status(rip_db_open_snapshot(db_path, &db, err));
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
    status = rip_exit_status(rip_report_write(db, fmt, mem, &st, err));
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
    rip_out out;
    if ((status = rip_out_open(&out, "report", out_path)) != 0)
        goto done;
    if (fwrite(text, 1, len, out.f) != len) {
        int e = errno;
        fprintf(stderr, "ripsim report: cannot write %s: %s\n", out.label, strerror(e));
        rip_out_abort(&out);
        status = RIP_EX_IOERR;
        goto done;
    }
    status = rip_out_commit(&out);
    if (status == 0 && json) {
        static const char *const names[] = {"md", "csv", "tex"};
        printf("{\"out\": ");
        rip_json_string(stdout, out_path);
        printf(", \"format\": \"%s\", \"bytes\": %zu, \"layers_present\": %lld, \"layers_expected\": %lld, "
               "\"layers_lacking_verdicts\": %lld}\n", names[format_ix], len, (long long)st.layers_present,
               (long long)st.layers_expected, (long long)st.layers_partial);
    }
done:
    if (mem)
        fclose(mem);
    free(text);
    rip_db_close(db);
    return status;
}
