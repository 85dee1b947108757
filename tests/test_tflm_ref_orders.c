/*
** test_tflm_ref_orders.c — the TFLM reference kernel orders
** (src/tflm/kernel_orders.c) verified against TFLM's own reference int8
** kernels (tensorflow/lite/kernels/internal/reference/integer_ops/), by
** korder_verify.h: the kernels are C++ headers, so tests/tflm/ref_orders.cc
** runs them, built here with g++ against the vendored tree before the tests
** (a PRE_ALL hook, into TFLM_REF_ORDERS_DIR) and driven over a pipe
** (korder_pipe.h): one job per run (korder_job.h: the layer, its values, the
** input and the gap), the output back.
** Without the tree the suite is replaced by tflm_missing.c (one skip line).
*/
#include "korder_verify.h"
#include "korder_pipe.h"

#define HARNESS_DIR "TFLM_REF_ORDERS_DIR"
#define HARNESS "tflm_ref_orders_harness"

/* Build the harness once, before any test, any older one removed first: g++ with the include paths
** TFLM's Makefile uses. */
ReportHook(PRE_ALL)(struct criterion_test_set *set)
{
    (void)set;
    const char *tflm = getenv("RIPSIM_TFLM_PATH"), *src = getenv("RIPSIM_SOURCE_ROOT"), *cxx = getenv("CXX");
    if (tflm == NULL || src == NULL || !kp_harness_path(HARNESS_DIR, HARNESS))
        return;
    unlink(kp_harness);
    char cmd[20000];
    const char *T = "tflite-micro";
    snprintf(cmd, sizeof cmd,
             "'%s' -std=c++17 -O2 -Wall -Wno-unused-parameter -fno-rtti -fno-exceptions -DTF_LITE_STATIC_MEMORY "
             "-I'%s/%s' -I'%s/%s/third_party/gemmlowp' -I'%s/%s/third_party/flatbuffers/include' "
             "-I'%s/%s/third_party/ruy' '%s/tests/tflm/ref_orders.cc' "
             "'%s/%s/tensorflow/lite/kernels/internal/common.cc' -o '%s.tmp' && mv '%s.tmp' '%s'",
             cxx ? cxx : "g++", tflm, T, tflm, T, tflm, T, tflm, T, src, tflm, T, kp_harness, kp_harness,
             kp_harness);
    kp_build(cmd);
}

static void init(void)
{
    kv_suite = "tflm_ref_orders";
    kv_lib = RIP_TFLM_REFERENCE;
    kv_run = kp_run;
    cr_assert(kp_harness_path(HARNESS_DIR, HARNESS), HARNESS_DIR " must name the harness's folder");
    char *const argv[] = { kp_harness, NULL };
    kp_start(argv);
}

static void fini(void)
{
    kp_stop();
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
