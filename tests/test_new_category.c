/*
** test_new_category.c — a 21st generator category added by the README's
** checklist alone (issue 23 item 6): tests/new-category.sh runs the
** checklist's commands on a copy of the tree (its own build, its own
** generators suite); this suite then checks the sweep they end with
** against the category's definition, independently of its code: exactly
** 5 of every 105 layers are the new category's (weight 5 beside the
** paper's 100), each a pointwise stride-2 layer, every layer judged; and
** the default sweep is still the paper's, so a database swept before the
** category existed resumes with the new binary.
**
** Environment: RIPSIM_RESULTS_DIR (results/ of the source tree), RIPSIM_BIN.
*/
#include <sys/wait.h>

#include "db_dump.h"
#include "run_cmd.h"
#include "tmpdir.h"

TEST_SUITE_WITH_TMPDIR(new_category, 1800);

/* The source tree: the folder above results/. */
static const char *source_tree(void)
{
    static char path[1024];
    const char *res = getenv("RIPSIM_RESULTS_DIR");
    cr_assert_not_null(res, "RIPSIM_RESULTS_DIR must name results/");
    snprintf(path, sizeof path, "%s/..", res);
    return path;
}

static int sh(const char *cmd)
{
    int st = system(cmd);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

Test(new_category, the_readme_checklist_adds_a_category_the_sweep_draws)
{
    char cmd[16384], db[1024], copy_bin[1024], before[1024];
    const char *src = source_tree();
    /* a database of the default sweep, made before the category exists */
    snprintf(before, sizeof before, "%s/before.db", tmpdir);
    run_result *r = RUN("sweep", "-q", "-n", "300", "--seed", "4", before);
    cr_assert_eq(r->status, 0, "%s", r->err);

    snprintf(cmd, sizeof cmd, "sh '%s/tests/new-category.sh' '%s' '%s/work'", src, src, tmpdir);
    cr_assert_eq(sh(cmd), 0, "the README's checklist did not run (its log is above)");
    snprintf(db, sizeof db, "%s/work/tree/new-category.db", tmpdir);
    snprintf(copy_bin, sizeof copy_bin, "%s/work/tree/build/ripsim", tmpdir);

    /* the set: the paper's 20 at their weights, then the new one at 5 */
    sqlite3 *d;
    sqlite3_stmt *st;
    cr_assert_eq(sqlite3_open_v2(db, &d, SQLITE_OPEN_READONLY, NULL), SQLITE_OK, "%s", db);
    cr_assert_eq(sqlite3_prepare_v2(d, "SELECT generator_set FROM runs", -1, &st, NULL), SQLITE_OK);
    cr_assert_eq(sqlite3_step(st), SQLITE_ROW);
    const char *set = (const char *)sqlite3_column_text(st, 0);
    cr_expect(strncmp(set, "plain:11,same_padding:8,", 24) == 0, "%s", set);
    const char *tail = ",maximal_padding:2,pointwise_stride2:5";
    size_t n = strlen(set), nt = strlen(tail);
    cr_expect(n > nt && strcmp(set + n - nt, tail) == 0, "the set should end '%s': %s", tail, set);
    sqlite3_finalize(st);
    sqlite3_close(d);
    cr_expect_eq(db_scalar(db, "SELECT count(*) FROM layers"), 1050);
    cr_expect_eq(db_scalar(db, "SELECT count(*) FROM layers WHERE generator = 'pointwise_stride2'"), 50,
                 "5 of every 105 layers");
    cr_expect_eq(db_scalar(db, "SELECT count(*) FROM layers WHERE generator = 'pointwise_stride2' AND NOT "
                               "(k_h = 1 AND k_w = 1 AND s_h = 2 AND s_w = 2 AND d_h = 1 AND d_w = 1 AND p_top = 0 "
                               "AND p_bottom = 0 AND p_left = 0 AND p_right = 0)"), 0,
                 "a layer of the new category is not pointwise stride 2");
    cr_expect_eq(db_scalar(db, "SELECT count(*) FROM layers WHERE generator = 'plain'"), 110, "11 of every 105");
    cr_expect_eq(db_scalar(db, "SELECT count(DISTINCT layer_idx) FROM verdicts"), 1050, "every layer judged");

    /* the default is still the paper's: the older database resumes with the new binary */
    snprintf(cmd, sizeof cmd, "'%s' sweep -q -n 300 --seed 4 '%s'", copy_bin, before);
    cr_expect_eq(sh(cmd), 0, "the new binary refuses a default database of the old one");
}
