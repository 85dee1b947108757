/*
** test_cmsis_orders_m33.c — the CMSIS-NN kernel orders of the Cortex-M33
** build (src/tflm/kernel_orders.c: the ARM_MATH_DSP paths, and the orders
** both builds share) verified against CMSIS-NN compiled for that core, by
** korder_verify.h with kv_dsp set: the kernels run in QEMU's mps2-an505
** (tests/cmsis_m33/orders_m33.c, built by tests/cmsis_m33/build-orders-m33.sh
** in a PRE_ALL hook into CMSIS_M33_DIR), driven over a pipe to QEMU's
** semihosting stdin and stdout (korder_pipe.h): one job per run
** (korder_job.h), the output back.  The harness calls the kernels as the
** host cmsis_orders suite does (cmsis_kernels.h): only the build differs.
** Without arm-none-eabi-gcc, qemu-system-arm or the CMSIS-NN tree the suite
** is replaced by one skip line (tests/meson.build).
*/
#include "korder_verify.h"

#include "cmsis_copies.h"
#include "korder_pipe.h"

#define HARNESS_DIR "CMSIS_M33_DIR"
#define HARNESS "cmsis_orders_m33_harness.elf"

/* Build the image once, before any test (the script removes any older one first). */
ReportHook(PRE_ALL)(struct criterion_test_set *set)
{
    (void)set;
    const char *script = getenv("CMSIS_M33_BUILD"), *cmsis = getenv("RIPSIM_CMSIS_NN_PATH");
    const char *src = getenv("RIPSIM_SOURCE_ROOT");
    if (script == NULL || cmsis == NULL || src == NULL || !kp_harness_path(HARNESS_DIR, HARNESS))
        return;
    char cmd[14000];
    snprintf(cmd, sizeof cmd, "'%s' --cmsis '%s' --src '%s' --out '%s'", script, cmsis, src, kp_harness);
    kp_build(cmd);
}

static void init(void)
{
    kv_suite = "cmsis_orders_m33";
    kv_lib = RIP_TFLM_CMSIS_NN;
    kv_dsp = true;
    kv_run = kp_run;
    kv_undefined_at = copy_overlaps;
    cr_assert(kp_harness_path(HARNESS_DIR, HARNESS), HARNESS_DIR " must name the image's folder");
    const char *qemu = getenv("QEMU_SYSTEM_ARM");
    /* target=native without a chardev: the guest's ":tt" is QEMU's stdin and stdout (orders_m33.c). */
    char *const argv[] = { (char *)(qemu && *qemu ? qemu : "qemu-system-arm"), "-M", "mps2-an505",
                           "-display", "none", "-monitor", "none", "-serial", "none",
                           "-semihosting-config", "enable=on,target=native", "-kernel", kp_harness, NULL };
    kp_start(argv);
}

static void fini(void)
{
    kp_stop();
}

/* CMSIS-NN's DSP path is what the image runs: SMLAD (dual 16-bit multiply-accumulate) appears only
** in CMSIS-NN's ARM_MATH_DSP code (the im2col convolutions, the DSP depthwise and FC kernels). */
Test(cmsis_orders_m33, the_image_holds_the_dsp_path)
{
    cr_assert(kp_harness_path(HARNESS_DIR, HARNESS), HARNESS_DIR " must name the image's folder");
    cr_assert(access(kp_harness, R_OK) == 0, "the harness %s did not build (see the log)", kp_harness);
    char cmd[4400];
    snprintf(cmd, sizeof cmd, "arm-none-eabi-objdump -d '%s' | grep -c -w smlad", kp_harness);
    FILE *p = popen(cmd, "r");
    cr_assert_not_null(p);
    long n = 0;
    cr_expect_eq(fscanf(p, "%ld", &n), 1);
    pclose(p);
    cr_expect_gt(n, 0, "no SMLAD in %s", kp_harness);
}

Test(cmsis_orders_m33, random_layers_per_kernel, .init = init, .fini = fini, .timeout = 1800)
{
    kv_random_layers();
}

/* The real models: person_detect in the TFLM tree and every .tflite one level under the models folder. */
Test(cmsis_orders_m33, real_model_layers, .init = init, .fini = fini, .timeout = 3600)
{
    kv_real_models();
}
