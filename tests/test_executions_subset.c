/*
** test_executions_subset.c — the int8 executions of the sweep, regenerated
** on a stated subset and compared byte for byte (issue 22 item 3).
**
** results/sweep-report.md's Executions section comes from executing all
** 10,000 layers of the default sweep (minutes; about three times that under
** the sanitizers), so test_sweep.c checks that section only for its shape
** and its consistency with the plain sweep.  The subset is regenerated in
** full here, in every build: shard 0 of 10 of the default sweep (the 1,000
** layers with index % 10 == 0), executed, reported, and required to equal
** results/sweep-report-shard0of10.md byte for byte, Executions included:
**
**   build/ripsim sweep --shard 0/10 --execute --db X &&
**   build/ripsim report --db X > results/sweep-report-shard0of10.md
*/
#include <stdbool.h>

#include "tmpdir.h"
#include "db_dump.h"
#include "run_cmd.h"

TEST_SUITE_WITH_TMPDIR(executions_subset, 900);

Test(executions_subset, shard_0_of_10_executed_regenerates_the_committed_report)
{
    const char *dir = getenv("RIPSIM_RESULTS_DIR");
    cr_assert_not_null(dir, "RIPSIM_RESULTS_DIR must name results/");
    char committed[512], db[320], got[320];
    snprintf(committed, sizeof committed, "%s/sweep-report-shard0of10.md", dir);
    snprintf(db, sizeof db, "%s", tmp("shard0.db"));
    snprintf(got, sizeof got, "%s", tmp("shard0.md"));
    size_t n;
    char *want = slurp_file(committed, &n);

    run_result *r = RUN("sweep", "--shard", "0/10", "--execute", "--db", db, "--quiet");
    cr_assert_eq(r->status, 0, "%s", r->err);
    cr_expect_eq(count_lines(r->err), 0, "the quiet sweep wrote to stderr: %s", r->err);
    r = RUN("report", "--db", db, "--out", got);
    cr_assert_eq(r->status, 0, "%s", r->err);
    cr_expect_eq(count_lines(r->err), 0, "the report of a complete shard warned: %s", r->err);
    size_t m;
    char *text = slurp_file(got, &m);
    if (m != n || memcmp(text, want, n) != 0) {
        char cmd[1200];
        snprintf(cmd, sizeof cmd, "diff '%s' '%s' | head -30 >&2", committed, got);
        cr_expect_eq(system(cmd), 0, "the diff could not be shown"); /* head's status */
        cr_expect(false, "results/sweep-report-shard0of10.md differs from its regeneration (diff above): "
                         "regenerate it with the command in tests/test_executions_subset.c");
    }

    /* the committed file is what it says: an executed shard of 1,000 layers,
    ** each configuration executed on all of them */
    cr_expect_not_null(strstr(want, "1000 layers executed; regenerate with ripsim sweep --n 10000 --seed 20261129 "
                                    "--shard 0/10 --execute --db DB; ripsim report --db DB."));
    static const char *const cfg[4] = {"rip_padded_gather", "rip_padded_taps", "rip_dense_gather", "rip_dense_taps"};
    for (int i = 0; i < 4; i++) {
        char row[80];
        snprintf(row, sizeof row, "| %s | 1000 | 1000 | 0 |", cfg[i]);
        cr_expect_not_null(strstr(want, row), "%s: not 1000 executed, 1000 bit-exact, 0 early", cfg[i]);
    }
    free(text);
    free(want);
}
