/*
** test_tflm_table.c — results/tflm.md (`ripsim tables tflm`): the
** committed page is what the command makes of the committed files; on a
** hand-written measurement and link file, every cell worked out by hand
** (the fit against 264 KB / 520 KB and 2 MB / 4 MB, "no build" for a
** missing row, the saving and its share, the CMSIS-NN limits); malformed
** files are refused with one line, nothing written.  The measurement
** itself is pinned by the tflm_offline_peer suite (it needs the vendor
** tree); this one does not.
*/
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "file_text.h"
#include "run_cmd.h"
#include "skip.h"
#include "tmpdir.h"

TEST_SUITE_WITH_TMPDIR(tflm_table, 60);

static const char *result_path(const char *name)
{
    static char path[2][600];
    static int k;
    k ^= 1;
    const char *res = getenv("RIPSIM_RESULTS_DIR");
    cr_assert_not_null(res);
    snprintf(path[k], sizeof path[k], "%s/%s", res, name);
    return path[k];
}

Test(tflm_table, committed_page_regenerates)
{
    if (access(result_path("tflm.tsv"), F_OK) != 0)
        rip_skip("no results/tflm.tsv (tests/tflm/measure-tflm.sh measures it with the vendor tree)");
    const char *out = tmp("tflm.md");
    run_result *r = RUN("tables", "tflm", "--out", out);
    cr_assert_eq(r->status, 0, "%s", r->err);
    char *made = ft_slurp(out, NULL), *committed = ft_slurp(result_path("tflm.md"), NULL);
    cr_expect_str_eq(made, committed, "results/tflm.md is stale (ripsim tables tflm rewrites it)");
    free(made);
    free(committed);
}

static const char head[] =
    "# a hand-written measurement\n# tflm_commit abc123; made by hand\n"
    "case\tlib\tmodel\ttflm_arena\ttflm_min_arena\tgreedy_area\tnoov_area\tnoov_arena\tnoov_min_arena\trip_area\t"
    "rip_lower_bound\trip_arena\trip_min_arena\tpeak_op\tpeak_end\tpeak_live\tfriendly_area\tlimits\ttflm_head\t"
    "noov_head\trip_head\n";
/* A: own 200,000 (smallest 200,008), no overlap 190,000, RiP 150,000 (smallest 150,016);
** B: all 1,000 */
static const char rows[] =
    "A\treference\ta.tflite\t200000\t200008\t120000\t110000\t190000\t190000\t70000\t70000\t150000\t150016\t"
    "2:CONV_2D\t70000\t5:40000 4:40000\t70000\t-\t130000\t120000\t80000\n"
    "A\tcmsis-nn\ta.tflite\t200000\t200008\t120000\t110000\t190000\t190000\t90000\t80000\t170000\t170000\t"
    "input\t90000\t0:90000\t70000\t3:CONV_2D:0:-:40:16 7:ADD:1:900:31:0\t130000\t120000\t100000\n"
    "B\tcmsis-nn\tb.tflite\t1000\t1000\t32\t32\t1000\t1000\t32\t32\t1000\t1000\t0:FULLY_CONNECTED\t32\t0:16 1:16\t"
    "32\t-\t32\t32\t32\n";

Test(tflm_table, cells_worked_out_by_hand)
{
    const char *tsv = tmp("m.tsv"), *link = tmp("link.tsv"), *out = tmp("page.md");
    char text[4096];
    snprintf(text, sizeof text, "%s%s", head, rows);
    ft_put(tsv, text);
    /* Pico 1: 270,336 B of SRAM; Pico 2: 532,480 B.  A reference, Pico 1, rest 100,000: own 300,008 over, RiP
    ** 250,016 within; Pico 2, rest 382,464: own 582,472 over, RiP 532,480 exactly within.  A cmsis-nn on a Pico 1:
    ** 2,097,153 B of flash, one over 2 MB.  No Pico 2 row for A cmsis-nn, none at all for B. */
    ft_put(link, "# links\ncase\tlib\tboard\tram_rest\tflash\n"
              "A\tref\tpico\t100000\t500000\n"
              "A\ttflm-reference\tpico2\t382464\t4194304\n"
              "A\tcmsis\tpico\t1000\t2097153\n");
    run_result *r = RUN("tables", "tflm", "--tflm", tsv, "--link", link, "--out", out);
    cr_assert_eq(r->status, 0, "%s", r->err);
    char *page = ft_slurp(out, NULL);
    /* saved 200,000 - 150,000 = 50,000, 25.0% */
    cr_expect(strstr(page, "| A (`a.tflite`) | reference | 200000 | 190000 | 150000 | 50000 | 25.0% | no / yes | "
                           "no / yes |\n"), "%s", page);
    cr_expect(strstr(page, "| A (`a.tflite`) | cmsis-nn | 200000 | 190000 | 170000 | 30000 | 15.0% | no: flash | "
                           "no build |\n"), "%s", page);
    cr_expect(strstr(page, "| B (`b.tflite`) | cmsis-nn | 1000 | 1000 | 1000 | 0 | 0.0% | no build | no build |\n"),
              "%s", page);
    cr_expect(strstr(page, "Below TFLM's own arena on 2 of 3 rows without overlap, on 2 with ripsim's overlaps."),
              "%s", page);
    cr_expect(strstr(page, "TensorFlow Lite Micro tflm_commit abc123,"), "%s", page);
    cr_expect(strstr(page, "| A | reference | 120000 | 110000 | 70000 | 70000 | 130000 / 120000 / 80000 | "
                           "200008 / 190000 / 150016 |\n"), "%s", page);
    cr_expect(strstr(page, "| A | reference | 2 (CONV_2D) | 5: 40000, 4: 40000 (80000) | 70000, at its bound | "
                           "70000 (0 less) |\n"), "%s", page);
    cr_expect(strstr(page, "| A | cmsis-nn | input | 0: 90000 (90000) | 90000, bound 80000 | 70000 (20000 less) |\n"),
              "%s", page);
    cr_expect(strstr(page, "| A | 3 (CONV_2D) | 0 | none | 40 | 16 |\n| A | 7 (ADD) | 1 | 900 | 31 | 0 |\n"), "%s",
              page);
    cr_expect(!strstr(page, "| B | 0 (FULLY"), "B has no limits: %s", page);
    free(page);
    /* without a link file every fit cell says so */
    r = RUN("tables", "tflm", "--tflm", tsv, "--out", out);
    cr_assert_eq(r->status, 0, "%s", r->err);
    page = ft_slurp(out, NULL);
    cr_expect(strstr(page, "| 50000 | 25.0% | no build | no build |\n"), "%s", page);
    free(page);
}

/* Malformed or missing files: one line, the status, nothing written. */
Test(tflm_table, refuses_bad_files)
{
    const char *tsv = tmp("m.tsv"), *link = tmp("link.tsv"), *out = tmp("bad.md");
    char text[4096];
    snprintf(text, sizeof text, "%s%s", head, rows);
    ft_put(tsv, text);
    static const struct { int status; const char *link, *want; } cases[] = {
        {65, "case\tlib\tboard\tram_rest\tflash\nA\tref\tpico3\t1\t1\n", "link.tsv:2: board must be pico or pico2"},
        {65, "case\tlib\tboard\tram_rest\tflash\nA\tarm\tpico\t1\t1\n", "link.tsv:2: lib must be"},
        {65, "case\tlib\tboard\tram_rest\nA\tref\tpico\t1\n", "link.tsv:1: expected the header line"},
        {65, "case\tlib\tboard\tram_rest\tflash\nA\tref\tpico\t-1\t1\n", "link.tsv:2: ram_rest and flash"},
        {66, NULL, "link.tsv: cannot open"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        if (cases[i].link)
            ft_put(link, cases[i].link);
        else
            unlink(link);
        run_result *r = RUN("tables", "tflm", "--tflm", tsv, "--link", link, "--out", out);
        cr_expect_eq(r->status, cases[i].status, "case %zu: %d: %s", i, r->status, r->err);
        cr_expect(strstr(r->err, cases[i].want), "case %zu: %s", i, r->err);
        cr_expect_eq(count_lines(r->err), 1, "case %zu: %s", i, r->err);
        cr_expect(!exists(out), "case %zu: written", i);
    }
    /* the measurement: no provenance, a bad limits field, a missing file */
    snprintf(text, sizeof text, "%s", strchr(head, '\n') + 1);
    char *nl = strchr(text, '\n');
    memmove(text, nl + 1, strlen(nl + 1) + 1);   /* both '#' lines gone */
    ft_put(tsv, text);
    run_result *r = RUN("tables", "tflm", "--tflm", tsv, "--out", out);
    cr_expect(r->status == 65 && strstr(r->err, "no '# tflm_commit ...' provenance line"), "%d: %s", r->status, r->err);
    snprintf(text, sizeof text, "%sA\treference\ta.tflite\t1\t1\t1\t1\t1\t1\t1\t1\t1\t1\tinput\t1\t0:1\t1\t3:CONV\t1\t1\t1\n",
             head);
    ft_put(tsv, text);
    r = RUN("tables", "tflm", "--tflm", tsv, "--out", out);
    cr_expect(r->status == 65 && strstr(r->err, "case A: limits must be"), "%d: %s", r->status, r->err);
    unlink(tsv);
    r = RUN("tables", "tflm", "--tflm", tsv, "--out", out);
    cr_expect_eq(r->status, 66, "%s", r->err);
    cr_expect(!exists(out));
    r = RUN("tables", "table2", "--link", link);
    cr_expect_eq(r->status, 64, "%s", r->err);
    cr_expect(strstr(r->err, "--link is only for tflm"), "%s", r->err);
}
