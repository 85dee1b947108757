/*
** fuzz_db_report.c — libFuzzer harness of opening a sweep database read
** only, as `ripsim report` does (src/db/db.c, src/report/report.c).
**
** Input: the bytes of a database file, written to a tmpfs file.  The
** project's own path is taken: rip_db_open(RIP_DB_READ) validates it,
** rip_db_read_run reads the run row, and rip_report_write renders the
** report (Markdown and CSV) into /dev/null.  Checks: a refusal or failure
** gives a one-line message; the file is byte-identical afterwards (a
** reader never writes); no crash, leak, hang or UB.
*/
#include "db.h"
#include "fuzz_db.h"
#include "report.h"

static void fail(const char *what, const char *err)
{
    fprintf(stderr, "fuzz_db_report: %s (%s)\n", what, err);
    abort();
}

static void one_line(int rc, const char *err)
{
    if (rc != 0 && (err[0] == '\0' || strchr(err, '\n')))
        fail("failed without a one-line message", err);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static FILE *devnull;
    if (!devnull && !(devnull = fopen("/dev/null", "w")))
        fail("cannot open /dev/null", "");
    fuzz_clean(0);
    const char *path = fuzz_write_file(data, size, "sweep.db");

    sqlite3 *db = NULL;
    char err[RIP_ERR_LEN] = "";
    int rc = (int)rip_db_open_read(path, &db, err);
    one_line(rc, err);
    if (rc == 0) {
        rip_run_info run;
        err[0] = '\0';
        int found = rip_db_read_run(db, &run, err);
        if (found < 0)
            one_line(found, err);
        for (int fmt = RIP_REPORT_MD; fmt <= RIP_REPORT_CSV; fmt++) {
            rip_report_status st;
            err[0] = '\0';
            one_line(rip_report_write(db, (rip_report_format)fmt, devnull, &st, err), err);
        }
    }
    rip_db_close(db);
    if (!fuzz_file_equals(path, data, size))
        fail("reading the database changed the file", path);
    return 0;
}
