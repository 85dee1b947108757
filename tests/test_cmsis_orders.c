/*
** test_cmsis_orders.c — the CMSIS-NN kernel orders (src/tflm/kernel_orders.c)
** verified against the vendored CMSIS-NN kernels themselves (issue 21,
** item 2), host build (pure C, the path this suite compiles), by
** korder_verify.h: each kernel TFLM's cmsis_nn wrappers reach is run here
** (cmsis_kernels.h), in process, on overlapping buffers at the simulated
** gap and one below.
*/
#include "korder_verify.h"

#include "cmsis_copies.h"
#include "cmsis_kernels.h"

/* The runner of korder_verify.h: l's CMSIS-NN kernel (the one TFLM's wrapper calls) on two buffers
** or on one overlapped buffer (cmsis_kernels.h's ck_run_job). */
static void run_cmsis(const struct layer *l, const int8_t *in, int64_t n_in, int64_t d, int8_t *out, int64_t n_out)
{
    const rip_kgeom *g = &l->ctx.g;
    int64_t h[KJ_FIELDS];
    kv_job_header(l, d, h);
    cr_assert(kj_n_in(h) == n_in && kj_n_out(h) == n_out);
    const ck_values v = { .filter = l->filter, .other = l->other, .bias = l->bias, .mult = l->mult, .shift = l->shift };
    int32_t size = 0;
    const int st = ck_run_job(h, &v, in, out, &size);
    cr_assert_eq(st, ARM_CMSIS_NN_SUCCESS, "%s refused the layer (status %d, %lldx%lldx%lld -> %lldx%lldx%lld, "
                 "k %lldx%lld, groups %lld, M %lld, buffer %d)",
                 rip_korder_name(l->ctx.order), (int)st, (long long)g->h_in, (long long)g->w_in, (long long)g->c_in,
                 (long long)g->h_out, (long long)g->w_out, (long long)g->c_out, (long long)g->k_h, (long long)g->k_w,
                 (long long)g->groups, (long long)g->depth_mult, (int)size);
}

static void init(void)
{
    kv_suite = "cmsis_orders";
    kv_lib = RIP_TFLM_CMSIS_NN;
    kv_run = run_cmsis;
    kv_undefined_at = copy_overlaps;
}

Test(cmsis_orders, random_layers_per_kernel, .init = init, .timeout = 900)
{
    kv_random_layers();
}

/* The real models: person_detect in the TFLM tree and every .tflite one level under the models folder. */
Test(cmsis_orders, real_model_layers, .init = init, .timeout = 1800)
{
    kv_real_models();
}
