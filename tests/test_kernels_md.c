/*
** test_kernels_md.c — the kernels_md suite: pins results/kernels.md (issue
** 24, item 5) and runs the random-layer bit-exact peer on the M33 image
** (item 3's peer in QEMU).  Both through tests/kcount/kcount.c (RIPSIM_KCOUNT,
** built by meson), which builds the harness tests/kcount/kcount_target.c
** for each core from the tree's kernels, runs it in QEMU and counts each
** kernel's instructions with firmware/tools/icount.c:
**   regenerated_equals_committed  the whole file regenerated (every layer:
**                    about a minute of QEMU; skipped without the models
**                    folder, meson option models_path) equals the committed
**                    results/kernels.md byte for byte, and every layer was
**                    bit-exact with CMSIS-NN (kcount's exit status);
**   random_layers    1,000 seeded random conv/depthwise/fc layers on the M33
**                    (CMSIS-NN's DSP path) and the M0 (its pure C), ripsim's
**                    dual-buffer and in-place kernels against CMSIS-NN, bit
**                    for bit.
** kcount's --every K --check FILE checks a subset's rows against the
** committed file instead, should the full run grow too slow for a test.
** Without arm-none-eabi-gcc, qemu-system-arm or the CMSIS-NN tree the suite
** is replaced by one skip line (tests/meson.build).
*/
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>

#include "skip.h"

/* Run kcount with the suite's paths and args; its exit status. */
static int kcount(const char *work_leaf, const char *args)
{
    const char *tool = getenv("RIPSIM_KCOUNT"), *src = getenv("RIPSIM_SOURCE_ROOT");
    const char *cmsis = getenv("RIPSIM_CMSIS_NN_PATH"), *work = getenv("RIPSIM_KCOUNT_WORK");
    cr_assert(tool && src && cmsis && work, "RIPSIM_KCOUNT, RIPSIM_SOURCE_ROOT, RIPSIM_CMSIS_NN_PATH and "
                                            "RIPSIM_KCOUNT_WORK must be set (tests/meson.build)");
    char cmd[20000];
    snprintf(cmd, sizeof cmd, "mkdir -p '%s' && '%s' --src '%s' --cmsis '%s' --work '%s/%s' %s", work, tool, src, cmsis,
             work, work_leaf, args);
    const int st = system(cmd);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* The first line where files a and b differ (1-based), 0 when they are equal. */
static long first_difference(const char *a, const char *b)
{
    FILE *x = fopen(a, "r"), *y = fopen(b, "r");
    cr_assert(x && y, "cannot read %s or %s", a, b);
    long line = 1, diff = 0;
    for (;;) {
        const int c = fgetc(x), d = fgetc(y);
        if (c != d) {
            diff = line;
            break;
        }
        if (c == EOF)
            break;
        line += c == '\n';
    }
    fclose(x);
    fclose(y);
    return diff;
}

Test(kernels_md, regenerated_equals_committed, .timeout = 900)
{
    const char *src = getenv("RIPSIM_SOURCE_ROOT"), *work = getenv("RIPSIM_KCOUNT_WORK");
    const char *models = getenv("RIPSIM_MODELS_PATH");
    cr_assert(src && work && models);
    DIR *d = opendir(models);
    if (d == NULL)
        rip_skip("no models folder at %s (meson option models_path): results/kernels.md holds the real models' "
                 "layers", models);
    closedir(d);
    char fresh[4200], committed[4200], args[13000];
    snprintf(fresh, sizeof fresh, "%s/kernels.md", work);
    snprintf(committed, sizeof committed, "%s/results/kernels.md", src);
    const char *tflm = getenv("RIPSIM_TFLM_PATH");
    char tflm_arg[4400] = "";
    if (tflm != NULL)
        snprintf(tflm_arg, sizeof tflm_arg, "--tflm '%s'", tflm);
    snprintf(args, sizeof args, "--timeout 600 --models '%s' %s --out '%s'", models, tflm_arg, fresh);
    cr_assert_eq(kcount("full", args), 0, "a layer was not bit-exact with CMSIS-NN or a kernel failed (the lines "
                                          "above name it)");
    const long line = first_difference(fresh, committed);
    cr_assert_eq(line, 0, "%s differs from %s from line %ld: regenerate it (meson compile -C build kernels-md)",
                 fresh, committed, line);
}

Test(kernels_md, random_layers, .timeout = 900)
{
    cr_assert_eq(kcount("random", "--timeout 600 --random 1000 --cores m0,m33"), 0,
                 "a random layer was not bit-exact with CMSIS-NN on the M33 (the lines above name it)");
}
