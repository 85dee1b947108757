/*
** test_tflm_write.c — OUT.tflite as `ripsim plan --for --write` makes it
** (rip_tflm_offline_write): flatc, an outside reader, must dump it exactly
** as MODEL.tflite but for the OfflineMemoryAllocation entry and its buffer
** (added, or replaced in place), and ripsim's reader must read the plan
** back; and the command line of `plan --for` and `check` (exit statuses,
** one-line errors, nothing written on an error).  Without flatc or the
** vendor models the tests that need them skip with one line.
*/
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_mini.h"
#include "run_cmd.h"
#include "tflm/tflm_offline.h"
#include "tmpdir.h"
#include "tflm_files.h"

TEST_SUITE_WITH_TMPDIR(tflm_write, 600);

/* ---- flatc's JSON ---- */

/* the TFLite schema flatc 2.0.8 reads, or NULL */
static const char *schema(void)
{
    static char path[PATH_MAX];
    return vendor_file("RIPSIM_MODELS_PATH", "tflite-micro/schema-flatc2.fbs", path, sizeof path);
}

static bool have_flatc(void)
{
    return system("command -v flatc >/dev/null 2>&1") == 0;
}

/* flatc's dump of the model at path (copied to tmpdir as NAME.tflite), parsed. */
static jm *flatc_json(const char *path, const char *name)
{
    char cmd[3 * PATH_MAX], out[PATH_MAX], err[160];
    snprintf(out, sizeof out, "%s/%s.tflite", tmpdir, name);
    size_t len;
    uint8_t *b = slurp(path, &len);
    spill(out, b, len);
    free(b);
    snprintf(cmd, sizeof cmd, "flatc --json --strict-json --raw-binary -o '%s' '%s' -- '%s' 2>'%s/flatc.err'", tmpdir,
             schema(), out, tmpdir);
    cr_assert_eq(system(cmd), 0, "flatc failed on %s", out);
    snprintf(out, sizeof out, "%s/%s.json", tmpdir, name);
    char *text = (char *)slurp(out, &len);
    jm *root = jm_parse(text, len, err, sizeof err);
    free(text);
    cr_assert_not_null(root, "%s: %s", out, err);
    return root;
}

/* Structural equality of two JSON values (objects: same keys in the same order, as flatc prints them). */
static bool jm_same(const jm *a, const jm *b)
{
    if (!a || !b || a->kind != b->kind)
        return a == b;
    switch (a->kind) {
    case JM_NULL: return true;
    case JM_BOOL: return a->b == b->b;
    case JM_NUM: return a->is_int == b->is_int && (a->is_int ? a->i == b->i : a->num == b->num);
    case JM_STR: return a->len == b->len && memcmp(a->str, b->str, a->len) == 0;
    case JM_ARR:
    case JM_OBJ:
        if (a->n != b->n)
            return false;
        for (size_t i = 0; i < a->n; i++)
            if ((a->kind == JM_OBJ && strcmp(a->keys[i], b->keys[i]) != 0) || !jm_same(&a->items[i], &b->items[i]))
                return false;
        return true;
    }
    return false;
}

/* Does buffer b (flatc's {"data": [bytes]}) hold exactly the int32 words [0, 1, n, off...]? */
static bool holds_plan(const jm *b, const int32_t *off, size_t n)
{
    const jm *d = jm_get(b, "data");
    if (!d || d->kind != JM_ARR || d->n != 4 * (3 + n))
        return false;
    for (size_t w = 0; w < 3 + n; w++) {
        uint32_t v = (uint32_t)(w == 0 ? 0 : w == 1 ? 1 : w == 2 ? (int32_t)n : off[w - 3]);
        for (int k = 0; k < 4; k++)
            if (d->items[4 * w + (size_t)k].i != (long long)((v >> (8 * k)) & 0xff))
                return false;
    }
    return true;
}

/* Every top-level field of a and b but buffers and metadata is the same. */
static void expect_same_but_plan(const jm *a, const jm *b, const char *what)
{
    for (size_t i = 0; i < b->n; i++) {
        if (strcmp(b->keys[i], "buffers") == 0 || strcmp(b->keys[i], "metadata") == 0)
            continue;
        cr_expect(jm_same(jm_get(a, b->keys[i]), &b->items[i]), "%s: %s differs", what, b->keys[i]);
    }
    for (size_t i = 0; i < a->n; i++)
        cr_expect(jm_get(b, a->keys[i]) != NULL, "%s: %s is gone", what, a->keys[i]);
}

/* Write m with plan off (n offsets) to tmpdir/NAME.tflite; check the bytes' layout and read the plan back. */
static const char *write_plan(const char *path, const int32_t *off, size_t n, const char *name)
{
    static char out[PATH_MAX];
    rip_tfl_model m, back;
    char err[RIP_ERR_LEN];
    load(path, &m);
    uint8_t *b;
    size_t len;
    cr_assert_eq(rip_tflm_offline_write(&m, off, n, &b, &len, err), RIP_OK, "%s", err);
    /* the old file follows the prefix unchanged, shifted by a multiple of 16 */
    cr_assert_geq(len, m.file_len);
    cr_expect_eq((len - m.file_len) % 16, 0);
    cr_expect_eq(memcmp(b + len - m.file_len, m.file, m.file_len), 0);
    snprintf(out, sizeof out, "%s/%s.tflite", tmpdir, name);
    spill(out, b, len);
    free(b);
    load(out, &back);
    rip_tflm_offline o;
    bool present;
    cr_assert_eq(rip_tflm_offline_read(&back, &present, &o, err), RIP_OK, "%s", err);
    cr_assert(present && o.n == n);
    cr_expect_eq(memcmp(o.offset, off, n * sizeof *off), 0, "the plan read back");
    cr_expect_eq(back.subgraphs[0].n_operators, m.subgraphs[0].n_operators);
    cr_expect_eq(back.subgraphs[0].n_tensors, m.subgraphs[0].n_tensors);
    rip_tflm_offline_free(&o);
    rip_tfl_model_free(&back);
    rip_tfl_model_free(&m);
    return out;
}

Test(tflm_write, adds_an_entry_flatc_sees_nothing_else)
{
    const int32_t off[12] = {64, -1, -1, 0, -1, -1, 64, -1, 64, -1, -1, 0};
    const char *out = write_plan(data_path("tflm_chain"), off, 12, "chain_out");
    NEED(have_flatc() && schema(), "no flatc or no schema-flatc2.fbs: OUT was not compared with flatc");
    jm *a = flatc_json(data_path("tflm_chain"), "chain"), *b = flatc_json(out, "chain_out_copy");
    expect_same_but_plan(a, b, "tflm_chain");
    const jm *ba = jm_get(a, "buffers"), *bb = jm_get(b, "buffers");
    cr_assert_eq(bb->n, ba->n + 1);
    for (size_t i = 0; i < ba->n; i++)
        cr_expect(jm_same(&ba->items[i], &bb->items[i]), "buffer %zu", i);
    cr_expect(holds_plan(&bb->items[ba->n], off, 12));
    cr_expect_null(jm_get(a, "metadata"));
    const jm *md = jm_get(b, "metadata");
    cr_assert(md && md->n == 1);
    cr_expect_str_eq(jm_get(&md->items[0], "name")->str, "OfflineMemoryAllocation");
    cr_expect_eq(jm_get(&md->items[0], "buffer")->i, (long long)ba->n);
    jm_free(a);
    jm_free(b);
}

Test(tflm_write, replaces_an_entry_in_place)
{
    const int32_t off[12] = {0, -1, -1, 16, -1, -1, 96, -1, 96, -1, -1, 0};
    const char *out = write_plan(data_path("tflm_chain_offline"), off, 12, "offline_out");
    NEED(have_flatc() && schema(), "no flatc or no schema-flatc2.fbs: OUT was not compared with flatc");
    jm *a = flatc_json(data_path("tflm_chain_offline"), "offline"), *b = flatc_json(out, "offline_out_copy");
    expect_same_but_plan(a, b, "tflm_chain_offline");
    cr_expect(jm_same(jm_get(a, "metadata"), jm_get(b, "metadata")), "metadata unchanged");
    const jm *ba = jm_get(a, "buffers"), *bb = jm_get(b, "buffers");
    cr_assert_eq(bb->n, ba->n);
    for (size_t i = 0; i < ba->n; i++)
        if (i != 8)   /* the plan's buffer (tflm_chain_offline.json) */
            cr_expect(jm_same(&ba->items[i], &bb->items[i]), "buffer %zu", i);
    cr_expect(holds_plan(&bb->items[8], off, 12));
    jm_free(a);
    jm_free(b);
}

Test(tflm_write, person_detect_and_vela_through_flatc)
{
    const char *pd = person_detect(), *vela = vela_model();
    NEED(pd && vela, "no person_detect.tflite or person_detect_vela.tflite (vendor trees)");
    rip_tfl_model m;
    load(pd, &m);
    size_t n = m.subgraphs[0].n_tensors;
    int32_t *off = malloc(n * sizeof *off);
    for (size_t i = 0; i < n; i++)
        off[i] = i % 3 == 0 ? (int32_t)(16 * i) : -1;
    rip_tfl_model_free(&m);
    char out[PATH_MAX];
    snprintf(out, sizeof out, "%s", write_plan(pd, off, n, "pd_out"));
    const int32_t voff[6] = {0, -1, -1, 1024, 2048, 4096};
    const char *vout = write_plan(vela, voff, 6, "vela_out");
    if (have_flatc() && schema()) {
        jm *a = flatc_json(pd, "pd"), *b = flatc_json(out, "pd_out_copy");
        expect_same_but_plan(a, b, "person_detect");
        const jm *bb = jm_get(b, "buffers");
        cr_expect(holds_plan(&bb->items[bb->n - 1], off, n));
        jm_free(a);
        jm_free(b);
        a = flatc_json(vela, "vela"), b = flatc_json(vout, "vela_out_copy");
        expect_same_but_plan(a, b, "person_detect_vela");
        cr_expect(jm_same(jm_get(a, "metadata"), jm_get(b, "metadata")), "vela's metadata unchanged");
        jm_free(a);
        jm_free(b);
    } else {
        printf("tflm_write: skipped: no flatc: person_detect's OUT was read back by ripsim only\n");
    }
    free(off);
}

Test(tflm_write, refuses_a_wrong_plan)
{
    rip_tfl_model m;
    char err[RIP_ERR_LEN];
    uint8_t *b = NULL;
    size_t len;
    load(data_path("tflm_chain"), &m);
    int32_t off[13] = {0};
    cr_expect_eq(rip_tflm_offline_write(&m, off, 13, &b, &len, err), RIP_S_DATA);
    cr_expect(strstr(err, "13 offsets for 12 tensors"), "%s", err);
    off[4] = -2;
    cr_expect_eq(rip_tflm_offline_write(&m, off, 12, &b, &len, err), RIP_S_DATA);
    cr_expect(strstr(err, "offset 4 is -2"), "%s", err);
    cr_expect_null(b);
    rip_tfl_model_free(&m);
}

/* ---- the command line ---- */

Test(tflm_write, plan_for_writes_and_check_accepts)
{
    const char *out = tmp("chain_plan.tflite");
    run_result *r = RUN("plan", data_path("tflm_chain"), "--for", "tflm-reference", "--write", out);
    cr_assert_eq(r->status, 0, "%s", r->err);
    /* the reference kernels let both 1x1 convolutions overlap their inputs: 96 B, the optimum
    ** test_tflm_offline.c works out by hand for the chain's scopes */
    cr_expect(strstr(r->out, "tensor area  96 B"), "%s", r->out);
    cr_expect(strstr(r->out, "TFLM greedy  128 B"), "%s", r->out);
    cr_expect(strstr(r->out, "operator 2 (RESHAPE)"), "%s", r->out);
    cr_expect(strstr(r->out, "scratch      0 requests, 0 B (reference kernels"), "%s", r->out);
    r = RUN("check", out, "--for", "tflm-reference");
    cr_expect_eq(r->status, 0, "%s", r->err);
    cr_expect(strstr(r->out, "verdict      safe"), "%s", r->out);
    /* CMSIS-NN's 1x1 fast path re-reads its whole input after writing outputs
    ** (the probe's finding): the same file is refused at operator 0 */
    r = RUN("check", out, "--for", "tflm-cmsis-nn");
    cr_expect_eq(r->status, 65, "%s", r->out);
    cr_expect(strstr(r->err, "unsafe for tflm-cmsis-nn: operator 0 (CONV_2D)"), "%s", r->err);
    r = RUN("plan", data_path("tflm_chain"), "--for", "tflm-cmsis-nn");
    cr_assert_eq(r->status, 0, "%s", r->err);
    cr_expect(strstr(r->out, "tensor area  128 B"), "%s", r->out);
}

/* --no-overlap: the exact plan with only the RESHAPE in place, safe for either library; the peak and,
** for the overlapping plans, what the other library's gaps would save */
Test(tflm_write, plan_for_no_overlap_peak_and_limits)
{
    const char *out = tmp("chain_none.tflite");
    run_result *r = RUN("plan", data_path("tflm_chain"), "--for", "tflm-reference", "--no-overlap", "--write", out);
    cr_assert_eq(r->status, 0, "%s", r->err);
    /* by hand (test_tflm_offline.c): the two 64 B conv outputs alive together at operator 1's scope */
    cr_expect(strstr(r->out, "tensor area  128 B"), "%s", r->out);
    cr_expect(strstr(r->out, "overlaps     1 used of 1 allowed"), "%s", r->out);
    cr_expect(strstr(r->out, "operator 2 (RESHAPE): output tensor 8 at its input tensor 6's offset"), "%s", r->out);
    cr_expect(strstr(r->out, "peak         operator 1 (CONV_2D), end 128 B, 2 tensors alive, 128 B: 3 (64 B), 6 (64 B)"),
              "%s", r->out);
    cr_expect(!strstr(r->out, "limited") && !strstr(r->out, "friendly"), "%s", r->out);
    r = RUN("check", out, "--for", "tflm-cmsis-nn");
    cr_expect_eq(r->status, 0, "no overlap is safe for any kernel: %s", r->err);
    /* CMSIS-NN's 1x1 fast path needs 62 B at both convolutions (64 aligned: no saving), the
    ** reference kernels 33 and 3 B: the smaller at operator 1 alone puts its output 16 B below
    ** its input, scope 2 needs 80, scope 1 still 32 + 64 = 96: 32 B saved; at operator 0 alone
    ** scope 2 keeps its 128: nothing; both: 96, the reference plan */
    r = RUN("plan", data_path("tflm_chain"), "--for", "tflm-cmsis-nn");
    cr_assert_eq(r->status, 0, "%s", r->err);
    cr_expect(!strstr(r->out, "limited"), "the limits are opt-in (--limits): %s", r->out);
    r = RUN("plan", data_path("tflm_chain"), "--for", "tflm-cmsis-nn", "--limits");
    cr_assert_eq(r->status, 0, "%s", r->err);
    cr_expect(strstr(r->out, "limited      operator 0 (CONV_2D) input 0: cmsis-nn 62 B, reference 33 B, the smaller "
                             "alone saves 0 B\n"), "%s", r->out);
    cr_expect(strstr(r->out, "limited      operator 1 (CONV_2D) input 0: cmsis-nn 62 B, reference 3 B, the smaller "
                             "alone saves 32 B\n"), "%s", r->out);
    cr_expect(strstr(r->out, "friendly     96 B, 32 B less"), "%s", r->out);
    r = RUN("plan", data_path("tflm_chain"), "--for", "tflm-reference", "--limits");
    cr_assert_eq(r->status, 0, "%s", r->err);
    cr_expect(strstr(r->out, "friendly     96 B, 0 B less"), "the smaller gaps are the reference kernels' here: %s",
              r->out);
}

Test(tflm_write, check_names_the_unsafe_operator)
{
    run_result *r = RUN("check", data_path("tflm_chain_offline"), "--for", "tflm-cmsis-nn");
    cr_expect_eq(r->status, 65);
    cr_expect_eq(count_lines(r->err), 1, "%s", r->err);
    cr_expect(strstr(r->err, "unsafe for tflm-cmsis-nn: operator 1 (CONV_2D)"), "%s", r->err);
    r = RUN("check", data_path("tflm_chain"), "--for", "tflm-reference");
    cr_expect_eq(r->status, 65);
    cr_expect(strstr(r->err, "carries no OfflineMemoryAllocation"), "%s", r->err);
    const char *vela = vela_model();
    if (!vela) {
        printf("tflm_write: skipped: no person_detect_vela.tflite: its check did not run\n");
        return;
    }
    /* Vela puts the input, both scratch areas and the output of its one NPU operator at offset 0:
    ** overlaps only the Ethos-U driver knows to be safe, no TFLM kernel's */
    r = RUN("check", vela, "--for", "tflm-reference");
    cr_expect_eq(r->status, 65);
    cr_expect(strstr(r->err, "operator 0 (ethos-u)"), "%s", r->err);
}

Test(tflm_write, nothing_written_on_an_error)
{
    size_t len;
    uint8_t *b = slurp(data_path("tflm_chain"), &len);
    spill(tmp("cut.tflite"), b, len / 2);
    free(b);
    const char *out = tmp("never.tflite");
    run_result *r = RUN("plan", tmp("cut.tflite"), "--for", "tflm-reference", "--write", out);
    cr_expect_eq(r->status, 65, "%s", r->err);
    cr_expect_eq(count_lines(r->err), 1, "%s", r->err);
    cr_expect(!exists(out), "OUT written on an error");
    char first[300];
    cr_expect_eq(entries(tmpdir, first, sizeof first), 1, "a temporary left behind: %s", first);
}

Test(tflm_write, usage_errors)
{
    const char *m = data_path("tflm_chain");
#define USAGE(...)                                                                           \
    do {                                                                                     \
        run_result *u = RUN(__VA_ARGS__);                                                    \
        cr_expect_eq(u->status, 64, "%s", u->err);                                           \
        cr_expect_eq(count_lines(u->err), 1, "%s", u->err);                                  \
    } while (0)
    USAGE("plan", m, "--write", tmp("x.tflite"));
    USAGE("plan", m, "--for", "tflm-reference", "--strategy", "exact");
    USAGE("plan", m, "--for", "tflm-reference", "--json");
    USAGE("plan", m, "--for", "tflm-arm");
    USAGE("plan", m, "--for", "tflm-reference", "--write", m);
    USAGE("plan", m, "--no-overlap");
    USAGE("check", m);
    USAGE("check", "--for", "tflm-reference");
#undef USAGE
    cr_expect(!exists(tmp("x.tflite")));
    run_result *r = RUN("plan", "--help");
    cr_expect(strstr(r->out, "--for LIB") && strstr(r->out, "--write OUT.tflite") && strstr(r->out, "--no-overlap"),
              "%s", r->out);
    r = RUN("check", "--help");
    cr_expect_eq(r->status, 0);
    cr_expect(strstr(r->out, "ripsim check MODEL.tflite --for LIB"), "%s", r->out);
}
