/*
** test_tflm_ref_orders.c — the TFLM reference kernel orders
** (src/tflm/kernel_orders.c) verified against TFLM's own reference int8
** kernels (tensorflow/lite/kernels/internal/reference/integer_ops/), by
** korder_verify.h: the kernels are C++ headers, so tests/tflm/ref_orders.cc
** runs them, built here with g++ against the vendored tree before the tests
** (a PRE_ALL hook, into TFLM_REF_ORDERS_DIR) and driven over a pipe: one job
** per run (the layer, its values, the input and the gap), the output back.
** Without the tree the suite is replaced by tflm_missing.c (one skip line).
*/
#include <errno.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "korder_verify.h"

/* The job header's fields, in tests/tflm/ref_orders.cc's order. */
enum {
    F_KIND, F_BATCHES, F_H_IN, F_W_IN, F_C_IN, F_H_OUT, F_W_OUT, F_C_OUT, F_K_H, F_K_W, F_S_H, F_S_W, F_D_H,
    F_D_W, F_PAD_TOP, F_PAD_LEFT, F_DEPTH_MULT, F_N_ELEM, F_IN_OFF, F_OUT_OFF, F_OPERAND, F_GAP, F_N_FILTER,
    F_N_CH, F_PER_CHANNEL, F_GROUPS, F_B_OUT, F_PAD_N, F_PAD_C, F_FIELDS
};

static char harness[4300];          /* the built harness */
static FILE *to_harness, *from_harness;
static pid_t harness_pid = -1;

/* The harness's path (TFLM_REF_ORDERS_DIR); false when the environment does not say. */
static bool harness_path(void)
{
    const char *dir = getenv("TFLM_REF_ORDERS_DIR");
    if (dir == NULL)
        return false;
    snprintf(harness, sizeof harness, "%s/tflm_ref_orders_harness", dir);
    return true;
}

/* Build the harness once, before any test (the tests run in other processes: they find it by its
** path), any older one removed first: g++ with the include paths TFLM's Makefile uses. */
ReportHook(PRE_ALL)(struct criterion_test_set *set)
{
    (void)set;
    const char *tflm = getenv("RIPSIM_TFLM_PATH"), *src = getenv("RIPSIM_SOURCE_ROOT"), *cxx = getenv("CXX");
    if (tflm == NULL || src == NULL || !harness_path())
        return;
    unlink(harness);
    char cmd[20000];
    const char *T = "tflite-micro";
    snprintf(cmd, sizeof cmd,
             "'%s' -std=c++17 -O2 -Wall -Wno-unused-parameter -fno-rtti -fno-exceptions -DTF_LITE_STATIC_MEMORY "
             "-I'%s/%s' -I'%s/%s/third_party/gemmlowp' -I'%s/%s/third_party/flatbuffers/include' "
             "-I'%s/%s/third_party/ruy' '%s/tests/tflm/ref_orders.cc' "
             "'%s/%s/tensorflow/lite/kernels/internal/common.cc' -o '%s.tmp' && mv '%s.tmp' '%s'",
             cxx ? cxx : "g++", tflm, T, tflm, T, tflm, T, tflm, T, src, tflm, T, harness, harness, harness);
    if (system(cmd) != 0)
        unlink(harness);
}

static void harness_stop(void)
{
    if (to_harness)
        fclose(to_harness);
    if (from_harness)
        fclose(from_harness);
    to_harness = from_harness = NULL;
    if (harness_pid > 0) {
        int st;
        while (waitpid(harness_pid, &st, 0) < 0 && errno == EINTR) {
        }
    }
    harness_pid = -1;
}

/* Start the harness with a pipe each way. */
static void harness_start(void)
{
    cr_assert(harness_path() && access(harness, X_OK) == 0,
              "tflm_ref_orders: the harness %s did not build (see the log)", harness);
    int down[2], up[2];
    cr_assert_eq(pipe(down), 0);
    cr_assert_eq(pipe(up), 0);
    harness_pid = fork();
    cr_assert_geq(harness_pid, 0);
    if (harness_pid == 0) {
        dup2(down[0], 0);
        dup2(up[1], 1);
        close(down[0]);
        close(down[1]);
        close(up[0]);
        close(up[1]);
        execl(harness, harness, (char *)NULL);
        _exit(127);
    }
    close(down[0]);
    close(up[1]);
    to_harness = fdopen(down[1], "wb");
    from_harness = fdopen(up[0], "rb");
    cr_assert(to_harness && from_harness);
    signal(SIGPIPE, SIG_IGN);
}

static void put(const void *p, size_t n)
{
    cr_assert_eq(fwrite(p, 1, n, to_harness), n, "tflm_ref_orders: the harness stopped reading");
}

/* The runner of korder_verify.h: one job to the harness, its output back. */
static void run_ref(const struct layer *l, const int8_t *in, int64_t n_in, int64_t d, int8_t *out, int64_t n_out)
{
    const rip_kgeom *g = &l->ctx.g;
    const int64_t h[F_FIELDS] = {
        [F_KIND] = l->kind, [F_BATCHES] = g->batches, [F_H_IN] = g->h_in, [F_W_IN] = g->w_in, [F_C_IN] = g->c_in,
        [F_H_OUT] = g->h_out, [F_W_OUT] = g->w_out, [F_C_OUT] = g->c_out, [F_K_H] = g->k_h, [F_K_W] = g->k_w,
        [F_S_H] = g->s_h, [F_S_W] = g->s_w, [F_D_H] = g->d_h, [F_D_W] = g->d_w, [F_PAD_TOP] = g->pad_top,
        [F_PAD_LEFT] = g->pad_left, [F_DEPTH_MULT] = g->depth_mult, [F_N_ELEM] = g->n_elem,
        [F_IN_OFF] = l->in_off, [F_OUT_OFF] = l->out_off, [F_OPERAND] = l->k, [F_GAP] = d,
        [F_N_FILTER] = l->n_filter, [F_N_CH] = l->n_ch, [F_PER_CHANNEL] = l->per_channel,
        [F_GROUPS] = g->groups < 1 ? 1 : g->groups, [F_B_OUT] = g->batches_out, [F_PAD_N] = g->pad_batch,
        [F_PAD_C] = g->pad_depth,
    };
    put(h, sizeof h);
    put(l->filter, (size_t)l->n_filter);
    put(l->bias, 4 * (size_t)l->n_ch);
    put(l->mult, 4 * (size_t)l->n_ch);
    put(l->shift, 4 * (size_t)l->n_ch);
    put(in, (size_t)n_in);
    if (l->kind == KV_ADD)
        put(l->other, (size_t)g->n_elem);
    cr_assert_eq(fflush(to_harness), 0);
    cr_assert_eq(fread(out, 1, (size_t)n_out, from_harness), (size_t)n_out,
                 "tflm_ref_orders: the harness gave no answer (%s)", rip_korder_name(l->ctx.order));
}

static void init(void)
{
    kv_suite = "tflm_ref_orders";
    kv_lib = RIP_TFLM_REFERENCE;
    kv_run = run_ref;
    harness_start();
}

static void fini(void)
{
    harness_stop();
}

Test(tflm_ref_orders, random_layers_per_kernel, .init = init, .fini = fini, .timeout = 1800)
{
    kv_random_layers();
}

/* The real models: person_detect in the TFLM tree and every .tflite one level under the models folder. */
Test(tflm_ref_orders, real_model_layers, .init = init, .fini = fini, .timeout = 3600)
{
    kv_real_models();
}
