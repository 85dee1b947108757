/*
** test_tables.c — `ripsim tables`: the committed results/table6.md is what
** the command regenerates, and it carries the paper's worked number for the
** Inception-v3 7x1 branch (Sec. 5.3: RiP/herringbone = 1.170).
*/
#include "run_cmd.h"

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f, "%s", path);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = malloc((size_t)n + 1);
    cr_assert_not_null(s);
    cr_assert_eq(fread(s, 1, (size_t)n, f), (size_t)n);
    s[n] = '\0';
    fclose(f);
    return s;
}

static void paths(char *results, char *layers, size_t len)
{
    const char *dir = getenv("RIPSIM_RESULTS_DIR");
    cr_assert_not_null(dir);
    snprintf(results, len, "%s", dir);
    snprintf(layers, len, "%s/../sweeps/layers", dir);
}

Test(tables, table6_regenerates_the_committed_file, .timeout = 600)
{
    char results[512], layers[512], committed[600], out[] = "/tmp/ripsim-table6-XXXXXX";
    paths(results, layers, sizeof results);
    int fd = mkstemp(out);
    cr_assert_geq(fd, 0);
    close(fd);
    run_result *r = RUN("tables", "table6", "--layers-dir", layers, "--out", out);
    cr_assert_eq(r->status, 0, "%s", r->err);
    snprintf(committed, sizeof committed, "%s/table6.md", results);
    char *want = slurp(committed), *got = slurp(out);
    cr_expect_str_eq(got, want, "results/table6.md is stale: run `ripsim tables table6`");
    /* the paper's worst layer, row-major, exactly as printed in Sec. 5.3 */
    cr_expect(strstr(got, "| Mixed_6b.branch7x7_3.conv | 128->192, 17x17, k 7x1, s 1x1, d 1x1, p 3/3/0/0 "
                          "| 58688 | 1.170 |") != NULL);
    cr_expect(strstr(got, "| **All** (paper's All row) | 76 (84) |") != NULL);
    free(want);
    free(got);
    remove(out);
}

Test(tables, errors)
{
    cr_expect_eq(RUN("tables")->status, 64);
    cr_expect_eq(RUN("tables", "table99")->status, 64);
    cr_expect_eq(RUN("tables", "table6", "--bogus")->status, 64);
    run_result *r = RUN("tables", "table6", "--layers-dir", "/nonexistent-ripsim", "--out", "-");
    cr_expect_eq(r->status, 66, "status %d", r->status);
    cr_expect_eq(count_lines(r->err), 1, "%s", r->err);
    r = RUN("tables", "table6", "--out", "/nonexistent-ripsim/x.md");
    cr_expect_eq(r->status, 73, "status %d", r->status);
    cr_expect_eq(RUN("tables", "--help")->status, 0);
}
