/*
** test_cli.c — the ripsim command line as a user meets it: help, version,
** the Tab. 2 numbers through `ripsim layer`, the JSON contract of the README,
** and every class of bad input with its exit status and one-line message.
**
** The binary under test is $RIPSIM_BIN (set by tests/meson.build).
*/
#include "run_cmd.h"

Test(cli, help_and_version)
{
    run_result *r = RUN("--help");
    cr_assert_eq(r->status, 0);
    cr_assert(strstr(r->out, "layer") != NULL);
    r = RUN("layer", "--help");
    cr_assert_eq(r->status, 0);
    cr_assert(strstr(r->out, "SPEC") != NULL && strstr(r->out, "--json") != NULL);
    r = RUN("--version");
    cr_assert_eq(r->status, 0);
    cr_assert(strncmp(r->out, "ripsim ", 7) == 0);
}

/* Paper Tab. 2, every row: G&M (Eq. 1), truth, Corollary 1 = truth. */
Test(cli, table2_rows_through_json)
{
    static const struct { const char *spec; long gm, truth; } rows[] = {
        {"cin=1,cout=5,h=14,k=3", 531, 533},     {"cin=5,cout=8,h=12,k=3", 148, 149},
        {"cin=8,cout=11,h=10,k=3", 45, 46},      {"cin=3,cout=4,h=8,k=5", 79, 7},
        {"cin=8,cout=9,h=9,k=7", 2081, 11},      {"cin=16,cout=17,h=12,k=9", 15520, 20},
        {"cin=16,cout=17,h=18,k=15", 48640, 20},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        run_result *r = RUN("layer", "--json", rows[i].spec);
        cr_assert_eq(r->status, 0, "%s: %s", rows[i].spec, r->err);
        char want[96];
        snprintf(want, sizeof want, "\"herringbone_taps\":%ld,", rows[i].truth);
        cr_expect(strstr(r->out, want) != NULL, "%s: want %s in %s", rows[i].spec, want, r->out);
        snprintf(want, sizeof want, "\"gm2019_eq1\":%ld,", rows[i].gm);
        cr_expect(strstr(r->out, want) != NULL, "%s: want %s in %s", rows[i].spec, want, r->out);
        snprintf(want, sizeof want, "\"corollary1\":%ld,", rows[i].truth);
        cr_expect(strstr(r->out, want) != NULL, "%s: want %s in %s", rows[i].spec, want, r->out);
    }
}

Test(cli, json_has_every_design_key)
{
    run_result *r = RUN("layer", "--json", "cin=5,cout=8,h=12,w=10,k=3x1,s=2,d=1,p=1x0");
    cr_assert_eq(r->status, 0, "%s", r->err);
    static const char *keys[] = {
        "\"layer\":{", "\"cin\":5", "\"cout\":8", "\"h_in\":12", "\"w_in\":10", "\"k_h\":3",
        "\"k_w\":1", "\"s_h\":2", "\"s_w\":2", "\"d_h\":1", "\"d_w\":1", "\"p_h\":1",
        "\"p_w\":0", "\"h_out\":6", "\"w_out\":5", "\"truth\":{", "\"rip_padded_gather\":",
        "\"rip_padded_taps\":", "\"rip_dense_gather\":", "\"rip_dense_taps\":",
        "\"herringbone_taps\":", "\"herringbone_taps_reader\":", "\"herringbone_pruned\":",
        /* read padded input: rows 0..12 of 14 (6 outputs, stride 2, 3 taps) times
        ** columns 0,2,4,6,8 of 10 (5 outputs, stride 2, 1 tap) times 5 channels */
        "\"n_in_read\":325", "\"formulas\":{",
        "\"gm2019_eq1\":null", "\"corollary1\":null", "\"thm11\":", "\"thm4_gather\":",
        "\"thm4_taps\":", "\"thm13_gather\":", "\"thm13_taps\":",
        /* naive = padded input 14*10*5 + output 6*5*8 */
        "\"naive_workspace\":940",
    };
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        cr_expect(strstr(r->out, keys[i]) != NULL, "missing %s in %s", keys[i], r->out);
    cr_expect_eq(count_lines(r->out), 1, "one JSON object on one line");
}

Test(cli, table_output_names_verdicts)
{
    run_result *r = RUN("layer", "cin=1,cout=5,h=14,k=3");
    cr_assert_eq(r->status, 0, "%s", r->err);
    cr_expect(strstr(r->out, "unsafe (-2)") != NULL, "G&M is 2 below truth: %s", r->out);
    cr_expect(strstr(r->out, "herringbone_taps") != NULL);
    cr_expect(strstr(r->out, "tight") != NULL);
}

Test(cli, plain_engine_and_no_sim)
{
    run_result *r = RUN("layer", "--json", "--engine", "plain", "cin=1,cout=5,h=14,k=3");
    cr_assert_eq(r->status, 0, "%s", r->err);
    cr_expect(strstr(r->out, "\"herringbone_taps\":533,") != NULL, "%s", r->out);
    r = RUN("layer", "--json", "--no-sim", "cin=1,cout=5,h=14,k=3");
    cr_assert_eq(r->status, 0, "%s", r->err);
    cr_expect(strstr(r->out, "\"herringbone_taps\":null") != NULL, "%s", r->out);
    cr_expect(strstr(r->out, "\"corollary1\":533") != NULL, "%s", r->out);
}

/* Bad data: exit 65, exactly one line on stderr that names the field. */
static void expect_data_error(const char *spec, const char *field)
{
    run_result *r = RUN("layer", spec);
    cr_expect_eq(r->status, 65, "%s: status %d, stderr %s", spec, r->status, r->err);
    cr_expect_eq(count_lines(r->err), 1, "%s: one line, got '%s'", spec, r->err);
    char want[64];
    snprintf(want, sizeof want, "%s:", field);
    cr_expect(strstr(r->err, want) != NULL, "%s: message '%s' should name %s", spec, r->err, field);
    cr_expect_eq(r->out[0], '\0', "%s: nothing on stdout", spec);
}

Test(cli, bad_input_names_the_field)
{
    expect_data_error("cin=1,cout=5,h=14,k=3,q=2", "q");               /* unknown key */
    expect_data_error("cin=1,cout=5,h=14,k=3,kernel=3", "kernel");
    expect_data_error("cout=5,h=14,k=3", "cin");                       /* missing */
    expect_data_error("cin=1,h=14,k=3", "cout");
    expect_data_error("cin=1,cout=5,k=3", "h");
    expect_data_error("cin=1,cout=5,h=14", "k");
    expect_data_error("cin=abc,cout=5,h=14,k=3", "cin");               /* not numbers */
    expect_data_error("cin=1,cout=5,h=1.5,k=3", "h");
    expect_data_error("cin=1,cout=5,h=14,k=3xz", "k");
    expect_data_error("cin=1,cout=5,h=14,k=", "k");
    expect_data_error("cin=1,cout=5,h=14,k=3,cin=2", "cin");           /* duplicate */
    expect_data_error("cin=0,cout=5,h=14,k=3", "cin");                 /* zero, negative */
    expect_data_error("cin=1,cout=-5,h=14,k=3", "cout");
    expect_data_error("cin=1,cout=5,h=14,w=0,k=3", "w_in");
    expect_data_error("cin=1,cout=5,h=14,k=0x3", "k_h");
    expect_data_error("cin=1,cout=5,h=14,k=3,s=0", "s_h");             /* stride, dilation 0 */
    expect_data_error("cin=1,cout=5,h=14,k=3,s=1x0", "s_w");
    expect_data_error("cin=1,cout=5,h=14,k=3,d=0", "d_h");
    expect_data_error("cin=1,cout=5,h=14,k=3,p=-1", "p_top");
    expect_data_error("cin=1,cout=5,h=14,k=3,pr=-2", "p_right");
    expect_data_error("cin=1,cout=5,h=2,k=5", "h_out");                /* no output */
    expect_data_error("cin=1,cout=5,h=14,w=3,k=3x2,d=1x3", "w_out");
    expect_data_error("cin=1,cout=5,h=99999999999999999999,k=3", "h"); /* out of range */
    expect_data_error("cin=4611686018427387904,cout=5,h=14,k=3", "cin"); /* products overflow */
    expect_data_error("cin=1,cout=5,h=3037000500,k=1", "h_in");
    expect_data_error("cin=1,cout=9223372036854775807,h=14,k=3", "cout");
}

Test(cli, usage_errors_are_64)
{
    cr_expect_eq(RUN("layer")->status, 64);
    cr_expect_eq(RUN("layer", "--bogus", "cin=1,cout=5,h=14,k=3")->status, 64);
    /* two SPECs are two layers (issue 23 item 2), a non-index with --db is a usage error */
    cr_expect_eq(RUN("layer", "--no-sim", "cin=1,cout=5,h=14,k=3", "cin=2,cout=5,h=14,k=3")->status, 0);
    cr_expect_eq(RUN("layer", "--engine", "quantum", "cin=1,cout=5,h=14,k=3")->status, 64);
    cr_expect_eq(RUN("layer", "--engine")->status, 64);
    cr_expect_eq(RUN("frobnicate")->status, 64);
    run_result *r = RUN("layer", "--bogus");
    cr_expect(strstr(r->err, "--bogus") != NULL, "names the option: %s", r->err);
}

/*
** Default paths (results/sweep.db, sweeps/layers, firmware/models) resolve
** against the ripsim tree, not the current folder: the suite runs in the
** build folder, which is not a tree.  A wrong RIPSIM_ROOT is named in one
** line, exit 64.
*/
Test(cli, defaults_resolve_against_the_tree_from_any_folder)
{
    char out[] = "/tmp/ripsim-root-XXXXXX";
    int fd = mkstemp(out);
    cr_assert(fd >= 0);
    close(fd);
    run_result *r = RUN("tables", "table6", "--out", out);
    cr_expect_eq(r->status, 0, "tables table6 from %s: %d %s", getcwd((char[4096]){0}, 4096), r->status, r->err);
    unlink(out);
    r = RUN_ENV("RIPSIM_ROOT=/nonexistent", "report");
    cr_expect_eq(r->status, 64, "%d %s", r->status, r->err);
    cr_expect_eq(count_lines(r->err), 1, "%s", r->err);
    cr_expect_not_null(strstr(r->err, "RIPSIM_ROOT"), "%s", r->err);
    r = RUN_ENV("RIPSIM_ROOT=/nonexistent", "sweep", "--n", "5");
    cr_expect_eq(r->status, 64, "%d %s", r->status, r->err);
    /* an explicit path is taken as written, whatever RIPSIM_ROOT says */
    r = RUN_ENV("RIPSIM_ROOT=/nonexistent", "report", "--db", "/nonexistent/x.db");
    cr_expect_eq(r->status, 66, "%d %s", r->status, r->err);
}
