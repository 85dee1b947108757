/*
** test_codegen_tflite.c — `ripsim codegen MODEL.tflite` (src/codegen/
** cg_net.c): generated models compiled on the host with the firmware's
** flags (-Wall -Wextra -Werror, also with AddressSanitizer and UBSan) and
** run.
**
** What is held against what:
**   - the hand-written nets of tests/data/tflite (every in-place kernel,
**     broadcast ADD, PAD executed, CONCATENATION, TRANSPOSE, MEAN, float32
**     edges, two inputs) under both plans: the generated model's output
**     bytes equal `ripsim run`'s (which the tflite_run suite holds to plain
**     reference kernels), and its model.json checksum is their CRC-32;
**   - every in-place candidate of inplace_chain and data_ops alone, with
**     and without a runtime shift: the generated model equals the net run
**     in dual buffers (no candidate in place);
**   - with the TensorFlow Lite Micro peer (tests/tflm/README.md; the suite
**     is built with it when the TFLM tree is there, and its tests say they
**     are skipped otherwise): every case of tests/tflm/cases.tsv, both
**     plans, outputs equal TFLM's bit for bit; person_detect's scores as
**     TFLM's own test asserts them; the inputs firmware/tools/
**     real-models.sh makes equal the peer's; results/tflm-peer.tsv equals a
**     new measurement (tests/tflm/measure.sh);
**   - the generated code compiles for the Cortex-M0+ and the Cortex-M33
**     with the firmware's flags (skipped without arm-none-eabi-gcc).
** The kernels and runtime are compiled once per test into its folder.
*/
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codegen/codegen.h"
#include "hand_plans.h"
#include "host_model.h"
#include "net/net.h"
#include "rk_crc32.h"
#include "skip.h"
#include "tmpdir.h"

TEST_SUITE_WITH_TMPDIR(codegen_tflite, 1800);

#include "tflm_peer.h"

/* ---- the tree, files, commands ---- */

static const char *root(void)
{
    const char *r = getenv("RIPSIM_SOURCE_ROOT");
    cr_assert_not_null(r, "RIPSIM_SOURCE_ROOT must name the source tree");
    return r;
}

static const char *ripsim(void)
{
    const char *b = getenv("RIPSIM_BIN");
    cr_assert_not_null(b, "RIPSIM_BIN must name the ripsim binary");
    return b;
}

static const char *hand_model(const char *name)
{
    static char path[4][1200];
    static int k;
    k = (k + 1) % 4;
    snprintf(path[k], sizeof path[k], "%s/tests/data/tflite/%s.tflite", root(), name);
    return path[k];
}

static void write_bytes(const char *path, const void *data, size_t n)
{
    FILE *f = fopen(path, "wb");
    cr_assert_not_null(f, "%s", path);
    cr_assert_eq(fwrite(data, 1, n, f), n);
    cr_assert_eq(fclose(f), 0);
}

/* The whole file at path (malloc'd), *n its bytes. */
static uint8_t *read_bytes(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f, "%s", path);
    size_t cap = 1 << 16, k;
    uint8_t *b = malloc(cap);
    cr_assert_not_null(b);
    *n = 0;
    while ((k = fread(b + *n, 1, cap - *n, f)) > 0)
        if ((*n += k) == cap) {
            b = realloc(b, cap *= 2);
            cr_assert_not_null(b);
        }
    fclose(f);
    return b;
}

/* A shell command's status (its output logged when it fails). */
static int sh(const char *cmd)
{
    run_out r = run_sh(cmd);
    int st = r.status;
    if (st != 0)
        cr_log_error("%s: %s%s", cmd, r.out, r.err);
    run_free(&r);
    return st;
}

/* The checksum field of a model.json. */
static unsigned long json_checksum(const char *dir)
{
    char p[700];
    snprintf(p, sizeof p, "%s/model.json", dir);
    char *j = slurp(p);
    const char *c = strstr(j, "\"checksum\": \"");
    cr_assert_not_null(c, "%s", j);
    unsigned long v = strtoul(c + 13, NULL, 16);
    free(j);
    return v;
}

/* ---- building and running a generated model on the host ---- */

#define CFLAGS HOST_CFLAGS
#define SANITIZE HOST_SANITIZE

/* The kernels and the runtime, compiled once into tmp(kdir). */
static void compile_kernels(const char *kdir, const char *extra)
{
    char k[320];
    snprintf(k, sizeof k, "%s", tmp(kdir));
    cr_assert_eq(host_compile_kernels(root(), k, extra), 0, "compiling the kernels into %s failed", k);
}

/* Compile the model in dir (a full path) with the host main into dir.run,
** run it, and return its output bytes (malloc'd, *n of them). */
static uint8_t *build_and_run(const char *dir, const char *kdir, const char *extra, size_t *n)
{
    char cmd[600], k[320], exe[420], log[420];
    snprintf(k, sizeof k, "%s", tmp(kdir));
    snprintf(exe, sizeof exe, "%s.run", dir);
    snprintf(log, sizeof log, "%s.cc.log", dir);
    cr_assert_eq(host_build_model(root(), dir, k, extra, exe, log), 0, "%s does not compile (see %s)", dir, log);
    snprintf(cmd, sizeof cmd, "'%s.run'", dir);
    run_out r = run_sh(cmd);
    cr_assert_eq(r.status, 0, "%s: status %d: %s", cmd, r.status, r.err);
    cr_assert(strstr(r.out, "status 0\n") != NULL, "%s", r.out);
    const char *l = strstr(r.out, "logits");
    cr_assert_not_null(l);
    uint8_t *y = malloc(strlen(l) / 2 + 1);
    cr_assert_not_null(y);
    *n = 0;
    char *s = (char *)l + 6, *e;
    for (long v = strtol(s, &e, 10); e != s; v = strtol(s, &e, 10)) {
        y[(*n)++] = (uint8_t)(int8_t)v;
        s = e;
    }
    run_free(&r);
    return y;
}

/* ---- the hand-written nets ---- */

/* Input files for the net of model: deterministic bytes, little-endian
** floats in [-2, 2) for a float input; their paths into in[] (tmp names
** stem-k). */
static size_t make_inputs(const char *model, const char *stem, char in[][400])
{
    rip_tfl_model m;
    rip_net net;
    char err[RIP_ERR_LEN];
    cr_assert_eq(rip_tfl_model_load(model, &m, err), RIP_OK, "%s", err);
    cr_assert_eq(rip_net_build(&m, &net, err), RIP_OK, "%s", err);
    size_t n = net.n_inputs;
    for (size_t k = 0; k < n; k++) {
        const rip_net_io *io = &net.inputs[k];
        uint8_t *b = malloc((size_t)io->bytes);
        cr_assert_not_null(b);
        for (int64_t i = 0; i < io->bytes; i++)
            b[i] = (uint8_t)(i * 73 + 11 + 29 * (int64_t)k);
        for (int64_t i = 0; io->type == RIP_TFL_FLOAT32 && i < io->elements; i++) {
            float v = (float)((int)(i * 7 % 16) - 8) / 4.0f;
            memcpy(b + 4 * i, &v, 4);
        }
        char name[64];
        snprintf(name, sizeof name, "%.40s-%zu", stem, k);
        snprintf(in[k], sizeof in[k], "%s", tmp(name));
        write_bytes(in[k], b, (size_t)io->bytes);
        free(b);
    }
    rip_net_free(&net);
    rip_tfl_model_free(&m);
    return n;
}

/* `ripsim codegen model` with the inputs under plan into dir (full path). */
static void generate(const char *model, char in[][400], size_t n_in, const char *plan, const char *dir)
{
    char cmd[5000];
    int at = snprintf(cmd, sizeof cmd, "'%s' codegen '%s' --plan %s --out '%s'", ripsim(), model, plan, dir);
    for (size_t k = 0; k < n_in; k++)
        at += snprintf(cmd + at, sizeof cmd - (size_t)at, " --input '%s'", in[k]);
    cr_assert_eq(sh(cmd), 0, "codegen %s %s failed", model, plan);
}

/* `ripsim run model` with the inputs under plan: its --out bytes. */
static uint8_t *ripsim_run(const char *model, char in[][400], size_t n_in, const char *plan, size_t *n)
{
    char cmd[5000], out[400];
    snprintf(out, sizeof out, "%s", tmp("run.out"));
    int at = snprintf(cmd, sizeof cmd, "'%s' run '%s' --plan %s --out '%s'", ripsim(), model, plan, out);
    for (size_t k = 0; k < n_in; k++)
        at += snprintf(cmd + at, sizeof cmd - (size_t)at, " --input '%s'", in[k]);
    cr_assert_eq(sh(cmd), 0, "run %s %s failed", model, plan);
    return read_bytes(out, n);
}

Test(codegen_tflite, hand_nets_equal_ripsim_run_under_both_plans)
{
    static const char *const nets[] = {"inplace_chain", "data_ops", "ops", "convnet", "float_edges"};
    compile_kernels("k", "");
    for (size_t i = 0; i < sizeof nets / sizeof nets[0]; i++) {
        char in[4][400];
        size_t n_in = make_inputs(hand_model(nets[i]), nets[i], in);
        uint8_t *first = NULL;
        size_t n_first = 0;
        for (int p = 0; p < 2; p++) {
            const char *plan = p ? "rip" : "base";
            char dir[400], name[64];
            snprintf(name, sizeof name, "%.40s-%s", nets[i], plan);
            snprintf(dir, sizeof dir, "%s", tmp(name));
            generate(hand_model(nets[i]), in, n_in, plan, dir);
            size_t n, m;
            uint8_t *y = build_and_run(dir, "k", "", &n), *want = ripsim_run(hand_model(nets[i]), in, n_in, plan, &m);
            cr_expect(n == m && memcmp(y, want, n) == 0, "%s: the generated model's output is not ripsim run's",
                      name);
            cr_expect_eq(json_checksum(dir), rk_crc32(want, m), "%s: model.json's checksum", name);
            if (first)
                cr_expect(n == n_first && memcmp(y, first, n) == 0, "%s: base and rip differ", nets[i]);
            free(want);
            free(first);
            first = y;
            n_first = n;
        }
        free(first);
    }
}

/* ---- every candidate alone, shifted or not ---- */

/* The net of a hand model, its inputs (deterministic), and its dual-buffer output. */
typedef struct hand_net {
    rip_tfl_model m;
    rip_net net;
    void *in[4];
    uint8_t *dual;
    size_t n_dual;
} hand_net;

/* Run net under L with h's inputs: the outputs concatenated (host order; the hand nets are int8). */
static uint8_t *run_net(const hand_net *h, const rip_net_layout *L, size_t *n)
{
    char err[RIP_ERR_LEN];
    int8_t *arena = calloc((size_t)L->arena_bytes + 1, 1), *scratch = calloc((size_t)L->scratch_bytes + 1, 1);
    void *out[4];
    size_t total = 0;
    for (size_t k = 0; k < h->net.n_outputs; k++)
        total += (size_t)h->net.outputs[k].bytes;
    uint8_t *y = malloc(total + 1);
    cr_assert(arena && scratch && y);
    size_t at = 0;
    for (size_t k = 0; k < h->net.n_outputs; k++) {
        out[k] = y + at;
        at += (size_t)h->net.outputs[k].bytes;
    }
    cr_assert_eq(rip_net_run(&h->net, L, arena, scratch, (const void *const *)h->in, out, NULL, NULL, err), RIP_OK,
                 "%s", err);
    free(arena);
    free(scratch);
    *n = total;
    return y;
}

static void hand_open(const char *name, hand_net *h)
{
    char err[RIP_ERR_LEN];
    memset(h, 0, sizeof *h);
    cr_assert_eq(rip_tfl_model_load(hand_model(name), &h->m, err), RIP_OK, "%s", err);
    cr_assert_eq(rip_net_build(&h->m, &h->net, err), RIP_OK, "%s", err);
    cr_assert_leq(h->net.n_inputs, 4u);
    for (size_t k = 0; k < h->net.n_inputs; k++) {
        h->in[k] = malloc((size_t)h->net.inputs[k].bytes);
        for (int64_t i = 0; i < h->net.inputs[k].bytes; i++)
            ((uint8_t *)h->in[k])[i] = (uint8_t)(i * 37 + 5);
    }
    rip_problem p;
    rip_graph_opts go = rip_net_plan_opts(RIP_NET_PLAN_RIP);
    cr_assert_eq(rip_net_problem(&h->net, &go, &p, err), RIP_OK, "%s", err);
    int64_t top;
    rip_plan *plan = plan_apart(&p, &top);
    rip_net_layout L;
    cr_assert_eq(rip_net_layout_from_plan(&h->net, &p, plan, &L, err), RIP_OK, "%s", err);
    h->dual = run_net(h, &L, &h->n_dual);
    rip_net_layout_free(&L);
    rip_plan_free(plan);
    rip_problem_free(&p);
}

static void hand_close(hand_net *h)
{
    for (size_t k = 0; k < h->net.n_inputs; k++)
        free(h->in[k]);
    free(h->dual);
    rip_net_free(&h->net);
    rip_tfl_model_free(&h->m);
}

Test(codegen_tflite, every_candidate_alone_and_shifted_equals_dual_buffers)
{
    static const char *const names[] = {"inplace_chain", "data_ops"};
    int seen[RIP_NET_DEQUANTIZE + 1][3] = {{0}}; /* per step kind: over, below, below shifted */
    compile_kernels("k", "");
    for (size_t n = 0; n < 2; n++) {
        hand_net h;
        hand_open(names[n], &h);
        rip_problem p;
        char err[RIP_ERR_LEN];
        rip_graph_opts go = rip_net_plan_opts(RIP_NET_PLAN_RIP);
        cr_assert_eq(rip_net_problem(&h.net, &go, &p, err), RIP_OK, "%s", err);
        for (size_t k = 0; k < p.n_cand; k++)
            for (int shift = 0; shift <= (p.cand[k].kind == RIP_INPLACE_GAP); shift++) {
                rip_plan *plan = plan_with(&p, k, shift);
                cr_assert_eq(rip_plan_check(&p, plan, true, err), RIP_OK, "%s", err);
                rip_net_layout L;
                cr_assert_eq(rip_net_layout_from_plan(&h.net, &p, plan, &L, err), RIP_OK, "%s", err);
                const rip_net_place *pl = &L.place[p.cand[k].op];
                seen[h.net.steps[p.cand[k].op].kind][pl->mode == RIP_NET_OVER ? 0 : 1 + shift]++;
                char name[64], dir[400];
                snprintf(name, sizeof name, "%.30s-c%zu-s%d", names[n], k, shift);
                snprintf(dir, sizeof dir, "%s", tmp(name));
                cr_assert_eq(mkdir(dir, 0777), 0);
                rip_cg_summary s;
                rip_cg_tflite_write_opts o = {.plan = RIP_CG_RIP, .strategy = "hand", .source = hand_model(names[n])};
                cr_assert_eq(rip_cg_tflite_write(&h.net, &L, (const void *const *)h.in, &o, dir, &s, err), RIP_OK,
                             "%s", err);
                cr_expect_eq(s.n_inplace, 1);
                cr_expect_eq(s.n_shifts, shift);
                size_t m;
                uint8_t *y = build_and_run(dir, "k", "", &m);
                cr_expect(m == h.n_dual && memcmp(y, h.dual, m) == 0, "%s: differs from the dual-buffer run", name);
                cr_expect_eq(s.checksum, rk_crc32(h.dual, h.n_dual), "%s", name);
                free(y);
                rip_net_layout_free(&L);
                rip_plan_free(plan);
            }
        rip_problem_free(&p);
        hand_close(&h);
    }
    /* every in-place kernel was generated: convolutions and a pool below
    ** their inputs, shifted or not; the depthwise, ADDs and the upsampling over theirs */
    cr_expect_eq(seen[RIP_NET_CONV][1], 2);
    cr_expect_eq(seen[RIP_NET_CONV][2], 2);
    cr_expect_geq(seen[RIP_NET_MAXPOOL][1], 2);
    cr_expect_geq(seen[RIP_NET_MAXPOOL][2], 2);
    cr_expect_eq(seen[RIP_NET_DEPTHWISE][0], 1);
    cr_expect_geq(seen[RIP_NET_ADD][0], 3);
    cr_expect_eq(seen[RIP_NET_RESIZE][0], 1);
}

/* The generated code stays in its arena, scratch and output arrays: two
** nets built with AddressSanitizer and UBSan (inplace_chain under rip,
** in-place kernels; ops under base, broadcast ADD, CONCATENATION,
** TRANSPOSE, MEAN, two inputs) run clean and equal ripsim run. */
Test(codegen_tflite, generated_models_are_memory_clean)
{
    static const char *const nets[][2] = {{"inplace_chain", "rip"}, {"ops", "base"}, {"float_edges", "rip"}};
    compile_kernels("k-san", SANITIZE);
    for (size_t i = 0; i < sizeof nets / sizeof nets[0]; i++) {
        char in[4][400], dir[400], name[64];
        size_t n_in = make_inputs(hand_model(nets[i][0]), nets[i][0], in);
        snprintf(name, sizeof name, "san-%.30s-%.8s", nets[i][0], nets[i][1]);
        snprintf(dir, sizeof dir, "%s", tmp(name));
        generate(hand_model(nets[i][0]), in, n_in, nets[i][1], dir);
        size_t n, m;
        uint8_t *y = build_and_run(dir, "k-san", SANITIZE, &n);
        uint8_t *want = ripsim_run(hand_model(nets[i][0]), in, n_in, nets[i][1], &m);
        cr_expect(n == m && memcmp(y, want, n) == 0, "%s", name);
        free(y);
        free(want);
    }
}

/* ---- the command line ---- */

Test(codegen_tflite, command_line_errors)
{
    char in[4][400], out[400], cmd[3000];
    make_inputs(hand_model("inplace_chain"), "chain", in);
    snprintf(out, sizeof out, "%s", tmp("gen"));
    static const struct {
        int status;
        const char *args, *msg;
    } cases[] = {
        {64, "--plan base", "needs --input FILE"},
        {64, "--plan base --input IN --seed 3", "--seed is for a graph"},
        {65, "--plan base --input IN --input IN", "has 1 input, but 2 input files given"},
        {65, "--plan base --input MODEL", "takes exactly 32"},
        {65, "--plan base --input IN --arena 10", "below the peak"},
        {66, "--plan base --input NOPE", "cannot open"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char args[1500];
        const char *a = cases[i].args;
        size_t k = 0;
        while (*a && k + 500 < sizeof args) {
            const char *w = !strncmp(a, "IN", 2) && (a[2] == ' ' || !a[2]) ? in[0]
                            : !strncmp(a, "MODEL", 5) ? hand_model("svdf_custom")
                            : !strncmp(a, "NOPE", 4) ? tmp("no-such.in") : NULL;
            if (w) {
                k += (size_t)snprintf(args + k, sizeof args - k, "'%s'", w);
                a += !strncmp(a, "IN", 2) ? 2 : !strncmp(a, "MODEL", 5) ? 5 : 4;
            } else
                args[k++] = *a++;
        }
        args[k] = '\0';
        snprintf(cmd, sizeof cmd, "'%s' codegen '%s' --out '%s' %s", ripsim(), hand_model("inplace_chain"), out, args);
        run_out r = run_sh(cmd);
        cr_expect_eq(r.status, cases[i].status, "case %zu (%s): status %d: %s", i, cases[i].args, r.status, r.err);
        cr_expect(strstr(r.err, cases[i].msg) != NULL, "case %zu: %s", i, r.err);
        cr_expect_eq(count_nl(r.err), 1, "case %zu: one line: %s", i, r.err);
        cr_expect_not(exists(out), "case %zu: %s written", i, out);
        run_free(&r);
    }
    /* --input and --name are for a .tflite only */
    snprintf(cmd, sizeof cmd, "'%s' codegen '%s/firmware/models/mcunet/mcunet-in0.csv' --plan base --out '%s' --name x",
             ripsim(), root(), out);
    run_out r = run_sh(cmd);
    cr_expect_eq(r.status, 64, "%s", r.err);
    run_free(&r);
}

/* ---- the Cortex-M builds ---- */

/* model.c of the hand nets compiles for the M0+ and the M33 with the flags of firmware/cross/. */
Test(codegen_tflite, generated_code_compiles_for_cortex_m0plus_and_m33)
{
    if (system("command -v arm-none-eabi-gcc >/dev/null 2>&1") != 0)
        rip_skip("no arm-none-eabi-gcc: the Cortex-M builds are not checked");
    static const char *const nets[] = {"inplace_chain", "data_ops", "ops", "convnet", "float_edges"};
    static const char *const cpus[] = {"-mcpu=cortex-m0plus -mthumb", "-mcpu=cortex-m33 -mthumb -mfloat-abi=softfp"};
    for (size_t i = 0; i < sizeof nets / sizeof nets[0]; i++) {
        char in[4][400], dir[400], name[64], cmd[3000];
        size_t n_in = make_inputs(hand_model(nets[i]), nets[i], in);
        snprintf(name, sizeof name, "arm-%.40s", nets[i]);
        snprintf(dir, sizeof dir, "%s", tmp(name));
        generate(hand_model(nets[i]), in, n_in, "rip", dir);
        for (size_t c = 0; c < 2; c++) {
            /* model.o and model_blob.o (its .incbin found through -Wa,-I) inside dir */
            snprintf(cmd, sizeof cmd,
                     "cd '%s' && arm-none-eabi-gcc " CFLAGS " %s --specs=picolibc.specs -I '%s/firmware/kernels' -I "
                     "'%s/firmware/runtime' -Wa,-I,'%s' -c model.c model_blob.S",
                     dir, cpus[c], root(), root(), dir);
            cr_expect_eq(sh(cmd), 0, "%s: %s", nets[i], cpus[c]);
        }
    }
}

/* ---- with the TFLite Micro peer ---- */

/* Skip unless the suite was built with the peer (tests/meson.build). */
static void need_peer(void)
{
    if (!getenv("TFLM_PEER_BUILD"))
        rip_skip("no TFLite Micro tree (meson option tflm_path): the real models are not compared with TFLM");
}

/* The peer's report of case c: its output bytes concatenated (malloc'd). */
static uint8_t *tflm_outputs(const peer_case *c, size_t *n)
{
    run_out r = peer_case_run("ref", c, "--repeat 0");
    jm *doc = report(&r);
    static uint8_t buf[1 << 16];
    const jm *outs = jn_get(doc, "outputs");
    *n = 0;
    for (size_t k = 0; k < outs->n; k++)
        *n += output_bytes(doc, k, buf + *n, sizeof buf - *n);
    uint8_t *y = malloc(*n + 1);
    cr_assert_not_null(y);
    memcpy(y, buf, *n);
    jm_free(doc);
    run_free(&r);
    return y;
}

Test(codegen_tflite, real_models_equal_tflm_under_both_plans)
{
    need_peer();
    load_cases();
    compile_kernels("k", "");
    for (int i = 0; i < n_cases; i++) {
        const peer_case *c = &cases[i];
        size_t n_tflm;
        uint8_t *tflm = tflm_outputs(c, &n_tflm);
        char in[1][400];
        snprintf(in[0], sizeof in[0], "%.390s", c->input);
        for (int p = 0; p < 2; p++) {
            const char *plan = p ? "rip" : "base";
            char dir[400], name[64];
            snprintf(name, sizeof name, "%.40s-%s", c->name, plan);
            snprintf(dir, sizeof dir, "%s", tmp(name));
            generate(c->model, in, 1, plan, dir);
            size_t n, m;
            uint8_t *y = build_and_run(dir, "k", "", &n), *run = ripsim_run(c->model, in, 1, plan, &m);
            cr_expect(n == n_tflm && memcmp(y, tflm, n) == 0, "%s: the generated model's output is not TFLM's",
                      name);
            cr_expect(m == n_tflm && memcmp(run, tflm, m) == 0, "%s: ripsim run's output is not TFLM's", name);
            cr_expect_eq(json_checksum(dir), rk_crc32(tflm, n_tflm), "%s: model.json's checksum", name);
            if (!strcmp(c->name, "person") || !strcmp(c->name, "no_person")) {
                /* TFLM's person_detection_test: [no person, person] */
                const int person = !strcmp(c->name, "person") ? 113 : -57;
                cr_expect(n == 2 && (int8_t)y[1] == person && (int8_t)y[0] == -person, "%s: scores %d %d", name,
                          (int8_t)y[0], (int8_t)y[1]);
            }
            free(y);
            free(run);
        }
        free(tflm);
    }
}

/*
** firmware/tools/real-models.sh makes the inputs from the recipes of
** tests/tflm/cases.tsv without TFLM (a float sample of an int8 input
** quantized by ripsim): each model it generates is byte for byte the one
** generated from the peer's own input tensor, and its reference is TFLM's
** output.
*/
Test(codegen_tflite, firmware_inputs_are_the_peers)
{
    need_peer();
    load_cases();
    char gen[400], cmd[3000];
    snprintf(gen, sizeof gen, "%s", tmp("gen-real"));
    snprintf(cmd, sizeof cmd, "'%s/firmware/tools/real-models.sh' --gen '%s' --ripsim '%s' --tflm '%s' --models '%s'",
             root(), gen, ripsim(), getenv("RIPSIM_TFLM_PATH"), getenv("RIPSIM_MODELS_PATH"));
    cr_assert_eq(sh(cmd), 0);
    for (int i = 0; i < n_cases; i++) {
        const peer_case *c = &cases[i];
        char in[1][400], dir[400], name[64], a[500], b[500];
        snprintf(in[0], sizeof in[0], "%.390s", c->input);
        snprintf(name, sizeof name, "peer-%.40s", c->name);
        snprintf(dir, sizeof dir, "%s", tmp(name));
        generate(c->model, in, 1, "base", dir);
        snprintf(a, sizeof a, "%s/model.bin", dir);
        snprintf(b, sizeof b, "%.300s/%.60s/base/model.bin", gen, c->name);
        size_t na, nb;
        uint8_t *x = read_bytes(a, &na), *y = read_bytes(b, &nb);
        cr_expect(na == nb && memcmp(x, y, na) == 0, "%s: real-models.sh's model.bin is not the peer input's",
                  c->name);
        free(x);
        free(y);
        size_t n_tflm;
        uint8_t *tflm = tflm_outputs(c, &n_tflm);
        snprintf(b, sizeof b, "%.300s/%.60s/rip", gen, c->name);
        cr_expect_eq(json_checksum(b), rk_crc32(tflm, n_tflm), "%s: the rip model's reference is not TFLM's",
                     c->name);
        free(tflm);
    }
}

/* results/tflm-peer.tsv is what tests/tflm/measure.sh measures now. */
Test(codegen_tflite, committed_tflm_figures_are_the_peers)
{
    need_peer();
    char cmd[3000], committed[1200];
    snprintf(cmd, sizeof cmd, "'%s/tests/tflm/measure.sh' '%s'", root(), peer_dir());
    run_out r = run_sh(cmd);
    cr_assert_eq(r.status, 0, "%s", r.err);
    snprintf(committed, sizeof committed, "%s/results/tflm-peer.tsv", root());
    char *y = slurp(committed);
    cr_expect_str_eq(r.out, y, "results/tflm-peer.tsv is stale: tests/tflm/measure.sh build-tflm-peer > "
                               "results/tflm-peer.tsv");
    free(y);
    run_free(&r);
}
