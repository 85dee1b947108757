/*
** net_input.c — a model input from a file (rip_net_read_input, net.h): a
** BMP converted as TFLM's person-detection example converts its images
** (bmp.h), or the input's raw bytes (little-endian float32 for a float
** input, converted to the host's order); or float32 values for an int8
** input, quantized (rip_net_read_input_f32).
*/
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "bmp.h"
#include "net_internal.h"

static bool is_bmp_name(const char *path)
{
    size_t n = strlen(path);
    return n >= 4 && strcasecmp(path + n - 4, ".bmp") == 0;
}

/* The BMP at path into int8 input io of shape [1, H, W, C]. */
static rip_status read_bmp(const rip_net *net, const rip_net_io *io, const char *path, void *dst,
                           char err[RIP_ERR_LEN])
{
    const rip_tfl_tensor *t = net_tensor(net, io->tensor);
    if (io->type != RIP_TFL_INT8 || t->rank != 4 || t->shape[0] != 1) {
        snprintf(err, RIP_ERR_LEN, "%.300s: a BMP is an image for an int8 input of shape [1, H, W, C]; input "
                 "tensor %ld is not one", path, (long)io->tensor);
        return RIP_S_DATA;
    }
    rip_bmp img;
    char why[RIP_ERR_LEN];
    rip_status rc = rip_bmp_read(path, &img, err);
    if (rc == RIP_OK &&
        (rc = rip_bmp_to_tensor(&img, t->shape[1], t->shape[2], t->shape[3], dst, (size_t)io->bytes, why)) != RIP_OK)
        snprintf(err, RIP_ERR_LEN, "%.150s: %.350s", path, why);
    rip_bmp_free(&img);
    return rc;
}

/* The name of a model input's type (float32, int8 or uint8) in messages. */
static const char *io_type(int type)
{
    return type == RIP_TFL_FLOAT32 ? "float32" : type == RIP_TFL_UINT8 ? "uint8" : "int8";
}

/* Exactly io->bytes raw bytes from path; float32 from little-endian.  The
** tensor is named in an error as what it is: of type `real` (int8 given as
** float32 values) when real is not NULL. */
static rip_status read_raw(const rip_net_io *io, const char *path, const char *real, void *dst,
                           char err[RIP_ERR_LEN])
{
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        snprintf(err, RIP_ERR_LEN, "%.300s: cannot open: %s", path, strerror(errno));
        return RIP_S_NOINPUT;
    }
    uint8_t *b = dst;
    size_t got = fread(b, 1, (size_t)io->bytes, f);
    int extra = got == (size_t)io->bytes ? fgetc(f) : EOF;
    rip_status rc = RIP_OK;
    if (ferror(f)) {
        snprintf(err, RIP_ERR_LEN, "%.300s: read error: %s", path, strerror(errno));
        rc = RIP_S_IO;
    } else if (got != (size_t)io->bytes || extra != EOF) {
        char size[48];
        if (extra != EOF)
            snprintf(size, sizeof size, "more than %lld bytes", (long long)io->bytes);
        else
            snprintf(size, sizeof size, "%zu bytes", got);
        snprintf(err, RIP_ERR_LEN, "%.300s: %s, but the input tensor %ld (%s, %lld elements%s) takes exactly %lld",
                 path, size, (long)io->tensor, real ? real : io_type(io->type),
                 (long long)io->elements, real ? ", given as float32 values" : "", (long long)io->bytes);
        rc = RIP_S_DATA;
    }
    fclose(f);
    if (rc == RIP_OK && io->type == RIP_TFL_FLOAT32)
        for (int64_t i = 0; i < io->elements; i++) {
            uint32_t v = (uint32_t)b[4 * i] | (uint32_t)b[4 * i + 1] << 8 | (uint32_t)b[4 * i + 2] << 16 |
                         (uint32_t)b[4 * i + 3] << 24;
            memcpy(b + 4 * i, &v, 4);
        }
    return rc;
}

rip_status rip_net_read_input(const rip_net *net, size_t i, const char *path, void *dst, char err[RIP_ERR_LEN])
{
    const rip_net_io *io = &net->inputs[i];
    rip_status rc = is_bmp_name(path) ? read_bmp(net, io, path, dst, err) : read_raw(io, path, NULL, dst, err);
    if (rc != RIP_OK)
        rip_err_one_line(err);
    return rc;
}

rip_status rip_net_read_input_f32(const rip_net *net, size_t i, const char *path, void *dst, char err[RIP_ERR_LEN])
{
    const rip_net_io *io = &net->inputs[i];
    if (io->type == RIP_TFL_FLOAT32)
        return rip_net_read_input(net, i, path, dst, err);
    rip_net_io as_f32 = *io; /* the file's view: the same elements, as float32 */
    as_f32.type = RIP_TFL_FLOAT32;
    as_f32.bytes = 4 * io->elements;
    float *v = malloc((size_t)as_f32.bytes + 1);
    if (v == NULL) {
        snprintf(err, RIP_ERR_LEN, "out of memory");
        return RIP_S_NOMEM;
    }
    rip_status rc = read_raw(&as_f32, path, io_type(io->type), v, err);
    const rk_affine q = {.scale = net_scale(net, io->tensor), .zero_point = net_zero_point(net, io->tensor)};
    if (rc == RIP_OK && rk_quantize_f32(&q, (int32_t)io->elements, v, dst) != RK_OK) {
        snprintf(err, RIP_ERR_LEN, "%.300s: input tensor %ld: its scale or zero point cannot quantize", path,
                 (long)io->tensor);
        rc = RIP_S_DATA;
    }
    free(v);
    if (rc != RIP_OK)
        rip_err_one_line(err);
    return rc;
}
