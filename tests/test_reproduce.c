/*
** test_reproduce.c — `ripsim reproduce` (src/cli/cmd_reproduce.c): on the
** cheap artefacts (table2, table3, table6, fig3, real-models, tflm: about a
** second together) `--check` finds results/ identical; a copy of results/
** with one byte changed (`--results DIR`) is reported as differing, exit
** 1, and left as it was, and without --check that file is rewritten to the
** committed bytes; an input missing from DIR is reported as skipped; an
** unknown --only name exits 2 listing the valid ones; the deployment without
** a pico-sdk is skipped, saying why.  The expensive artefacts (the sweeps,
** table7, the deployment) are measured by hand (the README's table of
** artefacts).
**
** Environment: RIPSIM_BIN and RIPSIM_RESULTS_DIR (tests/meson.build).
*/
#define _XOPEN_SOURCE 700 /* mkdtemp */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "file_text.h"
#include "run_cmd.h"

#define CHEAP "table2,table3,table6,fig3,real-models,tflm"

/* The line of the closing table (in out) whose first word is name. */
static const char *row_of(const char *out, const char *name)
{
    size_t len = strlen(name);
    for (const char *l = out; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
        if (strncmp(l, name, len) == 0 && l[len] == ' ')
            return l;
    return NULL;
}

/* Does the table line of name end in verdict (the rest of the line)? */
static bool row_says(const char *out, const char *name, const char *verdict)
{
    const char *l = row_of(out, name);
    if (!l)
        return false;
    const char *end = strchr(l, '\n');
    size_t n = end ? (size_t)(end - l) : strlen(l), v = strlen(verdict);
    return n >= v && strncmp(l + n - v, verdict, v) == 0;
}

/* results/NAME copied into dir/NAME, its byte at flip (when >= 0) changed. */
static void copy_result(const char *dir, const char *name, long flip)
{
    char from[4096], to[4096];
    size_t len;
    snprintf(from, sizeof from, "%s/%s", getenv("RIPSIM_RESULTS_DIR"), name);
    snprintf(to, sizeof to, "%s/%s", dir, name);
    char *b = ft_slurp(from, &len);
    if (flip >= 0) {
        cr_assert_lt((size_t)flip, len);
        b[flip] = b[flip] == 'x' ? 'y' : 'x';
    }
    FILE *f = fopen(to, "wb");
    cr_assert_not_null(f);
    cr_assert_eq(fwrite(b, 1, len, f), len);
    cr_assert_eq(fclose(f), 0);
    free(b);
}

/* Are dir/name and results/name the same bytes? */
static bool same_as_committed(const char *dir, const char *name)
{
    char a[4096], b[4096];
    size_t la, lb;
    snprintf(a, sizeof a, "%s/%s", dir, name);
    snprintf(b, sizeof b, "%s/%s", getenv("RIPSIM_RESULTS_DIR"), name);
    char *x = ft_slurp(a, &la), *y = ft_slurp(b, &lb);
    bool same = la == lb && memcmp(x, y, la) == 0;
    free(x);
    free(y);
    return same;
}

/* Remove dir and the files named (NULL-terminated) in it. */
static void remove_dir(const char *dir, const char *const *names)
{
    for (int k = 0; names[k]; k++) {
        char p[4096];
        snprintf(p, sizeof p, "%s/%s", dir, names[k]);
        unlink(p);
    }
    cr_expect_eq(rmdir(dir), 0, "%s: something was left in it", dir);
}

Test(reproduce, cheap_artefacts_are_identical)
{
    cr_assert_not_null(getenv("RIPSIM_RESULTS_DIR"));
    run_result *r = RUN("reproduce", "--check", "--only", CHEAP);
    cr_assert_eq(r->status, 0, "status %d\n%s%s", r->status, r->out, r->err);
    static const char *const names[] = {"table2", "table3", "table6", "fig3", "real-models", "tflm"};
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++)
        cr_expect(row_says(r->out, names[k], "identical"), "%s is not identical:\n%s", names[k], r->out);
    cr_expect_null(strstr(r->out, "differs"), "%s", r->out);
    cr_expect(strncmp(r->out, "artefact ", 9) == 0, "the table's header:\n%s", r->out);
}

Test(reproduce, an_altered_copy_differs_and_is_rewritten)
{
    char dir[] = "/tmp/ripsim-test-reproduce.XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    copy_result(dir, "table2.md", 100);
    copy_result(dir, "fig3.svg", -1);
    run_result *r = RUN("reproduce", "--check", "--only", "table2,fig3", "--results", dir);
    cr_expect_eq(r->status, 1, "status %d\n%s%s", r->status, r->out, r->err);
    cr_expect(row_says(r->out, "table2", "differs"), "%s", r->out);
    cr_expect(row_says(r->out, "fig3", "identical"), "%s", r->out);
    cr_expect_not(same_as_committed(dir, "table2.md"), "--check wrote table2.md");

    r = RUN("reproduce", "--only", "table2,fig3", "--results", dir);
    cr_expect_eq(r->status, 0, "status %d\n%s%s", r->status, r->out, r->err);
    cr_expect(row_says(r->out, "table2", "differs (written)"), "%s", r->out);
    cr_expect(same_as_committed(dir, "table2.md"), "table2.md not rewritten to the committed bytes");
    r = RUN("reproduce", "--check", "--only", "table2", "--results", dir);
    cr_expect_eq(r->status, 0, "status %d after the rewrite\n%s%s", r->status, r->out, r->err);
    remove_dir(dir, (const char *const[]){"table2.md", "fig3.svg", NULL});
}

Test(reproduce, a_missing_input_is_skipped_and_a_missing_file_is_new)
{
    char dir[] = "/tmp/ripsim-test-reproduce.XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    run_result *r = RUN("reproduce", "--check", "--only", "tflm,fig3", "--results", dir);
    cr_expect_eq(r->status, 1, "status %d\n%s%s", r->status, r->out, r->err);
    cr_expect_not_null(strstr(r->out, "skipped: no "), "%s", r->out);
    cr_expect_not_null(strstr(r->out, "tflm.tsv"), "%s", r->out);
    cr_expect(row_says(r->out, "fig3", "new"), "%s", r->out);
    remove_dir(dir, (const char *const[]){NULL});
}

Test(reproduce, an_unknown_name_exits_2)
{
    run_result *r = RUN("reproduce", "--check", "--only", "table2,table9");
    cr_expect_eq(r->status, 64, "status %d\n%s", r->status, r->err);
    cr_expect_not_null(strstr(r->err, "'table9'"), "%s", r->err);
    cr_expect_not_null(strstr(r->err, "table2, deployment, table3"), "the valid names: %s", r->err);
    cr_expect_eq(r->out[0], '\0', "nothing made: %s", r->out);
    r = RUN("reproduce", "--only", "table2,,fig3");
    cr_expect_eq(r->status, 64, "an empty name: status %d\n%s", r->status, r->err);
}

Test(reproduce, table5_names_the_sweep_report)
{
    run_result *r = RUN("reproduce", "--help");
    cr_assert_eq(r->status, 0);
    cr_expect_not_null(strstr(r->out, "table5, sec5.2 and appE.3 name sweep-report"), "%s", r->out);
    cr_expect_not_null(strstr(r->out, "sweep-report.md"), "%s", r->out);
}

/* Without a pico-sdk (PICO_SDK_PATH set empty: none, as link-boards.sh
** reads it) the deployment is skipped at once, saying why, exit 0. */
Test(reproduce, the_deployment_without_a_pico_sdk_is_skipped)
{
    run_result *r = RUN_ENV("PICO_SDK_PATH=", "reproduce", "--check", "--only", "deployment");
    cr_expect_eq(r->status, 0, "status %d\n%s%s", r->status, r->out, r->err);
    const char *row = row_of(r->out, "deployment");
    cr_assert_not_null(row, "%s", r->out);
    cr_expect_not_null(strstr(row, "skipped: no "), "%s", r->out);
}
