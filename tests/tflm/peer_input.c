/*
** peer_input.c — makes the input files of the TFLite Micro peer's cases
** (tests/tflm/cases.tsv, README.md there) from the models' published sample
** inputs, or deterministically where a model has none.  Built and run by
** tests/tflm/build-peer.sh; the files it writes are then given to tflm_peer
** (--input or --input-f32), which writes the input tensor's final bytes.
**
** usage:
**   peer_input carray i8|u8-128|f32 SRC.cc OUT [COUNT]
**       the numbers of the first array initializer in a C/C++ source (the
**       first inner { } of a two-dimensional array: its first sample):
**       i8 = int8 values as bytes; u8-128 = uint8 values minus 128 as int8
**       bytes (MLPerf Tiny's image-classification harness); f32 = float32
**       little-endian.  With COUNT, an initializer of fewer values is
**       padded with zeros to COUNT elements, as C fills a short initializer
**       (MLPerf Tiny's vww_inputs.cc holds 9216 values per 27648-element
**       sample); more than COUNT is an error
**   peer_input head SRC N OUT          the first N bytes of SRC
**   peer_input seeded-i8 N SEED OUT    N int8 bytes of splitmix64(SEED)
**   peer_input seeded-f32 N SEED LO HI OUT
**       N float32 values uniform in [LO, HI) from splitmix64(SEED), each
**       LO + (HI - LO) * k / 2^24 for a 24-bit draw k (exact in float)
**   peer_input f32 OUT VALUE...        the given values as float32
** Exit: 0, 64 usage, 65 bad data, 66 cannot read, 73 cannot write.
*/
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../splitmix.h"

enum { EX_USAGE_ = 64, EX_DATA_ = 65, EX_NOINPUT_ = 66, EX_CANTCREAT_ = 73 };

/* Print "peer_input: MSG" and return status. */
static int fail(int status, const char *what, const char *detail)
{
    fprintf(stderr, "peer_input: %s%s%s\n", what, detail ? ": " : "", detail ? detail : "");
    return status;
}

/* The whole file at path, NUL-terminated, in *out (*len bytes); 0 or an exit status. */
static int slurp(const char *path, char **out, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return fail(EX_NOINPUT_, path, "cannot open");
    size_t cap = 1 << 16, n = 0, k;
    char *buf = malloc(cap + 1);
    int bad = buf == NULL;
    while (!bad && (k = fread(buf + n, 1, cap - n, f)) > 0) {
        n += k;
        if (n == cap) {
            char *nb = realloc(buf, 2 * cap + 1);
            bad = nb == NULL;
            if (nb != NULL) {
                buf = nb;
                cap *= 2;
            }
        }
    }
    bad = bad || ferror(f);
    fclose(f);
    if (bad) {
        free(buf);
        return fail(EX_NOINPUT_, path, "read error or out of memory");
    }
    buf[n] = '\0';
    *out = buf;
    *len = n;
    return 0;
}

/* Write n bytes to path; 0 or an exit status. */
static int spill(const char *path, const void *data, size_t n)
{
    FILE *f = fopen(path, "wb");
    if (f == NULL)
        return fail(EX_CANTCREAT_, path, strerror(errno));
    int ok = fwrite(data, 1, n, f) == n;
    ok = fclose(f) == 0 && ok;
    return ok ? 0 : fail(EX_CANTCREAT_, path, "write error");
}

/* A whole number in [lo, hi]. */
static int whole(const char *s, long long lo, long long hi, long long *v)
{
    char *end;
    errno = 0;
    long long x = strtoll(s, &end, 10);
    if (errno || end == s || *end || x < lo || x > hi)
        return 0;
    *v = x;
    return 1;
}

/* A float (strtof, all of s). */
static int real(const char *s, float *v)
{
    char *end;
    errno = 0;
    *v = strtof(s, &end);
    return !errno && end != s && *end == '\0';
}

/* Bytes of the first array initializer of src (see the usage above). */
static int carray(const char *type, const char *src, const char *out, long long count)
{
    char *text;
    size_t len;
    int rc = slurp(src, &text, &len);
    if (rc)
        return rc;
    int is_f32 = !strcmp(type, "f32"), is_u8 = !strcmp(type, "u8-128");
    size_t width = is_f32 ? 4 : 1;
    size_t cap = 4 * len + 4 > width * (size_t)count ? 4 * len + 4 : width * (size_t)count;
    unsigned char *bytes = calloc(cap, 1);
    size_t n = 0;
    /* The first "= {" ... then into the innermost brace. */
    char *p = text;
    while ((p = strchr(p, '=')) != NULL) {
        p += 1 + strspn(p + 1, " \t\r\n");
        if (*p == '{')
            break;
    }
    if (p == NULL || bytes == NULL) {
        rc = fail(EX_DATA_, src, bytes ? "no array initializer (= {)" : "out of memory");
        goto done;
    }
    while (*p != '\0' && (*p == '{' || strchr(" \t\r\n", *p) != NULL))
        p++;
    while (*p && *p != '}') {
        char *end;
        if (is_f32) {
            float v = strtof(p, &end);
            if (end == p)
                break;
            memcpy(bytes + n, &v, 4);   /* the host is little-endian (x86, arm) */
            n += 4;
        } else {
            errno = 0;
            long v = strtol(p, &end, (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) ||
                                         (p[0] == '-' && p[1] == '0' && (p[2] == 'x' || p[2] == 'X'))
                                         ? 16 : 10);
            if (end == p)
                break;
            long lo = is_u8 ? 0 : -128, hi = is_u8 ? 255 : 127;
            if (errno || v < lo || v > hi) {
                rc = fail(EX_DATA_, src, "a value outside the element type's range");
                goto done;
            }
            bytes[n++] = (unsigned char)(is_u8 ? v - 128 : v);
        }
        p = end;
        if (*p == 'f' || *p == 'F')
            p++;
        p += strspn(p, " \t\r\n");
        if (*p == ',')
            p++;
        p += strspn(p, " \t\r\n");
    }
    if (*p != '}' || n == 0) {
        rc = fail(EX_DATA_, src, "the first initializer is not a list of numbers");
        goto done;
    }
    if (count > 0 && n > width * (size_t)count) {
        rc = fail(EX_DATA_, src, "the first initializer has more values than COUNT");
        goto done;
    }
    if (count > 0)
        n = width * (size_t)count;   /* calloc'd: the padding is zeros (0.0f is all zero bits) */
    rc = spill(out, bytes, n);
done:
    free(bytes);
    free(text);
    return rc;
}

int main(int argc, char **argv)
{
    const char *cmd = argc > 1 ? argv[1] : "";
    long long n, seed;
    if (!strcmp(cmd, "carray") && (argc == 5 || (argc == 6 && whole(argv[5], 1, 1LL << 28, &n))) &&
        (!strcmp(argv[2], "i8") || !strcmp(argv[2], "u8-128") || !strcmp(argv[2], "f32")))
        return carray(argv[2], argv[3], argv[4], argc == 6 ? n : 0);
    if (!strcmp(cmd, "head") && argc == 5 && whole(argv[3], 1, 1LL << 30, &n)) {
        char *text;
        size_t len;
        int rc = slurp(argv[2], &text, &len);
        if (rc)
            return rc;
        rc = len < (size_t)n ? fail(EX_DATA_, argv[2], "shorter than the bytes asked for")
                             : spill(argv[4], text, (size_t)n);
        free(text);
        return rc;
    }
    if (!strcmp(cmd, "seeded-i8") && argc == 5 && whole(argv[2], 1, 1LL << 30, &n) &&
        whole(argv[3], 0, INT64_MAX, &seed)) {
        unsigned char *b = malloc((size_t)n);
        if (b == NULL)
            return fail(EX_DATA_, "out of memory", NULL);
        rng_state = (uint64_t)seed;
        for (long long i = 0; i < n; i++)
            b[i] = (unsigned char)(rng_next() >> 56);
        int rc = spill(argv[4], b, (size_t)n);
        free(b);
        return rc;
    }
    float lo, hi;
    if (!strcmp(cmd, "seeded-f32") && argc == 7 && whole(argv[2], 1, 1LL << 28, &n) &&
        whole(argv[3], 0, INT64_MAX, &seed) && real(argv[4], &lo) && real(argv[5], &hi) && lo < hi) {
        float *v = malloc((size_t)n * sizeof *v);
        if (v == NULL)
            return fail(EX_DATA_, "out of memory", NULL);
        rng_state = (uint64_t)seed;
        for (long long i = 0; i < n; i++)
            v[i] = lo + (hi - lo) * (float)(rng_next() >> 40) / 16777216.0f;
        int rc = spill(argv[6], v, (size_t)n * sizeof *v);
        free(v);
        return rc;
    }
    if (!strcmp(cmd, "f32") && argc >= 4) {
        float v[64];
        int k = argc - 3;
        if (k > 64)
            return fail(EX_USAGE_, "at most 64 values", NULL);
        for (int i = 0; i < k; i++)
            if (!real(argv[3 + i], &v[i]))
                return fail(EX_USAGE_, "not a number", argv[3 + i]);
        return spill(argv[2], v, (size_t)k * sizeof v[0]);
    }
    return fail(EX_USAGE_,
                "usage: peer_input carray i8|u8-128|f32 SRC.cc OUT [COUNT] | head SRC N OUT | "
                "seeded-i8 N SEED OUT | seeded-f32 N SEED LO HI OUT | f32 OUT VALUE...",
                NULL);
}
