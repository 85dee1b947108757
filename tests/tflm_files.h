/*
** tflm_files.h — the files the TFLite Micro plan suites read (tests/
** test_tflm_offline.c, tests/test_tflm_write.c): the hand-written models
** of tests/data/tflite, the vendor models (RIPSIM_TFLM_PATH,
** RIPSIM_MODELS_PATH; NULL when absent) and whole-file reads and writes.
** Header-only; include after tmpdir.h.
*/
#ifndef RIPSIM_TEST_TFLM_FILES_H
#define RIPSIM_TEST_TFLM_FILES_H

#include <criterion/criterion.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "file_text.h"
#include "skip.h"
#include "tflite/tfl_model.h"

/* tests/data/tflite/NAME.tflite */
static const char *data_path(const char *name)
{
    static char path[PATH_MAX];
    const char *res = getenv("RIPSIM_RESULTS_DIR");
    snprintf(path, sizeof path, "%.900s/../tests/data/tflite/%s.tflite", res ? res : ".", name);
    return path;
}

/* The bytes of path (file_text.h), as the model reader takes them. */
static uint8_t *slurp(const char *path, size_t *len)
{
    return (uint8_t *)ft_slurp(path, len);
}

static void spill(const char *path, const uint8_t *b, size_t len)
{
    FILE *f = fopen(path, "wb");
    cr_assert_not_null(f);
    cr_assert_eq(fwrite(b, 1, len, f), len);
    cr_assert_eq(fclose(f), 0);
}

/* $ENV/rel when that file exists (in buf), else NULL. */
static const char *vendor_file(const char *env, const char *rel, char *buf, size_t len)
{
    const char *root = getenv(env);
    snprintf(buf, len, "%.900s/%s", root ? root : "", rel);
    FILE *f = root ? fopen(buf, "rb") : NULL;
    if (!f)
        return NULL;
    fclose(f);
    return buf;
}

/* person_detect.tflite of the TFLM tree, or NULL */
static const char *person_detect(void)
{
    static char path[PATH_MAX];
    return vendor_file("RIPSIM_TFLM_PATH", "tflite-micro/tensorflow/lite/micro/models/person_detect.tflite", path,
                       sizeof path);
}

/* person_detect_vela.tflite of the vendor models, or NULL */
static const char *vela_model(void)
{
    static char path[PATH_MAX];
    return vendor_file("RIPSIM_MODELS_PATH", "tflite-micro/person_detect_vela.tflite", path, sizeof path);
}

/* Skip the test, with one line, unless x. */
#define NEED(x, what)                                                                         \
    do {                                                                                      \
        if (!(x)) {                                                                           \
            printf("tflm_offline: skipped: %s\n", what);                                      \
            rip_skip("%s", what);                                                         \
        }                                                                                     \
    } while (0)

/* Load a model the test needs (asserts it loads). */
static void load(const char *path, rip_tfl_model *m)
{
    char err[RIP_ERR_LEN];
    cr_assert_eq(rip_tfl_model_load(path, m, err), RIP_OK, "%s", err);
}

#endif
