/*
** test_tables.c — `ripsim tables`: every committed table and figure under
** results/ is what the command regenerates, byte for byte (table3.md,
** table6.md, table7.md in its `--no-times` form, fig1.svg), and each
** carries the paper's numbers it claims: the Inception-v3 7x1 branch
** (Sec. 5.3: RiP/herringbone = 1.170), Tab. 3's peaks, Tab. 7's peaks.
*/
#include <time.h>

#include "paper_data.h"
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

/* Tab. 3: the committed file is what `ripsim tables table3` writes, and the
** paper's peaks are reproduced byte for byte (Base by the tinyengine
** strategy, RiP by milp), with six and nine models fitting a Pico 1. */
Test(tables, table3_regenerates_and_matches_the_paper, .timeout = 900)
{
    char results[512], layers[512], committed[600], models[600], out[] = "/tmp/ripsim-table3-XXXXXX";
    paths(results, layers, sizeof results);
    snprintf(models, sizeof models, "%s/../firmware/models", results);
    int fd = mkstemp(out);
    cr_assert_geq(fd, 0);
    close(fd);
    run_result *r = RUN("tables", "table3", "--models-dir", models, "--out", out);
    cr_assert_eq(r->status, 0, "%s", r->err);
    snprintf(committed, sizeof committed, "%s/table3.md", results);
    char *want = slurp(committed), *got = slurp(out);
    cr_expect_str_eq(got, want, "results/table3.md is stale: run `ripsim tables table3`");
    static const char *const rows[] = {
        "| MCUNet-in0 | 3984 | 46080 (46080) | 36864 (36864) |",
        "| MCUNet-in3 | 18536 | 247808 (247808) | 185856 (185856) |",
        "| Person-Det | 11688 | 245760 (245760) | 163840 (163840) |",
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
        cr_expect(strstr(got, rows[i]) != NULL, "missing %s", rows[i]);
    cr_expect(strstr(got, "11 of 11 models reproduce both peaks") != NULL);
    cr_expect(strstr(got, "Fits Pico 1: 6 (paper 6) of eleven at baseline, 9 (paper 9) with RiP") != NULL);
    free(want);
    free(got);
    remove(out);
}

/* Tab. 7 on the graphs that solve in seconds: the dual-buffer MILP (no
** in-place at all) and the RiP MILP reach the paper's peaks exactly
** (firmware/models/keras/table7_reference.csv: MobileNet 1,176.0 / 784.0 KB,
** VGG-16 6,272.0 / 3,150.1 KB with one shift, ResNet-50 2,352.0 / 1,568.0 KB),
** proven optimal. The whole table is `ripsim tables table7` (minutes). */
Test(tables, table7_small_graphs_reach_the_paper_peaks, .timeout = 900)
{
    char results[512], layers[512], path[700];
    paths(results, layers, sizeof results);
    static const struct { const char *graph; const char *dual, *rip; } rows[] = {
        {"MobileNet", "1,204,224 B", "802,816 B"},
        {"VGG16", "6,422,528 B", "3,225,664 B"},
        {"ResNet50", "2,408,448 B", "1,605,632 B"},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        snprintf(path, sizeof path, "%s/../firmware/models/keras/graphs/%s.csv", results, rows[i].graph);
        run_result *r = RUN("plan", path, "--strategy", "milp", "--dual", "--time-limit", "120");
        cr_assert_eq(r->status, 0, "%s: %s", rows[i].graph, r->err);
        cr_expect(strstr(r->out, rows[i].dual) != NULL, "%s dual: %s", rows[i].graph, r->out);
        cr_expect(strstr(r->out, "optimal      yes") != NULL, "%s dual not proven", rows[i].graph);
        r = RUN("plan", path, "--strategy", "milp", "--time-limit", "120");
        cr_assert_eq(r->status, 0, "%s: %s", rows[i].graph, r->err);
        cr_expect(strstr(r->out, rows[i].rip) != NULL, "%s RiP: %s", rows[i].graph, r->out);
        cr_expect(strstr(r->out, "optimal      yes") != NULL, "%s RiP not proven", rows[i].graph);
    }
}

/* Regenerate `ripsim tables NAME ARGS...` into a fresh temporary folder as
** FILE and return its bytes and the command's status; *took receives the
** wall-clock seconds. */
static char *regenerate(const char *name, const char *file, const char *extra, int *status, double *took,
                        char *path, size_t len)
{
    char results[512], layers[512], models[600], dir[] = "/tmp/ripsim-tables-XXXXXX";
    paths(results, layers, sizeof results);
    snprintf(models, sizeof models, "%s/../firmware/models", results);
    cr_assert_not_null(mkdtemp(dir));
    snprintf(path, len, "%s/%s", dir, file);
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    run_result *r = extra ? RUN("tables", name, extra, "--models-dir", models, "--out", path)
                          : RUN("tables", name, "--models-dir", models, "--out", path);
    clock_gettime(CLOCK_MONOTONIC, &b);
    *took = (double)(b.tv_sec - a.tv_sec) + 1e-9 * (double)(b.tv_nsec - a.tv_nsec);
    *status = r->status;
    if (r->status != 0)
        fprintf(stderr, "tables %s: status %d: %s", name, r->status, r->err);
    return slurp(path);
}

/* Remove what regenerate() wrote: the files of the folder, then it. */
static void cleanup(const char *path, const char *also)
{
    char dir[600], other[700];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    cr_assert_not_null(slash);
    *slash = '\0';
    remove(path);
    if (also) {
        snprintf(other, sizeof other, "%s/%s", dir, also);
        remove(other);
    }
    rmdir(dir);
}

/* Tab. 7 in its reproducible form (`--no-times`: no wall-clock column, as
** its header says) is results/table7.md byte for byte: every program is
** solved to proven optimality well inside the default 150 s limit, so
** nothing in it depends on the machine's speed.  All 33 graphs, about 15 s. */
Test(tables, table7_regenerates_the_committed_file, .timeout = 900)
{
    char results[512], layers[512], committed[600], out[700];
    paths(results, layers, sizeof results);
    int status;
    double took;
    char *got = regenerate("table7", "table7.md", "--no-times", &status, &took, out, sizeof out);
    fprintf(stderr, "tables table7 --no-times: %.1f s\n", took);
    cr_assert_eq(status, 0);
    snprintf(committed, sizeof committed, "%s/table7.md", results);
    char *want = slurp(committed);
    cr_expect_str_eq(got, want, "results/table7.md is stale: run `ripsim tables table7 --no-times`");
    /* the paper's peaks (KB) of the three graphs also planned one by one in
    ** table7_small_graphs_reach_the_paper_peaks, and the form's promise */
    cr_expect(strstr(got, "| MobileNet | 29 (29) |") != NULL);
    cr_expect(strstr(got, "| 1176.0 (1176.0) | 784.0 (784.0) | 2/3 (2/3) |") != NULL);
    cr_expect(strstr(got, "| 6272.0 (6272.0) | 3150.1 (3150.1) | 0.502 (0.502) |") != NULL);
    cr_expect(strstr(got, "| 2352.0 (2352.0) | 1568.0 (1568.0) | 2/3 (2/3) |") != NULL);
    cr_expect(strstr(got, "33 of 33 solved to proven optimality") != NULL);
    cr_expect(strstr(got, "Solve dual") == NULL, "a time column in the --no-times form");
    free(want);
    free(got);
    cleanup(out, NULL);
}

/* Fig. 1 is results/fig1.svg byte for byte (the PNG is rsvg-convert's
** rendering of it, whose bytes depend on librsvg: not compared; without
** rsvg-convert the command says so with status 69 and keeps the SVG), and
** its three peaks are MCUNet-in3's of Tab. 3: TinyEngine 247,808 B and
** RiP 185,856 B (the paper's), naive dual buffering above both. */
Test(tables, fig1_regenerates_the_committed_svg, .timeout = 600)
{
    char results[512], layers[512], committed[600], out[700];
    paths(results, layers, sizeof results);
    int status;
    double took;
    char *got = regenerate("fig1", "fig1.svg", NULL, &status, &took, out, sizeof out);
    cr_assert(status == 0 || status == 69, "status %d", status);
    snprintf(committed, sizeof committed, "%s/fig1.svg", results);
    char *want = slurp(committed);
    cr_expect_str_eq(got, want, "results/fig1.svg is stale: run `ripsim tables fig1`");
    cr_expect(strstr(got, "MCUNet-in3 on a Pico 1") != NULL);
    cr_expect(strstr(got, ">peak 247808 B: overruns by") != NULL, "TinyEngine's peak");
    cr_expect(strstr(got, ">peak 185856 B: fits by") != NULL, "RiP's peak");
    free(want);
    free(got);
    cleanup(out, "fig1.png");
}

/* ---- the paper's numbers (paper_data.h) against the models' reference CSVs ----
** firmware/models/{mcunet,keras}: table3_reference.csv, table7_reference.csv and
** table3_deployment_reference.csv
** were typed from the paper separately, with their provenance; the library
** reads paper_data.h, so the two copies must agree cell for cell. */

/* The line of `csv` whose first field is `key` (a static buffer), or NULL. */
static const char *csv_row(const char *csv, const char *key)
{
    static char line[1024];
    size_t k = strlen(key);
    for (const char *p = csv; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
        if (strncmp(p, key, k) == 0 && p[k] == ',') {
            size_t n = strcspn(p, "\n");
            cr_assert_lt(n, sizeof line);
            memcpy(line, p, n);
            line[n] = '\0';
            return line;
        }
    }
    return NULL;
}

/* Field i (0-based) of a CSV line without quotes, into buf. */
static const char *csv_field(const char *line, int i, char *buf, size_t len)
{
    const char *p = line;
    for (int j = 0; j < i; j++) {
        p = strchr(p, ',');
        cr_assert_not_null(p, "field %d of %s", i, line);
        p++;
    }
    size_t n = strcspn(p, ",");
    cr_assert_lt(n, len);
    memcpy(buf, p, n);
    buf[n] = '\0';
    return buf;
}

Test(tables, paper_data_tab3_is_the_reference_csv)
{
    char results[512], layers[512], path[1100], f[64];
    paths(results, layers, sizeof results);
    snprintf(path, sizeof path, "%s/../firmware/models/mcunet/table3_reference.csv", results);
    char *ref = slurp(path);
    snprintf(path, sizeof path, "%s/../firmware/models/mcunet/table3_deployment_reference.csv", results);
    char *cost = slurp(path);
    int n = 0;
#define TAB3_CHECK(file, name, buffer, base, rip, num, den, p2, p1, base_fits, rip_fits)                         \
    do {                                                                                                     \
        const char *r = csv_row(ref, file);                                                                  \
        cr_assert_not_null(r, "%s not in table3_reference.csv", file);                                       \
        cr_expect_eq(atoll(csv_field(r, 4, f, sizeof f)), buffer, "%s buffer", file);                        \
        cr_expect_eq(atoll(csv_field(r, 5, f, sizeof f)), base, "%s base", file);                            \
        cr_expect_eq(atoll(csv_field(r, 6, f, sizeof f)), rip, "%s rip", file);                              \
        cr_expect_eq((long long)(rip) * (den), (long long)(base) * (num), "%s: RiP/Base is %d/%d", file, num, den); \
        const char *c = csv_row(cost, file);                                                                 \
        cr_assert_not_null(c, "%s not in table3_deployment_reference.csv", file);                            \
        cr_expect_str_eq(csv_field(c, 3, f, sizeof f), p2, "%s Pico 2 ratio", file);                         \
        cr_expect_str_eq(csv_field(c, 6, f, sizeof f), p1, "%s Pico 1 ratio", file);                         \
        cr_expect_eq(*csv_field(c, 4, f, sizeof f) != '\0', base_fits, "%s: a Pico 1 base time", file);       \
        cr_expect_eq(*csv_field(c, 5, f, sizeof f) != '\0', rip_fits, "%s: a Pico 1 RiP time", file);         \
        n++;                                                                                                 \
    } while (0);
    RIP_PAPER_TAB3(TAB3_CHECK)
#undef TAB3_CHECK
    cr_expect_eq(n, 11);
    free(ref);
    free(cost);
}

Test(tables, paper_data_tab7_is_the_reference_csv)
{
    char results[512], layers[512], path[1100], f[64];
    paths(results, layers, sizeof results);
    snprintf(path, sizeof path, "%s/../firmware/models/keras/table7_reference.csv", results);
    char *ref = slurp(path);
    int n = 0;
    /* the CSV is in Tab. 7's order: row n + 1 (after the header) is the paper's row n */
#define TAB7_CHECK(name, ops, res, vars, constr, dual_s, rip_s, dual_kb, rip_kb, ratio, inplace, shift)          \
    do {                                                                                                     \
        const char *r = ref;                                                                                 \
        for (int j = 0; j <= n; j++)                                                                         \
            r = strchr(r, '\n') + 1;                                                                         \
        char line[1024];                                                                                     \
        snprintf(line, sizeof line, "%.*s", (int)strcspn(r, "\n"), r);                                       \
        cr_expect_eq(atoi(csv_field(line, 4, f, sizeof f)), ops, "%s ops", name);                            \
        cr_expect_eq(atoi(csv_field(line, 5, f, sizeof f)), res, "%s res", name);                            \
        cr_expect_eq(atol(csv_field(line, 6, f, sizeof f)), vars, "%s vars", name);                          \
        cr_expect_eq(strtod(csv_field(line, 7, f, sizeof f), NULL), dual_kb, "%s dual KB", name);            \
        cr_expect_eq(strtod(csv_field(line, 8, f, sizeof f), NULL), rip_kb, "%s RiP KB", name);              \
        n++;                                                                                                 \
    } while (0);
    RIP_PAPER_TAB7(TAB7_CHECK)
#undef TAB7_CHECK
    cr_expect_eq(n, 33);
    free(ref);
}
