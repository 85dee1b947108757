/*
** test_table2.c — `ripsim tables table2` (issue 12, item 7): results/table2.md
** is what the command regenerates, byte for byte; every cell of ours agrees
** with the paper's Tab. 2, whose numbers are typed in here a second time,
** independently of src/report/table2.c, and checked against two identities
** computed here (Err. = Eq. 1 - Truth; Lemma 9's shortfall (k-1) C_in mod
** (C_out - C_in) on the rows of Limitation 1; the critical leg outside the
** grid on the rows of Limitation 2); and a row whose paper cells differ
** from ours is listed as differing.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "run_cmd.h"
#include "table2.h"

/* The paper's Tab. 2, typed from the paper: C_in, C_out, k, H=W, x* x 10, G&M, Truth, Err. */
static const int64_t tab2[7][8] = {
    {1, 5, 3, 14, 5, 531, 533, -2},       {5, 8, 3, 12, 33, 148, 149, -1},
    {8, 11, 3, 10, 53, 45, 46, -1},       {3, 4, 5, 8, 120, 79, 7, 72},
    {8, 9, 7, 9, 480, 2081, 11, 2070},    {16, 17, 9, 12, 1280, 15520, 20, 15500},
    {16, 17, 15, 18, 2240, 48640, 20, 48620},
};

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

/* v as the table prints it: thousands separators, + on a positive Err. */
static void fmt(char *buf, size_t len, int64_t v, bool sign)
{
    int64_t a = v < 0 ? -v : v;
    if (a >= 1000)
        snprintf(buf, len, "%s%lld,%03lld", v < 0 ? "-" : sign ? "+" : "", (long long)(a / 1000),
                 (long long)(a % 1000));
    else
        snprintf(buf, len, "%s%lld", v < 0 ? "-" : sign && v > 0 ? "+" : "", (long long)a);
}

Test(table2, regenerates_the_committed_file)
{
    const char *dir = getenv("RIPSIM_RESULTS_DIR");
    cr_assert_not_null(dir);
    char committed[600], out[] = "/tmp/ripsim-table2-XXXXXX";
    int fd = mkstemp(out);
    cr_assert_geq(fd, 0);
    close(fd);
    run_result *r = RUN("tables", "table2", "--out", out);
    cr_assert_eq(r->status, 0, "%s", r->err);
    snprintf(committed, sizeof committed, "%s/table2.md", dir);
    char *want = slurp(committed), *got = slurp(out);
    cr_expect_str_eq(got, want, "results/table2.md is stale: run `ripsim tables table2`");
    free(want);
    free(got);
    remove(out);
}

/*
** Every row of ours equals the paper's numbers typed above, cell "ours
** (paper)" for x*, Truth, Eq. 1, Err. and Corollary 1 (the paper's Truth,
** per its caption); the numbers obey Err. = Eq. 1 - Truth, Lemma 9 on the
** Limitation 1 rows and floor(x*) > W_out - 1 on the Limitation 2 rows.
*/
Test(table2, every_cell_agrees_with_the_paper)
{
    run_result *r = RUN("tables", "table2", "--out", "-");
    cr_assert_eq(r->status, 0, "%s", r->err);
    for (int i = 0; i < 7; i++) {
        const int64_t *t = tab2[i];
        int64_t cin = t[0], cout = t[1], k = t[2], hw = t[3], eq1 = t[5], truth = t[6], err = t[7];
        cr_expect_eq(err, eq1 - truth, "row %d: the paper's Err. is Eq. 1 - Truth", i + 1);
        int64_t num = (k - 1) * cin, den = cout - cin, w_out = hw - k + 1;
        cr_expect_eq(num * 10 / den, t[4], "row %d: x* = (k-1) C_in / (C_out - C_in)", i + 1);
        if (i < 3)
            cr_expect_eq(truth - eq1, num % den, "row %d: Lemma 9 shortfall", i + 1);
        else
            cr_expect_gt(num / den, w_out - 1, "row %d: the critical leg lies outside the grid", i + 1);
        char xs[32], c[4][32], row[400];
        if (t[4] % 10 == 0)
            snprintf(xs, sizeof xs, "%lld", (long long)(t[4] / 10));
        else
            snprintf(xs, sizeof xs, "%lld.%lld", (long long)(t[4] / 10), (long long)(t[4] % 10));
        fmt(c[0], sizeof c[0], truth, false);
        fmt(c[1], sizeof c[1], eq1, false);
        fmt(c[2], sizeof c[2], err, true);
        snprintf(row, sizeof row, "| %d | %lld | %lld | %lld | %lld | %s (%s) | %s (%s) | %s (%s) | %s (%s) | %s (%s) |",
                 i < 3 ? 1 : 2, (long long)cin, (long long)cout, (long long)k, (long long)hw, xs, xs, c[0], c[0],
                 c[1], c[1], c[2], c[2], c[0], c[0]);
        cr_expect_not_null(strstr(r->out, row), "row %d not as the paper: want %s in\n%s", i + 1, row, r->out);
    }
    cr_expect_not_null(strstr(r->out, "Every cell agrees with the paper"), "%s", r->out);
    cr_expect_null(strstr(r->out, "differ"), "%s", r->out);
}

/* The paper's data in table2.c is the table typed above, row for row. */
Test(table2, the_typed_data_is_the_papers)
{
    size_t n;
    const rip_table2_row *p = rip_table2_paper(&n);
    cr_assert_eq(n, 7);
    for (size_t i = 0; i < n; i++) {
        const int64_t *t = tab2[i];
        cr_expect(p[i].cin == t[0] && p[i].cout == t[1] && p[i].k == t[2] && p[i].hw == t[3] && p[i].eq1 == t[5] &&
                      p[i].truth == t[6] && p[i].err == t[7] && p[i].limitation == (i < 3 ? 1 : 2),
                  "row %zu", i + 1);
    }
}

/* A paper row that differs from ours is listed, cell by cell, and only those cells. */
Test(table2, differing_cells_are_listed)
{
    size_t n;
    const rip_table2_row *p = rip_table2_paper(&n);
    rip_table2_row rows[7];
    memcpy(rows, p, sizeof rows);
    rows[4].eq1 = 2080;      /* Eq. 1 of row 5 mistyped */
    rows[4].x_star = "47";   /* and its x* */
    rows[6].truth = 21;      /* Truth of row 7: also the paper's Corollary 1 cell */
    char *buf = NULL, err[RIP_ERR_LEN];
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    cr_assert_not_null(f);
    cr_assert_eq(rip_table2_write_rows(f, rows, 7, err), RIP_OK, "%s", err);
    fclose(f);
    cr_expect_not_null(strstr(buf, "| 48 (47) |"), "%s", buf);
    cr_expect_not_null(strstr(buf, "| 2,081 (2,080) |"), "%s", buf);
    cr_expect_not_null(strstr(buf, "4 cells differ from the paper: row 5 x*: 48 (paper 47); row 5 Eq. 1: 2,081 "
                                   "(paper 2,080); row 7 Truth: 20 (paper 21); row 7 Corollary 1: 20 (paper 21)."),
                       "%s", buf);
    cr_expect_null(strstr(buf, "Every cell agrees"), "%s", buf);
    free(buf);
    /* a row that is not a layer of the table is refused, not simulated */
    rows[0].cout = rows[0].cin;
    f = open_memstream(&buf, &len);
    cr_assert_not_null(f);
    cr_expect_eq(rip_table2_write_rows(f, rows, 1, err), RIP_S_INTERNAL);
    fclose(f);
    free(buf);
}

Test(table2, listed_in_the_help)
{
    run_result *r = RUN("tables", "--help");
    cr_assert_eq(r->status, 0, "%s", r->err);
    cr_expect_not_null(strstr(r->out, "table2   Tab. 2"), "%s", r->out);
    r = RUN("tables", "table9");
    cr_expect_eq(r->status, 64);
    cr_expect_not_null(strstr(r->err, "known: table2,"), "%s", r->err);
    cr_expect_eq(count_lines(r->err), 1, "%s", r->err);
}
