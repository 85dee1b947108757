/*
** test_codegen.c — `ripsim codegen` (src/codegen/, firmware/runtime/):
** the eleven MCUNet models under both plans, generated, compiled natively
** with the host compiler and run.
**
** What is held against what:
**   the generated model's logits against the library's reference run (every
**   tensor in its own malloc'd buffer, dual-buffer kernels, the plan never
**   consulted), bit for bit, and base against rip (one checksum);
**   arena_bytes against Tab. 3's peaks (firmware/models/mcunet/
**   table3_reference.csv, pinned to the paper), read here from the CSV;
**   the CRC against the standard check value of CRC-32/IEEE.
** The kernels and the runtime are compiled once (objects in the suite's
** folder), then each model's model.c and model_blob.S against them.
*/
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/stat.h>

#include "codegen/codegen.h"
#include "codegen_build.h"
#include "host_model.h"
#include "rk_crc32.h"
#include "run_cmd.h"
#include "tmpdir.h"

TEST_SUITE_WITH_TMPDIR(codegen, 900);

static const char *const models[] = {
    "mcunet-in0", "mcunet-in1", "mcunet-in2", "mcunet-in3", "mcunet-in4", "mbv2-w0.35",
    "proxyless-w0.3", "mcunet-vww0", "mcunet-vww1", "mcunet-vww2", "person-det",
};
enum { N_MODELS = sizeof models / sizeof models[0] };

static const char *graph_path(const char *model)
{
    static char buf[4][600];
    static int k;
    k = (k + 1) % 4;
    snprintf(buf[k], sizeof buf[k], "%s/firmware/models/mcunet/%s.csv", root(), model);
    return buf[k];
}

/* Tab. 3's base and rip peaks of model, from the reference CSV (columns by header name). */
static void table3_peaks(const char *model, int64_t *base, int64_t *rip)
{
    char path[600], line[1024];
    snprintf(path, sizeof path, "%s/firmware/models/mcunet/table3_reference.csv", root());
    FILE *f = fopen(path, "r");
    cr_assert_not_null(f, "%s", path);
    int c_model = -1, c_base = -1, c_rip = -1;
    *base = *rip = -1;
    for (int row = 0; fgets(line, sizeof line, f); row++) {
        line[strcspn(line, "\r\n")] = '\0';
        char *save = NULL, *tok = strtok_r(line, ",", &save);
        const char *name = NULL;
        for (int col = 0; tok; col++, tok = strtok_r(NULL, ",", &save)) {
            if (row == 0) {
                if (strcmp(tok, "model") == 0)
                    c_model = col;
                if (strcmp(tok, "table3_base_peak_bytes") == 0)
                    c_base = col;
                if (strcmp(tok, "table3_rip_peak_bytes") == 0)
                    c_rip = col;
            } else if (col == c_model) {
                name = tok;
            } else if (name && strcmp(name, model) == 0 && col == c_base) {
                *base = atoll(tok);
            } else if (name && strcmp(name, model) == 0 && col == c_rip) {
                *rip = atoll(tok);
            }
        }
    }
    fclose(f);
    cr_assert(*base > 0 && *rip > 0, "%s: no Tab. 3 peaks in the reference CSV", model);
}

/* The whole of a (small) file; NULL when missing.  *n receives its bytes. */
static char *slurp(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 1 << 16, len = 0;
    char *b = malloc(cap + 1);
    cr_assert_not_null(b);
    size_t k;
    while ((k = fread(b + len, 1, cap - len, f)) > 0) {
        len += k;
        if (len == cap) {
            cap *= 2;
            b = realloc(b, cap + 1);
            cr_assert_not_null(b);
        }
    }
    fclose(f);
    b[len] = '\0';
    if (n)
        *n = len;
    return b;
}

/* An integer key of a flat JSON object ("key": N). */
static int64_t json_int(const char *json, const char *key)
{
    char pat[64];
    snprintf(pat, sizeof pat, "\"%s\": ", key);
    const char *p = strstr(json, pat);
    cr_assert_not_null(p, "no %s in %s", key, json);
    return atoll(p + strlen(pat));
}

static bool same_file(const char *a, const char *b)
{
    size_t na, nb;
    char *x = slurp(a, &na), *y = slurp(b, &nb);
    cr_assert(x && y, "%s or %s missing", a, b);
    bool same = na == nb && memcmp(x, y, na) == 0;
    free(x);
    free(y);
    return same;
}

/* Generate model under plan into tmp(dir); asserts exit 0. */
static void generate(const char *model, const char *plan, const char *dir)
{
    char out[400];
    snprintf(out, sizeof out, "%s", tmp(dir));
    run_result *r = RUN("codegen", graph_path(model), "--plan", plan, "--out", out);
    cr_assert_eq(r->status, 0, "codegen %s %s: exit %d: %s", model, plan, r->status, r->err);
}

/* Compile the kernels and the runtime once into tmp(kdir), objects only. */
static void compile_kernels(const char *kdir, const char *extra)
{
    char k[320];
    snprintf(k, sizeof k, "%s", tmp(kdir));
    cr_assert_eq(host_compile_kernels(root(), k, extra), 0, "compiling the kernels into %s failed", k);
}

/* Link the model in tmp(dir) with the host main and the objects of
** tmp(kdir) into tmp(dir)/run; the compiler's status. */
static int build_model(const char *dir, const char *kdir, const char *extra)
{
    char d[320], k[320], exe[340], log[340];
    snprintf(d, sizeof d, "%s", tmp(dir));
    snprintf(k, sizeof k, "%s", tmp(kdir));
    snprintf(exe, sizeof exe, "%s/run", d);
    snprintf(log, sizeof log, "%s/cc.log", d);
    return host_build_model(root(), d, k, extra, exe, log);
}

/* Compile tmp(dir)/model.c and model_blob.S with arm-none-eabi-gcc under
** CROSS_CFLAGS, objects only; the compiler's status (log in
** tmp(dir)/cross.log), or 0 when the toolchain is not installed (said once). */
static int cross_compile(const char *dir)
{
    if (!have_cross())
        return 0;
    char d[320], cmd[2048];
    snprintf(d, sizeof d, "%s", tmp(dir));
    snprintf(cmd, sizeof cmd,
             "cd '%s' && arm-none-eabi-gcc " CROSS_CFLAGS " -I '%s/firmware/kernels' -I '%s/firmware/runtime' "
             "-Wa,-I,'%s' -c model.c model_blob.S 2>cross.log",
             d, root(), root(), d);
    return sh(cmd);
}

typedef struct host_run {
    int status;
    unsigned checksum;
    int64_t arena, n;
    int8_t logits[16384];
} host_run;

/* Run tmp(dir)/run and parse its lines (tests/codegen_host_main.c). */
static void run_model(const char *dir, host_run *h)
{
    static char line[1 << 18];
    char cmd[400];
    snprintf(cmd, sizeof cmd, "'%s/run'", tmp(dir));
    fflush(NULL);
    FILE *p = popen(cmd, "r");
    cr_assert_not_null(p);
    memset(h, 0, sizeof *h);
    h->status = -1;
    while (fgets(line, sizeof line, p)) {
        long long v;
        if (sscanf(line, "status %d", &h->status) == 1 || sscanf(line, "checksum %x", &h->checksum) == 1)
            continue;
        if (sscanf(line, "arena %lld", &v) == 1)
            h->arena = v;
        if (strncmp(line, "logits", 6) == 0) {
            char *s = line + 6, *e;
            for (long x = strtol(s, &e, 10); e != s && h->n < 16384; x = strtol(s, &e, 10)) {
                h->logits[h->n++] = (int8_t)x;
                s = e;
            }
        }
    }
    cr_assert_eq(pclose(p), 0, "%s exited with an error", cmd);
}

/* The host run h of a model generated from graph gpath (default seed) must
** print the logits and checksum of the library's dual-buffer reference
** run; what names the model in a failure. */
static void expect_reference_run(const char *gpath, const host_run *h, const char *what)
{
    rip_graph g;
    char err[RIP_ERR_LEN];
    cr_assert_eq(rip_graph_load(gpath, &g, err), RIP_OK, "%s", err);
    rip_cg_model *ref = NULL;
    cr_assert_eq(rip_cg_model_build(&g, RIP_CG_SEED_DEFAULT, &ref, err), RIP_OK, "%s", err);
    int64_t n = 0;
    const int8_t *y = rip_cg_model_logits(ref, &n);
    cr_expect(h->n == n && memcmp(h->logits, y, (size_t)n) == 0, "%s: logits differ from the dual-buffer reference",
              what);
    cr_expect_eq(h->checksum, rip_cg_model_checksum(ref), "%s: checksum %08x, reference %08x", what, h->checksum,
                 rip_cg_model_checksum(ref));
    rip_cg_model_free(ref);
    rip_graph_free(&g);
}

static int distinct(const int8_t *v, int64_t n)
{
    bool seen[256] = {false};
    int d = 0;
    for (int64_t i = 0; i < n; i++)
        if (!seen[(uint8_t)v[i]]) {
            seen[(uint8_t)v[i]] = true;
            d++;
        }
    return d;
}

/* ---------------------------------------------------------------- CRC */

Test(codegen, crc32_is_ieee)
{
    cr_assert_eq(rk_crc32("123456789", 9), 0xCBF43926u, "the CRC-32/IEEE check value");
    cr_assert_eq(rk_crc32(NULL, 0), 0u);
    cr_assert_eq(rk_crc32("a", 1), 0xE8B7BE43u); /* zlib.crc32(b"a") */
    cr_assert_eq(rk_crc32_update(rk_crc32("1234", 4), "56789", 5), 0xCBF43926u, "incremental == whole");
}

/* ------------------------------------------------- the eleven models */

/*
** Each model under both plans: generated, compiled, run.  Checksums equal
** between plans and equal to the reference run, logits byte for byte equal
** to it, arenas equal to Tab. 3, many distinct logits, the same blob.
*/
Test(codegen, eleven_models_run_bit_exact_under_both_plans)
{
    compile_kernels("k", "");
    for (int i = 0; i < N_MODELS; i++) {
        const char *m = models[i];
        int64_t peak[2];
        table3_peaks(m, &peak[0], &peak[1]);

        rip_graph g;
        char err[RIP_ERR_LEN];
        cr_assert_eq(rip_graph_load(graph_path(m), &g, err), RIP_OK, "%s", err);
        rip_cg_model *ref = NULL;
        cr_assert_eq(rip_cg_model_build(&g, RIP_CG_SEED_DEFAULT, &ref, err), RIP_OK, "%s", err);
        int64_t n_ref = 0;
        const int8_t *y_ref = rip_cg_model_logits(ref, &n_ref);
        cr_assert(n_ref > 0 && n_ref <= 16384);

        host_run h[2];
        for (int p = 0; p < 2; p++) {
            const char *plan = p ? "rip" : "base";
            char dir[48], path[400];
            snprintf(dir, sizeof dir, "%s-%s", m, plan);
            generate(m, plan, dir);
            snprintf(path, sizeof path, "%s/model.json", tmp(dir));
            char *json = slurp(path, NULL);
            cr_assert_not_null(json, "%s", path);
            cr_expect_eq(json_int(json, "arena_bytes"), peak[p], "%s %s: arena %lld, Tab. 3 %lld", m, plan,
                         (long long)json_int(json, "arena_bytes"), (long long)peak[p]);
            cr_expect_eq(json_int(json, "n_ops"), (int64_t)g.n_ops);
            cr_expect_eq(json_int(json, "n_logits"), n_ref);
            cr_expect(json_int(json, "scratch_bytes") > 0);
            free(json);
            cr_assert_eq(build_model(dir, "k", ""), 0, "%s %s does not compile (see %s/cc.log)", m, plan, tmp(dir));
            run_model(dir, &h[p]);
            cr_expect_eq(h[p].status, 0, "%s %s: rk_model_run returned %d", m, plan, h[p].status);
            cr_expect_eq(h[p].arena, peak[p]);
            cr_assert_eq(h[p].n, n_ref, "%s %s: %lld logits printed, %lld expected", m, plan, (long long)h[p].n,
                         (long long)n_ref);
            cr_expect(memcmp(h[p].logits, y_ref, (size_t)n_ref) == 0,
                      "%s %s: the logits differ from the dual-buffer reference run", m, plan);
            cr_expect_eq(h[p].checksum, rip_cg_model_checksum(ref), "%s %s: checksum %08x, reference %08x", m,
                         plan, h[p].checksum, rip_cg_model_checksum(ref));
        }
        cr_expect_eq(h[0].checksum, h[1].checksum, "%s: checksum base %08x != rip %08x", m, h[0].checksum,
                     h[1].checksum);
        cr_expect_lt(peak[1], peak[0], "%s: the rip arena is not smaller", m);
        /* "many distinct values": at least 16, or every logit differing on the 2-logit VWW heads */
        int want = n_ref >= 32 ? 16 : (int)n_ref;
        cr_expect_geq(distinct(h[1].logits, h[1].n), want, "%s: %d distinct logits", m,
                      distinct(h[1].logits, h[1].n));
        char a[400], b[400];
        snprintf(a, sizeof a, "%s-base/model.bin", tmp(m));
        snprintf(b, sizeof b, "%s-rip/model.bin", tmp(m));
        cr_expect(same_file(a, b), "%s: model.bin differs between the plans (the seed stream must not)", m);
        rip_cg_model_free(ref);
        rip_graph_free(&g);
    }
}

/*
** The generated code stays inside its arena and scratch: two models built
** with AddressSanitizer and UBSan run clean and still match the reference
** (Person-Det under rip: RiP convolutions, pools and upsampling in place,
** adds over an input, three outputs; MCUNet-in0 under base: TinyEngine's
** in-place depthwise, global pooling, fc).
*/
Test(codegen, generated_models_are_memory_clean)
{
    static const struct {
        const char *model, *plan;
    } cases[] = {{"person-det", "rip"}, {"mcunet-in0", "base"}};
    compile_kernels("k-san", SANITIZE);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char dir[48];
        snprintf(dir, sizeof dir, "san-%s-%s", cases[i].model, cases[i].plan);
        generate(cases[i].model, cases[i].plan, dir);
        cr_assert_eq(build_model(dir, "k-san", SANITIZE), 0, "%s does not compile (see %s/cc.log)", dir, tmp(dir));
        host_run h;
        run_model(dir, &h);
        cr_expect_eq(h.status, 0);
        expect_reference_run(graph_path(cases[i].model), &h, dir);
    }
}

/* ------------------------------------------- the arena one byte smaller */

/*
** --arena below the plan's peak is refused (exit 65, one line naming the
** option), for every model and plan, and writes nothing; the peak itself
** and more are accepted.  A generated model.c whose arena is edited below
** the peak does not compile.
*/
Test(codegen, arena_one_byte_smaller_is_refused)
{
    for (int i = 0; i < N_MODELS; i++) {
        int64_t peak[2];
        table3_peaks(models[i], &peak[0], &peak[1]);
        for (int p = 0; p < 2; p++) {
            char arena[32], dir[64];
            snprintf(arena, sizeof arena, "%lld", (long long)(peak[p] - 1));
            snprintf(dir, sizeof dir, "%s", tmp("small"));
            run_result *r = RUN("codegen", graph_path(models[i]), "--plan", p ? "rip" : "base", "--out", dir,
                                "--arena", arena);
            cr_expect_eq(r->status, 65, "%s: --arena peak - 1: exit %d", models[i], r->status);
            cr_expect_eq(count_lines(r->err), 1, "%s", r->err);
            cr_expect_not_null(strstr(r->err, "--arena"), "%s", r->err);
            char path[400];
            snprintf(path, sizeof path, "%s/model.c", dir);
            cr_expect(!exists(path), "a refused --arena wrote %s", path);
        }
    }
    char big[32], dir[64], path[400];
    int64_t base, rip;
    table3_peaks("mcunet-in0", &base, &rip);
    snprintf(big, sizeof big, "%lld", (long long)(rip + 100));
    snprintf(dir, sizeof dir, "%s", tmp("big"));
    run_result *r = RUN("codegen", graph_path("mcunet-in0"), "--plan", "rip", "--out", dir, "--arena", big);
    cr_assert_eq(r->status, 0, "%s", r->err);
    snprintf(path, sizeof path, "%s/model.json", dir);
    char *json = slurp(path, NULL);
    cr_assert_not_null(json);
    cr_expect_eq(json_int(json, "arena_bytes"), rip + 100);
    cr_expect_eq(json_int(json, "peak_bytes"), rip);
    free(json);

    /* edit the generated arena one byte below the peak: the build must fail */
    char cmd[1200];
    snprintf(cmd, sizeof cmd,
             "sed -i 's/^#define RK_ARENA_BYTES .*/#define RK_ARENA_BYTES %lldu/' '%s/model.c' && "
             "cc -std=c11 -fsyntax-only -I '%s/firmware/kernels' -I '%s/firmware/runtime' '%s/model.c' 2>/dev/null",
             (long long)(rip - 1), dir, root(), root(), dir);
    cr_expect_neq(sh(cmd), 0, "a model.c with an arena below the peak compiled");
}

/* ------------------------------------------------- in place, for real */

/*
** The rip plans really overlap: for every model some in-place convolution
** writes its output over bytes of its own input, and a plain dual-buffer
** execution (input and output of each op apart, every live tensor apart)
** needs more than the rip arena: the dual problem's live-bytes lower bound
** exceeds it.  The generated model.c calls the in-place kernels.
*/
Test(codegen, rip_plans_run_in_place)
{
    for (int i = 0; i < N_MODELS; i++) {
        rip_graph g;
        rip_problem p, dual;
        rip_plan *plan = NULL;
        char err[RIP_ERR_LEN];
        cr_assert_eq(rip_cg_plan(graph_path(models[i]), RIP_CG_RIP, &g, &p, &plan, err), RIP_OK, "%s", err);
        int overlapping = 0;
        for (size_t k = 0; k < p.n_cand; k++) {
            const rip_candidate *c = &p.cand[k];
            if (!plan->in_place[k] || c->kind != RIP_INPLACE_GAP || !c->has_layer)
                continue;
            int64_t xi = plan->offset[c->in], xo = plan->offset[c->out];
            overlapping += xo < xi + p.t[c->in].size && xi < xo + p.t[c->out].size;
        }
        cr_expect_gt(overlapping, 0, "%s: no in-place convolution overlaps its input", models[i]);
        rip_graph_opts go = {.rip = false, .inplace_depthwise = false, .align = 4};
        cr_assert_eq(rip_problem_from_graph(&g, &go, &dual, err), RIP_OK, "%s", err);
        int64_t need = rip_problem_lower_bound(&dual);
        cr_expect_gt(need, plan->peak, "%s: dual buffers need %lld, the rip arena is %lld", models[i],
                     (long long)need, (long long)plan->peak);
        rip_problem_free(&dual);
        rip_plan_free(plan);
        rip_problem_free(&p);
        rip_graph_free(&g);
    }
    generate("mcunet-in3", "rip", "in3-rip");
    generate("mcunet-in3", "base", "in3-base");
    char path[400];
    snprintf(path, sizeof path, "%s/model.c", tmp("in3-rip"));
    char *c = slurp(path, NULL);
    cr_assert_not_null(c);
    cr_expect_not_null(strstr(c, "rk_conv2d_rip("));
    free(c);
    snprintf(path, sizeof path, "%s/model.c", tmp("in3-base"));
    c = slurp(path, NULL);
    cr_assert_not_null(c);
    cr_expect_not_null(strstr(c, "rk_depthwise_inplace("));
    cr_expect_null(strstr(c, "rk_conv2d_rip("), "the base plan has no RiP convolution");
    free(c);
}

/* ------------------------------------------------------- the weights */

/*
** Activations stay informative through the whole network: in the
** reference run of every model, every tensor of at least 64 bytes takes at
** least 16 distinct values and at most 5% of it is clamped to -128 or 127.
*/
Test(codegen, activations_stay_informative)
{
    for (int i = 0; i < N_MODELS; i++) {
        rip_graph g;
        char err[RIP_ERR_LEN];
        cr_assert_eq(rip_graph_load(graph_path(models[i]), &g, err), RIP_OK, "%s", err);
        rip_cg_model *m = NULL;
        cr_assert_eq(rip_cg_model_build(&g, RIP_CG_SEED_DEFAULT, &m, err), RIP_OK, "%s", err);
        for (size_t t = 0; t <= g.n_ops; t++) {
            int64_t n = 0;
            const int8_t *v = rip_cg_model_tensor(m, t, &n);
            cr_assert_not_null(v);
            if (n < 64)
                continue;
            int64_t clamped = 0;
            for (int64_t k = 0; k < n; k++)
                clamped += v[k] == -128 || v[k] == 127;
            cr_expect_geq(distinct(v, n), 16, "%s tensor %zu: %d distinct values", models[i], t, distinct(v, n));
            cr_expect_leq(clamped * 20, n, "%s tensor %zu: %lld of %lld clamped", models[i], t, (long long)clamped,
                          (long long)n);
        }
        cr_expect_null(rip_cg_model_tensor(m, g.n_ops + 1, &(int64_t){0}));
        rip_cg_model_free(m);
        rip_graph_free(&g);
    }
}

/* Another seed gives other weights and logits; the same seed the same. */
Test(codegen, seed_changes_the_model)
{
    rip_graph g;
    char err[RIP_ERR_LEN];
    cr_assert_eq(rip_graph_load(graph_path("mcunet-vww0"), &g, err), RIP_OK, "%s", err);
    rip_cg_model *a = NULL, *b = NULL, *c = NULL;
    cr_assert_eq(rip_cg_model_build(&g, 1, &a, err), RIP_OK, "%s", err);
    cr_assert_eq(rip_cg_model_build(&g, 2, &b, err), RIP_OK, "%s", err);
    cr_assert_eq(rip_cg_model_build(&g, 1, &c, err), RIP_OK, "%s", err);
    size_t na, nb, nc;
    const uint8_t *ba = rip_cg_model_blob(a, &na), *bb = rip_cg_model_blob(b, &nb), *bc = rip_cg_model_blob(c, &nc);
    cr_expect(na == nb && memcmp(ba, bb, na) != 0, "seeds 1 and 2 drew the same blob");
    cr_expect(na == nc && memcmp(ba, bc, na) == 0, "seed 1 twice drew different blobs");
    rip_cg_model_free(a);
    rip_cg_model_free(b);
    rip_cg_model_free(c);
    rip_graph_free(&g);
}

/* ------------------------------------------------------ determinism */

Test(codegen, same_command_same_bytes)
{
    static const char *const files[] = {"model.c", "model_blob.S", "model.bin", "model.json"};
    generate("person-det", "rip", "pd1");
    generate("person-det", "rip", "pd2");
    for (size_t k = 0; k < 4; k++) {
        char a[400], b[400];
        snprintf(a, sizeof a, "%s/%s", tmp("pd1"), files[k]);
        snprintf(b, sizeof b, "%s/%s", tmp("pd2"), files[k]);
        cr_expect(same_file(a, b), "%s differs between two runs of the same command", files[k]);
    }
}

/* ------------------------------------------- the folder replaced whole */

static const char *const cg_files[] = {"model.c", "model_blob.S", "model.bin", "model.json"};

/* Do the four files of folders a and b hold the same bytes? */
static bool same_folder(const char *a, const char *b)
{
    bool same = true;
    for (size_t k = 0; k < 4; k++) {
        char x[400], y[400];
        snprintf(x, sizeof x, "%s/%s", a, cg_files[k]);
        snprintf(y, sizeof y, "%s/%s", b, cg_files[k]);
        same = same && exists(x) && exists(y) && same_file(x, y);
    }
    return same;
}

/* tmp(name), a copy that outlives the rotating buffers. */
static void path_of(const char *name, char *out, size_t n)
{
    snprintf(out, n, "%s", tmp(name));
}

/* What a regeneration killed by SIGTERM (r) leaves: dir holds exactly the
** four files of folder want (want NULL: dir does not exist), and parent,
** dir's folder, holds n_parent entries (dir or nothing: no temporary). */
static void expect_whole(const char *what, const run_result *r, const char *dir, const char *want, const char *parent,
                         int n_parent)
{
    cr_expect_eq(r->status, 128 + SIGTERM, "%s: ended by SIGTERM, got %d: %s", what, r->status, r->err);
    if (want) {
        cr_expect(same_folder(dir, want), "%s: %s is not the whole of one generation", what, dir);
        char first[256];
        cr_expect_eq(entries(dir, first, sizeof first), 4, "%s: %s holds more than the four files", what, dir);
    } else {
        cr_expect(!exists(dir), "%s: %s was made", what, dir);
    }
    char first[256];
    cr_expect_eq(entries(parent, first, sizeof first), n_parent, "%s: a temporary was left in %s (%s, ...)", what,
                 parent, first);
}

/*
** Issue 19, item 9: a SIGTERM during a regeneration left a new model.bin
** beside the old model.c and model.json, and temporaries.  The folder is
** replaced whole or not at all: ripsim-testhooks stops the command with
** SIGTERM once every file is written but none is in place (all old), and
** once the new folder is in place but the old one not yet removed (all
** new), with renameat2's exchange and with its two-rename fallback
** (RIPSIM_TEST_OUT_NO_EXCHANGE), over an existing folder and a new one.
** Seeds 1 and 2 give different weights, so old and new differ in every
** file but model_blob.S.
*/
Test(codegen, interrupted_regeneration_leaves_the_folder_whole)
{
    char a[400], b[400], parent[400], dir[450], cmd[1400];
    path_of("seed1", a, sizeof a);
    path_of("seed2", b, sizeof b);
    const char *g = graph_path("mcunet-in0");
    cr_assert_eq(RUN("codegen", g, "--plan", "base", "--seed", "1", "--out", a)->status, 0);
    cr_assert_eq(RUN("codegen", g, "--plan", "base", "--seed", "2", "--out", b)->status, 0);
    char x[450], y[450];
    snprintf(x, sizeof x, "%s/model.bin", a);
    snprintf(y, sizeof y, "%s/model.bin", b);
    cr_assert(!same_file(x, y), "the two seeds must give different weights");

    static const struct {
        const char *hook, *what;
        bool new_wins;
    } points[] = {
        {"RIPSIM_TEST_OUT_SIGTERM=staged", "every file written, none in place", false},
        {"RIPSIM_TEST_OUT_SIGTERM=renamed:1", "the new folder in place, the old not yet removed", true},
    };
    for (int exchange = 0; exchange < 2; exchange++)
        for (size_t i = 0; i < 2; i++)
            for (int existed = 0; existed < 2; existed++) {
                char what[200];
                snprintf(what, sizeof what, "%s (%s, %s folder)", points[i].what,
                         exchange ? "renameat2 exchange" : "two renames", existed ? "an existing" : "a new");
                char name[64];
                snprintf(name, sizeof name, "regen-%d-%zu-%d", exchange, i, existed);
                path_of(name, parent, sizeof parent);
                snprintf(dir, sizeof dir, "%s/in0", parent);
                cr_assert_eq(mkdir(parent, 0755), 0);
                if (existed) {
                    snprintf(cmd, sizeof cmd, "cp -p -r '%s' '%s'", a, dir);
                    cr_assert_eq(sh(cmd), 0);
                }
                const char *env[] = {points[i].hook, exchange ? NULL : "RIPSIM_TEST_OUT_NO_EXCHANGE=1", NULL};
                run_result *r = run_env_hooks(env, (const char *const[]){"codegen", g, "--plan", "base", "--seed", "2",
                                                                         "--out", dir, NULL});
                expect_whole(what, r, dir, points[i].new_wins ? b : existed ? a : NULL, parent,
                             points[i].new_wins || existed ? 1 : 0);
            }
}

/* tmp(name) made as a folder (path into parent), MCUNet-in0 base with
** seed 1 generated into parent/in0 (its path into dir) and, for
** comparison, into tmp(name-old) (into old). */
static void seed1_twice(const char *name, char *parent, char *dir, char *old, size_t n)
{
    char o[64];
    snprintf(o, sizeof o, "%s-old", name);
    path_of(name, parent, n);
    path_of(o, old, n);
    cr_assert_eq(mkdir(parent, 0755), 0);
    snprintf(dir, n, "%s/in0", parent);
    const char *g = graph_path("mcunet-in0");
    cr_assert_eq(RUN("codegen", g, "--plan", "base", "--seed", "1", "--out", dir)->status, 0);
    cr_assert_eq(RUN("codegen", g, "--plan", "base", "--seed", "1", "--out", old)->status, 0);
}

/* A regeneration keeps the folder's mode, replaces it whole (no file of
** the old left), and a failed one (--arena below the peak) leaves it as it
** was and nothing beside it. */
Test(codegen, regeneration_keeps_the_folder_mode_and_a_failure_keeps_the_folder)
{
    char parent[450], dir[450], old[450];
    seed1_twice("mode", parent, dir, old, sizeof dir);
    const char *g = graph_path("mcunet-in0");
    cr_assert_eq(chmod(dir, 0750), 0);
    run_result *r = RUN("codegen", g, "--plan", "base", "--seed", "1", "--out", dir, "--arena", "100");
    cr_expect_eq(r->status, 65, "an arena below the peak: %d %s", r->status, r->err);
    cr_expect(same_folder(dir, old), "a failed run changed the folder");
    char first[256];
    cr_expect_eq(entries(parent, first, sizeof first), 1, "a failed run left %s beside the folder", first);
    r = RUN("codegen", g, "--plan", "base", "--seed", "2", "--out", dir);
    cr_assert_eq(r->status, 0, "%s", r->err);
    struct stat st;
    cr_assert_eq(stat(dir, &st), 0);
    cr_expect_eq(st.st_mode & 07777, 0750, "the folder's mode: %o", (unsigned)(st.st_mode & 07777));
    cr_expect_eq(entries(parent, first, sizeof first), 1, "%s was left beside the folder", first);
    cr_expect_eq(entries(dir, first, sizeof first), 4);
}

/* The folder is replaced whole, so a file codegen did not write would be
** lost: such a folder is refused (73, one line naming the file) and left
** as it was. */
Test(codegen, a_folder_holding_other_files_is_refused)
{
    char parent[450], dir[450], note[500], old[450];
    seed1_twice("foreign", parent, dir, old, sizeof dir);
    const char *g = graph_path("mcunet-in0");
    snprintf(note, sizeof note, "%s/notes.txt", dir);
    FILE *f = fopen(note, "w");
    cr_assert_not_null(f);
    fputs("mine\n", f);
    cr_assert_eq(fclose(f), 0);
    run_result *r = RUN("codegen", g, "--plan", "base", "--seed", "2", "--out", dir);
    cr_expect_eq(r->status, 73, "%d %s", r->status, r->err);
    cr_expect_eq(count_lines(r->err), 1, "%s", r->err);
    cr_expect_not_null(strstr(r->err, "notes.txt"), "%s", r->err);
    cr_expect(same_folder(dir, old) && exists(note), "the refused folder was changed");
    char first[256];
    cr_expect_eq(entries(parent, first, sizeof first), 1, "%s was left beside the folder", first);
}

/* ----------------------------------------------------------- refusals */

static const char *write_graph(const char *name, const char *rows)
{
    static char path[400];
    snprintf(path, sizeof path, "%s", tmp(name));
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    fprintf(f, "op_id,op,inputs,h_in,w_in,c_in,h_out,w_out,c_out,k_h,k_w,s_h,s_w,p_top,p_left,p_bottom,p_right,"
               "d_h,d_w,dtype_bytes\n%s",
            rows);
    cr_assert_eq(fclose(f), 0);
    return path;
}

/* An op outside the eleven models' set: one line naming FILE, op id and op, exit 65, nothing written. */
Test(codegen, unsupported_ops_are_refused)
{
    static const struct {
        const char *rows, *what;
    } cases[] = {
        {"0,conv2d,-1,8,8,3,8,8,4,3,3,1,1,1,1,1,1,1,1,1\n1,relu,0,8,8,4,8,8,4,1,1,1,1,0,0,0,0,1,1,1\n",
         "op 1 (relu)"},
        {"0,conv2d,-1,8,8,3,8,8,4,3,3,1,1,1,1,1,1,1,1,1\n1,pointwise,0,8,8,4,8,8,4,1,1,1,1,0,0,0,0,1,1,1\n"
         "7,concat,0;1,8,8,4,8,8,8,1,1,1,1,0,0,0,0,1,1,1\n",
         "op 7 (concat)"},
        {"0,conv2d,-1,8,8,3,8,8,4,3,3,1,1,1,1,1,1,1,1,1\n1,add,0,8,8,4,8,8,4,1,1,1,1,0,0,0,0,1,1,1\n",
         "op 1 (add)"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char name[32];
        snprintf(name, sizeof name, "bad%zu.csv", i);
        const char *g = write_graph(name, cases[i].rows);
        char out[400];
        snprintf(out, sizeof out, "%s", tmp("bad-out"));
        run_result *r = RUN("codegen", g, "--plan", "base", "--out", out);
        cr_expect_eq(r->status, 65, "%s: exit %d: %s", cases[i].what, r->status, r->err);
        cr_expect_eq(count_lines(r->err), 1, "%s", r->err);
        cr_expect_not_null(strstr(r->err, g), "%s", r->err);
        cr_expect_not_null(strstr(r->err, cases[i].what), "%s", r->err);
        char path[450];
        snprintf(path, sizeof path, "%s/model.c", out);
        cr_expect(!exists(path));
    }
}

Test(codegen, command_line_errors)
{
    const char *g = graph_path("mcunet-in0");
    char out[400];
    snprintf(out, sizeof out, "%s", tmp("cli"));
    cr_expect_eq(RUN("codegen", g, "--out", out)->status, 64, "--plan is required");
    cr_expect_eq(RUN("codegen", g, "--plan", "base")->status, 64, "--out is required");
    cr_expect_eq(RUN("codegen", g, "--plan", "tiny", "--out", out)->status, 64);
    cr_expect_eq(RUN("codegen", g, "--plan", "rip", "--out", out, "--arena", "0")->status, 64);
    cr_expect_eq(RUN("codegen", tmp("missing.csv"), "--plan", "rip", "--out", out)->status, 66);
    run_result *r = RUN("codegen", g, "--plan", "rip", "--out", g);
    cr_expect_eq(r->status, 73, "--out naming a file: exit %d: %s", r->status, r->err);
    cr_expect_eq(RUN("codegen", "--help")->status, 0);
}

/* ------------------------------------------------------ runtime shifts */

/*
** A runtime shift (no MCUNet plan has one; the MILP may choose one
** elsewhere): a hand-made plan puts a convolution's output at its input's
** offset and shifts the input up by the gap before the op.  The plan passes
** the checker, the generated model moves the input (memmove) and still
** computes the reference logits bit for bit.
*/
Test(codegen, runtime_shift_runs_bit_exact)
{
    const char *gpath = write_graph("shift.csv", "0,conv2d,-1,8,8,4,8,8,8,3,3,1,1,1,1,1,1,1,1,1\n"
                                                 "1,fc,0,8,8,8,1,1,10,1,1,1,1,0,0,0,0,1,1,1\n");
    rip_graph g;
    rip_problem p;
    char err[RIP_ERR_LEN];
    cr_assert_eq(rip_graph_load(gpath, &g, err), RIP_OK, "%s", err);
    cr_assert_eq(rip_cg_check_graph(&g, gpath, err), RIP_OK, "%s", err);
    rip_graph_opts go = {.rip = true, .inplace_depthwise = true, .align = 4};
    cr_assert_eq(rip_problem_from_graph(&g, &go, &p, err), RIP_OK, "%s", err);
    long k = -1;
    for (size_t c = 0; c < p.n_cand; c++)
        if (p.cand[c].op == 0 && p.cand[c].kind == RIP_INPLACE_GAP && p.cand[c].has_layer)
            k = (long)c;
    cr_assert_geq(k, 0, "no RiP candidate for the convolution");
    const int64_t gap = p.cand[k].gap;
    cr_assert_gt(gap, 0);
    rip_plan *plan = rip_plan_new(&p, "by-hand");
    cr_assert_not_null(plan);
    plan->offset[0] = 0;   /* input */
    plan->offset[1] = 0;   /* conv output over it, the input shifted up by gap during op 0 */
    plan->offset[2] = 512; /* fc output beside the conv output */
    plan->in_place[k] = true;
    plan->shift[k] = true;
    plan->peak = rip_plan_peak(&p, plan);
    cr_assert_eq(plan->peak, gap + 256 > 522 ? gap + 256 : 522);
    cr_assert_eq(rip_plan_check(&p, plan, true, err), RIP_OK, "%s", err);

    char dir[400];
    snprintf(dir, sizeof dir, "%s", tmp("shift"));
    cr_assert_eq(mkdir(dir, 0777), 0);
    rip_cg_summary s;
    cr_assert_eq(rip_cg_write(&g, &p, plan, RIP_CG_RIP, 0, RIP_CG_SEED_DEFAULT, dir, &s, err), RIP_OK, "%s", err);
    cr_expect_eq(s.n_shifts, 1);
    cr_expect_eq(s.arena, plan->peak);
    char path[450], want[128];
    snprintf(path, sizeof path, "%s/model.c", dir);
    char *c = slurp(path, NULL);
    cr_assert_not_null(c);
    snprintf(want, sizeof want, "memmove(A(%lld), A(0), 256u)", (long long)gap);
    cr_expect_not_null(strstr(c, want), "no %s in the model", want);
    free(c);

    compile_kernels("k", "");
    cr_assert_eq(build_model("shift", "k", ""), 0, "the model does not compile (see %s/cc.log)", dir);
    host_run h;
    run_model("shift", &h);
    cr_expect_eq(h.status, 0);
    cr_expect_eq(h.n, 10, "shifted model: %lld logits", (long long)h.n);
    expect_reference_run(gpath, &h, "shifted model");
    rip_plan_free(plan);
    rip_problem_free(&p);
    rip_graph_free(&g);
}

/*
** A plan that places an in-place pair closer than its kernel allows is
** refused before any file is written (internal error), never turned into
** code that computes from overwritten input.
*/
Test(codegen, plans_too_tight_are_refused)
{
    const char *gpath = write_graph("tight.csv", "0,conv2d,-1,8,8,4,8,8,8,3,3,1,1,1,1,1,1,1,1,1\n"
                                                 "1,fc,0,8,8,8,1,1,10,1,1,1,1,0,0,0,0,1,1,1\n");
    rip_graph g;
    rip_problem p;
    char err[RIP_ERR_LEN];
    cr_assert_eq(rip_graph_load(gpath, &g, err), RIP_OK, "%s", err);
    rip_graph_opts go = {.rip = true, .inplace_depthwise = true, .align = 4};
    cr_assert_eq(rip_problem_from_graph(&g, &go, &p, err), RIP_OK, "%s", err);
    cr_assert_geq(p.n_cand, 1);
    cr_assert(p.cand[0].op == 0 && p.cand[0].kind == RIP_INPLACE_GAP);
    const int64_t gap = p.cand[0].gap;
    rip_plan *plan = rip_plan_new(&p, "by-hand");
    cr_assert_not_null(plan);
    plan->in_place[0] = true;
    plan->offset[1] = 0;         /* conv output */
    plan->offset[0] = gap - 4;   /* its input one alignment step too close */
    plan->offset[2] = rip_align_up(gap + 256 > 512 ? gap + 256 : 512, 4);
    plan->peak = rip_plan_peak(&p, plan);
    char dir[400];
    snprintf(dir, sizeof dir, "%s", tmp("tight"));
    cr_assert_eq(mkdir(dir, 0777), 0);
    rip_cg_summary s;
    cr_expect_eq(rip_cg_write(&g, &p, plan, RIP_CG_RIP, 0, RIP_CG_SEED_DEFAULT, dir, &s, err), RIP_S_INTERNAL);
    cr_expect_not_null(strstr(err, "fails its check"), "%s", err);
    char first[256];
    cr_expect_eq(entries(dir, first, sizeof first), 0, "a refused plan wrote %s", first);

    plan->offset[0] = gap;       /* at the gap: accepted */
    plan->peak = rip_plan_peak(&p, plan);
    cr_expect_eq(rip_cg_write(&g, &p, plan, RIP_CG_RIP, 0, RIP_CG_SEED_DEFAULT, dir, &s, err), RIP_OK, "%s", err);
    cr_expect_eq(s.n_inplace, 1);
    rip_plan_free(plan);
    rip_problem_free(&p);
    rip_graph_free(&g);
}

/* ------------------------------------- issue 19: in-place depthwise, scratch */

/* Generate graph gpath under plan into tmp(dir), build it with the host
** compiler, run it; the logits must be the dual-buffer reference run's.
** *arena receives model.json's arena_bytes. */
static void generate_build_run(const char *gpath, const char *plan, const char *dir, int64_t *arena)
{
    char out[400], path[450];
    snprintf(out, sizeof out, "%s", tmp(dir));
    cr_assert_eq(mkdir(out, 0777), 0, "%s", out);
    run_result *r = RUN("codegen", gpath, "--plan", plan, "--out", out);
    cr_assert_eq(r->status, 0, "codegen %s %s: exit %d: %s", gpath, plan, r->status, r->err);
    snprintf(path, sizeof path, "%s/model.json", out);
    char *json = slurp(path, NULL);
    cr_assert_not_null(json, "%s", path);
    *arena = json_int(json, "arena_bytes");
    free(json);
    cr_assert_eq(build_model(dir, "k", ""), 0, "%s does not compile under " CFLAGS " (see %s/cc.log)", dir, out);
    host_run h;
    run_model(dir, &h);
    cr_expect_eq(h.status, 0, "%s: rk_model_run returned %d", dir, h.status);
    expect_reference_run(gpath, &h, dir);
}

/*
** Item 4's graph, a depthwise whose 6x6x3 output (108 B) outgrows its
** 4x4x3 input (48 B): once planned at 108 B with the output over the input,
** which the kernel refuses (codegen exit 70).  Now both plans keep the two
** apart in 156 B, generate, compile and compute the reference logits.
*/
Test(codegen, depthwise_outgrowing_its_input_runs_dual_buffered)
{
    const char *gpath = write_graph("dw-grows.csv", "0,depthwise,-1,4,4,3,6,6,3,3,3,1,1,2,2,2,2,1,1,1\n");
    compile_kernels("k", "");
    for (int p = 0; p < 2; p++) {
        int64_t arena = 0;
        generate_build_run(gpath, p ? "rip" : "base", p ? "dw-grows-rip" : "dw-grows-base", &arena);
        cr_expect_eq(arena, 156, "%s: arena %lld", p ? "rip" : "base", (long long)arena);
    }
}

/*
** Item 12: graphs where no operator needs scratch (fc alone, upsampling
** alone, pools that run in dual buffers) once generated a model.c whose
** unused rk_scratch broke the firmware's -Werror.  Each compiles under the
** firmware's flags (host gcc, and arm-none-eabi-gcc for the Cortex-M0+ as
** firmware/meson.build builds it, when installed) and runs bit exact.
*/
Test(codegen, models_without_scratch_compile_under_the_firmware_flags)
{
    static const struct {
        const char *name, *rows;
    } cases[] = {
        {"fc", "0,fc,-1,2,2,3,1,1,5,1,1,1,1,0,0,0,0,1,1,1\n"},
        {"up", "0,upsample,-1,2,2,3,4,6,3,1,1,2,3,0,0,0,0,1,1,1\n"},
        {"pools", "0,maxpool,-1,4,4,3,2,2,3,2,2,2,2,0,0,0,0,1,1,1\n1,avgpool,0,2,2,3,1,1,3,2,2,1,1,0,0,0,0,1,1,1\n"},
        {"fc2", "0,fc,-1,1,1,4,1,1,3,1,1,1,1,0,0,0,0,1,1,1\n1,fc,-1,1,1,4,1,1,2,1,1,1,1,0,0,0,0,1,1,1\n"},
    };
    compile_kernels("k", "");
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char file[48];
        snprintf(file, sizeof file, "%s.csv", cases[i].name);
        const char *gpath = write_graph(file, cases[i].rows);
        for (int p = 0; p < 2; p++) {
            char dir[48];
            snprintf(dir, sizeof dir, "noscratch-%s-%s", cases[i].name, p ? "rip" : "base");
            int64_t arena = 0;
            generate_build_run(gpath, p ? "rip" : "base", dir, &arena);
            cr_expect_eq(cross_compile(dir), 0, "%s: arm-none-eabi-gcc refuses model.c (see %s/cross.log)", dir,
                         tmp(dir));
        }
    }
}
