/*
** cg_blob.c — model.bin's buffer (cg_blob.h).
*/
#include "cg_blob.h"

#include <stdlib.h>
#include <string.h>

int64_t rip_cg_blob_add(rip_cg_blob *bl, const void *data, size_t n, size_t align)
{
    size_t at = (bl->len + align - 1) / align * align;
    if (!bl->b || at + n > bl->cap) {
        size_t cap = bl->cap ? bl->cap : 4096;
        while (cap < at + n)
            cap *= 2;
        uint8_t *b = realloc(bl->b, cap);
        if (!b)
            return -1;
        bl->b = b;
        bl->cap = cap;
    }
    if (at > bl->len) /* never memset(NULL, 0, 0): the first call has no buffer yet */
        memset(bl->b + bl->len, 0, at - bl->len);
    if (n)
        memcpy(bl->b + at, data, n);
    bl->len = at + n;
    return (int64_t)at;
}

/* Append the 32-bit word u little-endian; false when out of memory. */
static int add_le32(rip_cg_blob *bl, uint32_t u)
{
    const uint8_t b[4] = {(uint8_t)u, (uint8_t)(u >> 8), (uint8_t)(u >> 16), (uint8_t)(u >> 24)};
    return rip_cg_blob_add(bl, b, 4, 1) >= 0;
}

int64_t rip_cg_blob_add_i32(rip_cg_blob *bl, const int32_t *v, size_t n)
{
    int64_t at = rip_cg_blob_add(bl, NULL, 0, 4);
    for (size_t i = 0; i < n && at >= 0; i++)
        if (!add_le32(bl, (uint32_t)v[i]))
            return -1;
    return at;
}

int64_t rip_cg_blob_add_f32(rip_cg_blob *bl, const float *v, size_t n)
{
    int64_t at = rip_cg_blob_add(bl, NULL, 0, 4);
    for (size_t i = 0; i < n && at >= 0; i++) {
        uint32_t u;
        memcpy(&u, &v[i], 4);
        if (!add_le32(bl, u))
            return -1;
    }
    return at;
}

void rip_cg_blob_free(rip_cg_blob *bl)
{
    free(bl->b);
    memset(bl, 0, sizeof *bl);
}
