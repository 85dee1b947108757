/*
** fuzz_layer_csv.c — libFuzzer harness of the layer CSV reader
** (src/io/layer_csv.c, `ripsim layers FILE.csv`).
**
** Input: the bytes of a CSV file, read through the public entry point from
** a tmpfs file (fuzz_file.h), once stopping at the first bad row and once
** with --skip-bad.  Checks: a failed read gives a one-line message and an
** empty table; the two modes agree (a strict read that succeeds reads the
** same rows as --skip-bad, which then skips none); every accepted row is a
** derived layer on which the closed forms (row and column order) evaluate
** without undefined behaviour (kernels up to FUZZ_FORMULA_MAX_K taps, see
** fuzz_limits.h).
*/
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "evaluate.h"
#include "fuzz_file.h"
#include "fuzz_limits.h"
#include "layer_csv.h"

static void fail(const char *what, const char *err)
{
    fprintf(stderr, "fuzz_layer_csv: %s (%s)\n", what, err);
    abort();
}

static int read_table(const char *path, int skip_bad, FILE *bad, rip_layer_table *t, char err[RIP_ERR_LEN])
{
    FILE *f = fopen(path, "r");
    if (!f)
        fail("cannot reopen the scratch file", path);
    int rc = rip_layer_csv_read(f, "fuzz.csv", skip_bad, bad, t, err);
    fclose(f);
    if (rc != 0 && (err[0] == '\0' || strchr(err, '\n') || t->n != 0 || t->rows != NULL))
        fail("a failed read must leave one line and an empty table", err);
    return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static FILE *devnull;
    if (!devnull && !(devnull = fopen("/dev/null", "w")))
        fail("cannot open /dev/null", "");
    const char *path = fuzz_write_file(data, size, "layers.csv");

    rip_layer_table strict = {0}, lax = {0};
    char err[RIP_ERR_LEN] = "";
    int rc_strict = read_table(path, 0, NULL, &strict, err);
    int rc_lax = read_table(path, 1, devnull, &lax, err);
    if (rc_strict == 0 && (rc_lax != 0 || lax.n != strict.n || lax.n_bad != 0))
        fail("a file read without error reads differently with --skip-bad", err);

    rip_eval ev;
    for (size_t i = 0; i < lax.n; i++) {
        const rip_csv_layer *r = &lax.rows[i];
        if (r->groups < 1 || r->L.h_out < 1 || r->L.w_out < 1 || memchr(r->name, '\0', sizeof r->name) == NULL)
            fail("an accepted row is not a derived layer", r->name);
        if (!fuzz_kernel_ok(r->L.k_h, r->L.k_w))
            continue;
        rip_layer T = rip_layer_transpose(&r->L);
        rip_evaluate(&r->L, RIP_ENGINE_FAST, false, &ev, err);
        rip_evaluate(&T, RIP_ENGINE_FAST, false, &ev, err);
    }
    rip_layer_table_free(&strict);
    rip_layer_table_free(&lax);
    return 0;
}
