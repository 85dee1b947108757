/*
** test_layers.c — `ripsim layers FILE.csv` as a user meets it: hand-checked
** workspaces of small layers (paper Tab. 2, App. I), grouped rows listed but
** not evaluated, every class of malformed row with its exit status and one
** FILE:ROW: FIELD line, --skip-bad, stdin, and the real ResNet-50 table,
** where every closed form must be tight against the simulator.
**
** Expected numbers are worked out by hand from the geometry (comments give
** the arithmetic) or quoted from the paper; none is read back from ripsim.
** The binary under test is $RIPSIM_BIN (set by tests/meson.build).
*/
#include <fcntl.h>

#include "run_cmd.h"

#define HEADER "layer_name,c_in,c_out,h_in,w_in,k_h,k_w,s_h,s_w,d_h,d_w,p_top,p_left,p_bottom,p_right,groups\n"

/* ---- helpers: a temp dir per test, files in it, a small CSV reader ---- */

static char tmpdir[256];

static void make_tmpdir(void)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/ripsim-layers-XXXXXX");
    cr_assert_not_null(mkdtemp(tmpdir));
}

static void cleanup(void)
{
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    if (tmpdir[0] && system(cmd) != 0)
        cr_log_warn("could not remove %s", tmpdir);
}

TestSuite(layers, .init = make_tmpdir, .fini = cleanup);

/* Write text to tmpdir/name; returns the path (static buffer per call site is
** not enough, so each call gets its own slot). */
static const char *write_file(const char *name, const char *text)
{
    static char paths[8][320];
    static int next;
    char *p = paths[next++ % 8];
    snprintf(p, 320, "%s/%s", tmpdir, name);
    FILE *f = fopen(p, "w");
    cr_assert_not_null(f, "cannot create %s", p);
    fputs(text, f);
    cr_assert_eq(fclose(f), 0);
    return p;
}

/* Split one CSV line (quotes as in RFC 4180) into fields; returns the count. */
static int split_csv(const char *line, char fields[][160], int max)
{
    int n = 0;
    const char *p = line;
    while (n < max) {
        char *w = fields[n++];
        size_t len = 0;
        if (*p == '"') {
            p++;
            while (*p && !(*p == '"' && p[1] != '"')) {
                if (*p == '"')
                    p++;
                if (len < 159)
                    w[len++] = *p;
                p++;
            }
            if (*p == '"')
                p++;
        } else {
            while (*p && *p != ',' && *p != '\n') {
                if (len < 159)
                    w[len++] = *p;
                p++;
            }
        }
        w[len] = '\0';
        if (*p != ',')
            break;
        p++;
    }
    return n;
}

#define MAXF 80

typedef struct {
    char head[MAXF][160];
    int ncols;
    char rows[64][MAXF][160];
    int nrows;
} csv_doc;

static csv_doc doc;

/* Parse ripsim's CSV output (one record per line: no field holds a newline). */
static csv_doc *parse_csv(const char *out)
{
    memset(&doc, 0, sizeof doc);
    const char *line = out;
    int i = 0;
    while (*line) {
        const char *nl = strchr(line, '\n');
        cr_assert_not_null(nl, "CSV output must end with a newline");
        char buf[4096];
        size_t len = (size_t)(nl - line);
        cr_assert_lt(len, sizeof buf);
        memcpy(buf, line, len);
        buf[len] = '\0';
        if (i == 0) {
            doc.ncols = split_csv(buf, doc.head, MAXF);
        } else {
            cr_assert_lt(doc.nrows, 64);
            int n = split_csv(buf, doc.rows[doc.nrows], MAXF);
            cr_assert_eq(n, doc.ncols, "row %d has %d fields, header %d: %s", i, n, doc.ncols, buf);
            doc.nrows++;
        }
        i++;
        line = nl + 1;
    }
    return &doc;
}

static int col(const csv_doc *d, const char *name)
{
    for (int c = 0; c < d->ncols; c++)
        if (strcmp(d->head[c], name) == 0)
            return c;
    cr_assert_fail("no column '%s' in the CSV header", name);
    return -1;
}

static int row_of(const csv_doc *d, const char *layer)
{
    int c = col(d, "layer_name");
    for (int r = 0; r < d->nrows; r++)
        if (strcmp(d->rows[r][c], layer) == 0)
            return r;
    cr_assert_fail("no row for layer '%s'", layer);
    return -1;
}

static const char *field(const csv_doc *d, const char *layer, const char *name)
{
    return d->rows[row_of(d, layer)][col(d, name)];
}

static long long num(const csv_doc *d, const char *layer, const char *name)
{
    const char *s = field(d, layer, name);
    char *end;
    cr_assert(*s != '\0', "%s.%s is empty", layer, name);
    long long v = strtoll(s, &end, 10);
    cr_assert(*end == '\0', "%s.%s = '%s' is not an integer", layer, name, s);
    return v;
}

/* ---- hand-checkable layers ---- */

static const char small_table[] =
    HEADER
    /* VGG-16 conv1_2: 64 -> 64, 224x224, k3, same padding (paper App. I) */
    "vgg_conv1_2,64,64,224,224,3,3,1,1,1,1,1,1,1,1,1\n"
    /* paper Tab. 2, first row: 1 -> 5, 14x14, k3, restricted */
    "tab2_row1,1,5,14,14,3,3,1,1,1,1,0,0,0,0,1\n"
    /* MobileNet-style depthwise: groups = c_in */
    "dw,32,32,112,112,3,3,1,1,1,1,1,1,1,1,32\n";

Test(layers, help_and_command_list)
{
    run_result *r = RUN("layers", "--help");
    cr_assert_eq(r->status, 0);
    cr_expect(strstr(r->out, "usage: ripsim layers") != NULL, "%s", r->out);
    cr_expect(strstr(r->out, "--skip-bad") && strstr(r->out, "--format") && strstr(r->out, "--no-sim") &&
              strstr(r->out, "--engine"));
    r = RUN("--help");
    cr_assert_eq(r->status, 0);
    cr_expect(strstr(r->out, "  layers ") != NULL, "main help lists the command: %s", r->out);
}

Test(layers, hand_checked_csv_values)
{
    const char *path = write_file("small.csv", small_table);
    run_result *r = RUN("layers", "--format", "csv", path);
    cr_assert_eq(r->status, 0, "%s", r->err);
    cr_expect_str_empty(r->err);
    csv_doc *d = parse_csv(r->out);
    cr_assert_eq(d->nrows, 3, "one row per layer, grouped included");

    /* VGG-16 conv1_2.  N_in padded = 226*226*64 = 3,268,864, N_in dense =
    ** N_out = 224*224*64 = 3,211,264; dual buffer = 6,480,128.  Paper App. I:
    ** the dense workspace is N_out + (p_h W_out + p_w) C_out = 3,211,264 +
    ** 225*64 = 3,225,664 with gathered taps (sigma = 0).  Sec. 5.3 reads taps
    ** from the workspace (sigma = C_out), which adds one pixel's C_out = 64. */
    const char *v = "vgg_conv1_2";
    cr_expect_eq(num(d, v, "h_out"), 224);
    cr_expect_eq(num(d, v, "n_in_padded"), 3268864);
    cr_expect_eq(num(d, v, "n_in_dense"), 3211264);
    cr_expect_eq(num(d, v, "n_out"), 3211264);
    cr_expect_eq(num(d, v, "w_naive"), 6480128);
    cr_expect_eq(num(d, v, "naive_workspace"), 6480128);
    cr_expect_eq(num(d, v, "n_in_dense") + num(d, v, "thm13_gather"), 3225664, "paper App. I");
    cr_expect_eq(num(d, v, "n_in_dense") + num(d, v, "truth_rip_dense_gather"), 3225664, "simulated");
    cr_expect_eq(num(d, v, "w_dense"), 3225664 + 64);
    cr_expect_eq(num(d, v, "w_dense"), num(d, v, "n_in_dense") + num(d, v, "thm13_taps"));
    cr_expect_eq(num(d, v, "groups"), 1);
    cr_expect_eq(num(d, v, "generalized"), 1, "padded, so outside G&M's restrictions");
    cr_expect_str_empty(field(d, v, "gm2019_eq1"), "Eq. 1 needs the restricted setting");
    cr_expect_str_empty(field(d, v, "corollary1"));
    cr_expect_str_eq(field(d, v, "verdict_corollary1"), "n/a");
    cr_expect_str_eq(field(d, v, "verdict_thm11"), "tight");
    cr_expect_str_eq(field(d, v, "verdict_thm13_taps"), "tight");
    cr_expect_str_eq(field(d, v, "check"), "ok");
    cr_expect_str_empty(field(d, v, "note"));
    /* Eq. 42: a padded layer, so the dense workspace is strictly smaller */
    cr_expect_lt(num(d, v, "w_dense"), num(d, v, "w_rip"));
    cr_expect_geq(num(d, v, "gap_dense"), num(d, v, "gap_padded"));
    /* square layer: column-major is row-major of the same layer */
    cr_expect_eq(num(d, v, "w_rip_col"), num(d, v, "w_rip"));

    /* Tab. 2 row 1: N_in = 14*14 = 196, N_out = 12*12*5 = 720.  The truth is
    ** 533, Corollary 1 gives 533 and Eq. 1 as published 531 (2 short), so
    ** the herringbone workspace is 196 + 533 = 729 and the check names Eq. 1. */
    const char *t = "tab2_row1";
    cr_expect_eq(num(d, t, "truth_herringbone_taps"), 533);
    cr_expect_eq(num(d, t, "corollary1"), 533);
    cr_expect_eq(num(d, t, "gm2019_eq1"), 531);
    cr_expect_eq(num(d, t, "thm11"), 533);
    cr_expect_eq(num(d, t, "w_hb"), 729);
    cr_expect_eq(num(d, t, "w_naive"), 916);
    cr_expect_eq(num(d, t, "generalized"), 0);
    cr_expect_str_eq(field(d, t, "verdict_gm2019_eq1"), "unsafe");
    cr_expect_str_eq(field(d, t, "verdict_corollary1"), "tight");
    cr_expect_str_eq(field(d, t, "check"), "gm2019_eq1 -2");
    /* no padding: dense and padded layouts coincide */
    cr_expect_eq(num(d, t, "w_dense"), num(d, t, "w_rip"));
    cr_expect_str_eq(field(d, t, "dense"), "0.000000");
    /* ratio = w_rip / w_hb with six decimals */
    char want[32];
    snprintf(want, sizeof want, "%.6f", (double)num(d, t, "w_rip") / 729.0);
    cr_expect_str_eq(field(d, t, "ratio"), want);
    snprintf(want, sizeof want, "%.6f", 1.0 - (double)num(d, t, "w_rip") / 916.0);
    cr_expect_str_eq(field(d, t, "save"), want);

    /* depthwise: listed, geometry kept, nothing evaluated, a note */
    const char *w = "dw";
    cr_expect_eq(num(d, w, "groups"), 32);
    cr_expect_eq(num(d, w, "h_out"), 112);
    cr_expect_str_empty(field(d, w, "thm11"));
    cr_expect_str_empty(field(d, w, "truth_herringbone_taps"));
    cr_expect_str_empty(field(d, w, "w_hb"));
    cr_expect_str_empty(field(d, w, "check"));
    cr_expect(strstr(field(d, w, "note"), "not evaluated") != NULL, "%s", field(d, w, "note"));
    cr_expect(strstr(field(d, w, "note"), "groups=32") != NULL);
    cr_expect(strstr(field(d, w, "note"), "channel-mixing") != NULL);
}

Test(layers, table_format_and_summary)
{
    const char *path = write_file("small.csv", small_table);
    run_result *r = RUN("layers", path);
    cr_assert_eq(r->status, 0, "%s", r->err);
    cr_expect_str_empty(r->err);
    const char *o = r->out;
    cr_expect(strstr(o, "W_naive") && strstr(o, "W_hb") && strstr(o, "W_rip") && strstr(o, "W_dense"),
              "%s", o);
    /* geometry, compactly; the Tab. 2 row disagrees only through Eq. 1 */
    cr_expect(strstr(o, "64->64 224x224 k3 s1 d1 p1") != NULL, "%s", o);
    const char *tab2 = strstr(o, "tab2_row1");
    cr_assert_not_null(tab2);
    const char *eol = strchr(tab2, '\n');
    cr_expect(strstr(tab2, "1->5 14x14 k3") < eol);
    cr_expect(strstr(tab2, "     729 ") != NULL && strstr(tab2, "     729 ") < eol, "W_hb 729: %s", o);
    cr_expect(strstr(tab2, "gm2019_eq1 -2") != NULL && strstr(tab2, "gm2019_eq1 -2") < eol);
    const char *vgg = strstr(o, "vgg_conv1_2");
    cr_assert_not_null(vgg);
    cr_expect(strstr(vgg, "3225728") < strchr(vgg, '\n'), "W_dense of conv1_2: %s", o);
    cr_expect(strstr(vgg, " ok\n") == strchr(vgg, '\n') - 3);
    const char *dw = strstr(o, "\ndw ");
    cr_assert_not_null(dw, "%s", o);
    cr_expect(strstr(dw, "not evaluated: groups=32") < strchr(dw + 1, '\n'));
    /* footer */
    cr_expect(strstr(o, "3 listed, 2 evaluated, 1 grouped") != NULL, "%s", o);
    cr_expect(strstr(o, "dense gap >= padded gap on 2 of 2") != NULL, "%s", o);
    cr_expect(strstr(o, "dense workspace <= padded on 2 of 2") != NULL, "%s", o);
    cr_expect(strstr(o, "strictly < on the padded ones 1 of 1") != NULL, "%s", o);
    cr_expect(strstr(o, "1 of 2 ok") != NULL, "%s", o);
}

Test(layers, no_sim_and_engines_agree)
{
    const char *path = write_file("small.csv", small_table);
    run_result *r = RUN("layers", "--format=csv", path);
    cr_assert_eq(r->status, 0, "%s", r->err);
    static char fast[1 << 16];
    snprintf(fast, sizeof fast, "%s", r->out);
    r = RUN("layers", "--format=csv", "--engine", "plain", path);
    cr_assert_eq(r->status, 0, "%s", r->err);
    cr_expect_str_eq(r->out, fast, "plain and fast engines give the same table");
    r = RUN("layers", "--format=csv", path);
    cr_expect_str_eq(r->out, fast, "deterministic");

    r = RUN("layers", "--format", "csv", "--no-sim", path);
    cr_assert_eq(r->status, 0, "%s", r->err);
    csv_doc *d = parse_csv(r->out);
    cr_expect_eq(num(d, "tab2_row1", "w_hb"), 729, "closed forms need no simulator");
    cr_expect_eq(num(d, "vgg_conv1_2", "w_dense"), 3225728);
    cr_expect_str_empty(field(d, "tab2_row1", "truth_herringbone_taps"));
    cr_expect_str_empty(field(d, "tab2_row1", "verdict_gm2019_eq1"));
    cr_expect_str_empty(field(d, "tab2_row1", "col_truth_rip_padded_taps"));
    cr_expect_str_eq(field(d, "tab2_row1", "check"), "-");
    cr_expect_str_eq(field(d, "vgg_conv1_2", "check"), "-");
    r = RUN("layers", "--no-sim", path);
    cr_assert_eq(r->status, 0);
    cr_expect(strstr(r->out, "--no-sim") != NULL, "footer says closed forms only: %s", r->out);
}

Test(layers, columns_in_any_order_defaults_and_quoted_names)
{
    /* only the required columns, shuffled: stride, dilation 1, padding 0 */
    const char *p = write_file("min.csv", "k_w,k_h,c_out,c_in,w_in,h_in\n3,3,5,1,14,14\n");
    run_result *r = RUN("layers", "--format", "csv", p);
    cr_assert_eq(r->status, 0, "%s", r->err);
    csv_doc *d = parse_csv(r->out);
    cr_assert_eq(d->nrows, 1);
    cr_expect_eq(num(d, "row 2", "w_hb"), 729, "default name 'row N', Tab. 2 row 1 again");
    cr_expect_eq(num(d, "row 2", "row"), 2);

    /* a name with a comma and a rectangular, unevenly padded layer */
    p = write_file("q.csv", HEADER "\"conv,a\",3,8,9,12,3,1,2,1,1,1,0,1,1,0,1\n");
    r = RUN("layers", "--format", "csv", p);
    cr_assert_eq(r->status, 0, "%s", r->err);
    cr_expect(strstr(r->out, "\n\"conv,a\",2,1,3,8,") != NULL, "name quoted back: %s", r->out);
    d = parse_csv(r->out);
    /* H_p = 9 + 0 + 1 = 10, W_p = 12 + 1 + 0 = 13; H_out = (10-3)/2+1 = 4, W_out = 13 */
    cr_expect_eq(num(d, "conv,a", "h_out"), 4);
    cr_expect_eq(num(d, "conv,a", "w_out"), 13);
    cr_expect_eq(num(d, "conv,a", "n_in_padded"), 10 * 13 * 3);
    cr_expect_eq(num(d, "conv,a", "w_naive"), 10 * 13 * 3 + 4 * 13 * 8);
    r = RUN("layers", p);
    cr_assert_eq(r->status, 0);
    cr_expect(strstr(r->out, "3->8 9x12 k3x1 s2x1 d1 p0/1/1/0") != NULL, "t/b/l/r: %s", r->out);
}

/* ---- malformed input: exit 65, nothing on stdout, one FILE:ROW: FIELD line ---- */

static void expect_bad(const char *name, const char *text, int row, const char *what)
{
    const char *p = write_file(name, text);
    run_result *r = RUN("layers", "--format", "csv", p);
    cr_expect_eq(r->status, 65, "%s: status %d, stderr %s", name, r->status, r->err);
    cr_expect_str_empty(r->out, "%s: nothing evaluated, nothing printed", name);
    cr_expect_eq(count_lines(r->err), 1, "%s: one line: %s", name, r->err);
    char want[400];
    snprintf(want, sizeof want, "%s:%d: ", p, row);
    cr_expect(strncmp(r->err, want, strlen(want)) == 0, "%s: want '%s...', got %s", name, want, r->err);
    cr_expect(strstr(r->err, what) != NULL, "%s: want '%s' in %s", name, what, r->err);
}

#define GOOD "ok1,1,5,14,14,3,3,1,1,1,1,0,0,0,0,1\n"

Test(layers, malformed_rows_stop_everything)
{
    expect_bad("nonint.csv", HEADER GOOD "\n" "bad,1,5x,14,14,3,3,1,1,1,1,0,0,0,0,1\n", 4,
               "c_out: expected an integer");
    expect_bad("stride.csv", HEADER GOOD GOOD "bad,1,5,14,14,3,3,0,1,1,1,0,0,0,0,1\n", 4, "s_h:");
    expect_bad("fields.csv", HEADER GOOD "bad,1,5,14,14,3,3,1,1,1,1,0,0,0,0\n", 3, "15 fields, the header has 16");
    expect_bad("column.csv", "layer_name,c_in,c_out,h_in,w_in,k_h,k_w,stride\n", 1, "unknown column 'stride'");
    /* p_top = p_bottom = 1 on a 1-row input: padded height 3 < kernel 7 */
    expect_bad("noout.csv", HEADER GOOD "bad,1,5,1,14,7,3,1,1,1,1,1,1,1,1,1\n", 3, "h_out:");
    expect_bad("negpad.csv", HEADER "bad,1,5,14,14,3,3,1,1,1,1,-1,0,0,0,1\n", 2, "p_top");
    expect_bad("groups.csv", HEADER "bad,6,8,14,14,3,3,1,1,1,1,0,0,0,0,4\n", 2, "groups:");
    expect_bad("missing.csv", "layer_name,c_in,c_out,h_in,w_in,k_h\n", 1, "'k_w'");
}

Test(layers, skip_bad_evaluates_the_rest)
{
    const char *p = write_file("mixed.csv",
                               HEADER GOOD                                  /* 2 */
                               "bad1,1,5,14,14,3,3,1,1,1,1,0,0,0\n"          /* 3: fields */
                               "ok2,5,8,12,12,3,3,1,1,1,1,0,0,0,0,1\n"       /* 4 */
                               "bad2,1,5,14,14,3,3,1,0,1,1,0,0,0,0,1\n"      /* 5: s_w */
                               "\n"                                          /* 6 */
                               "bad3,x,5,14,14,3,3,1,1,1,1,0,0,0,0,1\n"      /* 7: c_in */
                               "dw,8,8,12,12,3,3,1,1,1,1,1,1,1,1,8\n");      /* 8 */
    run_result *r = RUN("layers", "--skip-bad", "--format", "csv", p);
    cr_assert_eq(r->status, 0, "%s", r->err);
    csv_doc *d = parse_csv(r->out);
    cr_expect_eq(d->nrows, 3, "ok1, ok2 and the depthwise row: %s", r->out);
    cr_expect_str_eq(field(d, "ok1", "check"), "gm2019_eq1 -2");
    cr_expect_eq(num(d, "ok2", "row"), 4);
    cr_expect_eq(num(d, "ok2", "truth_herringbone_taps"), 149, "paper Tab. 2, second row");
    cr_expect_str_eq(field(d, "ok2", "check"), "gm2019_eq1 -1");
    cr_expect(strstr(field(d, "dw", "note"), "not evaluated") != NULL);

    cr_expect_eq(count_lines(r->err), 4, "three bad rows and a final note: %s", r->err);
    char want[400];
    static const struct { int row; const char *field; } bad[] = {{3, "fields"}, {5, "s_w:"}, {7, "c_in:"}};
    for (size_t i = 0; i < 3; i++) {
        snprintf(want, sizeof want, "%s:%d: ", p, bad[i].row);
        const char *at = strstr(r->err, want);
        cr_expect_not_null(at, "want %s in %s", want, r->err);
        if (at)
            cr_expect(strstr(at, bad[i].field) < strchr(at, '\n'), "%s names %s", want, bad[i].field);
    }
    cr_expect(strstr(r->err, "3 bad rows skipped") != NULL, "%s", r->err);

    /* the table format says the same in its footer */
    r = RUN("layers", "--skip-bad", p);
    cr_assert_eq(r->status, 0, "%s", r->err);
    cr_expect(strstr(r->out, "3 listed, 2 evaluated, 1 grouped/depthwise not evaluated, 3 bad rows skipped") !=
              NULL, "%s", r->out);

    /* a bad header is never skippable */
    p = write_file("hdr.csv", "c_in,c_out,h_in,w_in,k_h,k_w,bogus\n1,5,14,14,3,3,0\n");
    r = RUN("layers", "--skip-bad", p);
    cr_expect_eq(r->status, 65);
    cr_expect_str_empty(r->out);
}

Test(layers, files_and_command_line)
{
    char missing[320];
    snprintf(missing, sizeof missing, "%s/no-such.csv", tmpdir);
    run_result *r = RUN("layers", missing);
    cr_expect_eq(r->status, 66, "%s", r->err);
    cr_expect_eq(count_lines(r->err), 1, "%s", r->err);
    cr_expect(strstr(r->err, missing) != NULL, "%s", r->err);
    cr_expect_str_empty(r->out);
    r = RUN("layers", tmpdir);
    cr_expect_eq(r->status, 66, "a directory: %s", r->err);

    const char *p = write_file("small.csv", small_table);
    r = RUN("layers", "--bogus", p);
    cr_expect_eq(r->status, 64);
    cr_expect(strstr(r->err, "--bogus") != NULL, "%s", r->err);
    cr_expect_str_empty(r->out);
    r = RUN("layers");
    cr_expect_eq(r->status, 64, "missing FILE");
    r = RUN("layers", "--format", "xml", p);
    cr_expect_eq(r->status, 64);
    r = RUN("layers", "--format");
    cr_expect_eq(r->status, 64);
    r = RUN("layers", "--engine", "slow", p);
    cr_expect_eq(r->status, 64);
    r = RUN("layers", p, p);
    cr_expect_eq(r->status, 64, "one FILE only");
    p = write_file("empty.csv", "");
    r = RUN("layers", p);
    cr_expect_eq(r->status, 65, "no header row: %s", r->err);
}

/* Run with the test process's stdin replaced by file `path`. */
static run_result *run_stdin(const char *path, const char *const *args)
{
    int saved = dup(0), fd = open(path, O_RDONLY);
    cr_assert_geq(fd, 0);
    cr_assert_geq(saved, 0);
    dup2(fd, 0);
    close(fd);
    run_result *r = run_env(NULL, args);
    dup2(saved, 0);
    close(saved);
    return r;
}

Test(layers, stdin_dash)
{
    const char *p = write_file("small.csv", small_table);
    run_result *r = RUN("layers", "--format", "csv", p);
    cr_assert_eq(r->status, 0);
    static char from_file[1 << 16];
    snprintf(from_file, sizeof from_file, "%s", r->out);
    r = run_stdin(p, (const char *const[]){"layers", "--format", "csv", "-", NULL});
    cr_assert_eq(r->status, 0, "%s", r->err);
    cr_expect_str_eq(r->out, from_file);

    p = write_file("bad.csv", HEADER GOOD "bad,1,5,14,14,3,3,1,1,1,1,0,0,0,0,1,9\n");
    r = run_stdin(p, (const char *const[]){"layers", "-", NULL});
    cr_expect_eq(r->status, 65);
    cr_expect(strncmp(r->err, "<stdin>:3: ", 11) == 0, "%s", r->err);
}

/* ---- the real table: every closed form tight against the simulator ---- */

Test(layers, resnet50_every_closed_form_tight)
{
    const char *res = getenv("RIPSIM_RESULTS_DIR");
    cr_assert_not_null(res, "RIPSIM_RESULTS_DIR must be set");
    char path[512];
    snprintf(path, sizeof path, "%s/../sweeps/layers/resnet50.csv", res);
    run_result *r = RUN("layers", "--format", "csv", path);
    cr_assert_eq(r->status, 0, "%s", r->err);
    cr_expect_str_empty(r->err);
    csv_doc *d = parse_csv(r->out);
    cr_assert_eq(d->nrows, 53, "ResNet-50 has 53 convolutions");
    int c_check = col(d, "check"), c_name = col(d, "layer_name"), c_groups = col(d, "groups");
    int c_hb = col(d, "thm11"), c_hbt = col(d, "truth_herringbone_taps");
    int c_col = col(d, "col_thm4_taps"), c_colt = col(d, "col_truth_rip_padded_taps");
    char bad[2048] = "";
    int evaluated = 0;
    for (int i = 0; i < d->nrows; i++) {
        cr_expect_str_eq(d->rows[i][c_groups], "1", "ResNet-50 has no grouped convolution");
        evaluated++;
        /* independent of the check column: the two comparisons that matter */
        cr_expect_str_eq(d->rows[i][c_hb], d->rows[i][c_hbt], "%s: Theorem 11 vs truth", d->rows[i][c_name]);
        cr_expect_str_eq(d->rows[i][c_col], d->rows[i][c_colt], "%s: column-major Theorem 4 vs truth",
                         d->rows[i][c_name]);
        if (strcmp(d->rows[i][c_check], "ok") != 0) {
            size_t n = strlen(bad);
            snprintf(bad + n, sizeof bad - n, "%s: %s; ", d->rows[i][c_name], d->rows[i][c_check]);
        }
    }
    cr_expect_eq(evaluated, 53);
    cr_expect_str_empty(bad, "closed forms not tight on ResNet-50: %s", bad);

    /* the stem: 3 -> 64, 224x224, k7, s2, p3 -> 112x112; dual buffer =
    ** 230*230*3 + 112*112*64 = 158,700 + 802,816 = 961,516 */
    cr_expect_eq(num(d, "conv1", "h_out"), 112);
    cr_expect_eq(num(d, "conv1", "w_naive"), 961516);

    r = RUN("layers", path);
    cr_assert_eq(r->status, 0, "%s", r->err);
    cr_expect(strstr(r->out, "53 listed, 53 evaluated, 0 grouped") != NULL, "%s", r->out);
    cr_expect(strstr(r->out, "53 of 53 ok") != NULL, "%s", r->out);
}

/* ---- streaming (issue 8, item 14) and the one CSV dialect (item 19) ---- */

/* Rows are evaluated and printed as they are read a second time; the first
** pass keeps the promise that a bad row stops everything before anything
** is evaluated, also for a row only the simulator refuses (too large). */
Test(layers, a_bad_last_row_still_stops_before_any_output)
{
    /* 8193 x 8193 pixels > RIP_SIM_MAX_FAST_PIXELS (2^26) */
    const char *p = write_file("huge.csv", HEADER GOOD GOOD "huge,1,1,8193,8193,1,1,1,1,1,1,0,0,0,0,1\n");
    run_result *r = RUN("layers", p);
    cr_expect_eq(r->status, 65, "%s", r->err);
    cr_expect_str_empty(r->out, "nothing evaluated or printed");
    char want[400];
    snprintf(want, sizeof want, "%s:4: ", p);
    cr_expect(strncmp(r->err, want, strlen(want)) == 0 && strstr(r->err, "too large"), "%s", r->err);
    cr_expect_eq(count_lines(r->err), 1, "%s", r->err);
    r = RUN("layers", "--skip-bad", "--format", "csv", p);
    cr_expect_eq(r->status, 0, "%s", r->err);
    cr_expect(strstr(r->err, "(skipped)") && strstr(r->err, "1 bad row skipped"), "%s", r->err);
    cr_expect_eq(count_lines(r->out), 3, "header + two rows: %s", r->out);
    r = RUN("layers", "--no-sim", "--format", "csv", p);
    cr_expect_eq(r->status, 0, "closed forms take any size: %s", r->err);
}

Test(layers, piped_input_gives_the_same_table)
{
    const char *p = write_file("piped.csv", small_table);
    run_result *r = RUN("layers", p);
    cr_assert_eq(r->status, 0, "%s", r->err);
    static char from_file[1 << 16];
    snprintf(from_file, sizeof from_file, "%s", r->out);
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "cat '%s' | '%s' layers -", p, getenv("RIPSIM_BIN"));
    FILE *f = popen(cmd, "r");
    cr_assert_not_null(f);
    static char piped[1 << 16];
    size_t n = fread(piped, 1, sizeof piped - 1, f);
    piped[n] = '\0';
    cr_expect_eq(pclose(f), 0);
    cr_expect_str_eq(piped, from_file, "a pipe is read twice through a temporary copy");
}

Test(layers, rfc4180_bom_crlf_and_quoted_line_breaks)
{
    /* BOM, CRLF, a name with a comma, a quote and a line break, no final
    ** line end; the second row starts on line 4 (the name spans 2-3) */
    const char *p = write_file("dialect.csv", "\xEF\xBB\xBFlayer_name,c_in,c_out,h_in,w_in,k_h,k_w\r\n"
                                              "\"a,\"\"b\"\"\r\nc\",1,5,14,14,3,3\r\n"
                                              "d,1,5,14,14,3,x");
    run_result *r = RUN("layers", "--format", "csv", p);
    cr_expect_eq(r->status, 65, "%s", r->err);
    char want[400];
    snprintf(want, sizeof want, "%s:4: k_w: expected an integer, got 'x'", p);
    cr_expect(strstr(r->err, want) != NULL, "want %s in %s", want, r->err);
    r = RUN("layers", "--format", "csv", "--skip-bad", p);
    cr_assert_eq(r->status, 0, "%s", r->err);
    cr_expect(strstr(r->out, "\n\"a,\"\"b\"\"\r\nc\",2,1,1,5,14,14,3,3,") != NULL, "name read and quoted back: %s",
              r->out);

    /* empty fields are fields: an empty s_h is not a default */
    p = write_file("empty.csv", "c_in,c_out,h_in,w_in,k_h,k_w,s_h\n1,5,14,14,3,3,\n");
    r = RUN("layers", p);
    cr_expect_eq(r->status, 65);
    cr_expect(strstr(r->err, ":2: s_h: expected an integer, got ''") != NULL, "%s", r->err);

    /* a row longer than the old 4 KiB limit: a long name is cut, not refused */
    static char text[16384];
    int n = snprintf(text, sizeof text, "layer_name,c_in,c_out,h_in,w_in,k_h,k_w\n");
    for (int i = 0; i < 10000; i++)
        text[n++] = 'n';
    snprintf(text + n, sizeof text - (size_t)n, ",1,5,14,14,3,3\n");
    p = write_file("long.csv", text);
    r = RUN("layers", "--format", "csv", p);
    cr_expect_eq(r->status, 0, "%s", r->err);
}
