/*
** bmp.c — the BMP reader (formats and TFLM's conversion in bmp.h).
**
** The whole file is in memory: the images a model takes are a few hundred
** KB at most.  Every offset read from the file is checked against its
** length before it is used, in 64-bit arithmetic, so a damaged header is
** an error and never a read outside the buffer.
*/
#include "bmp.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FILE_HEADER 14u

static uint32_t le16(const uint8_t *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8; }
static uint32_t le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Write "NAME: " + the formatted text into err; returns RIP_S_DATA. */
static rip_status bad(char err[RIP_ERR_LEN], const char *name, const char *what)
{
    snprintf(err, RIP_ERR_LEN, "%.300s: %s", name, what);
    rip_err_one_line(err);
    return RIP_S_DATA;
}

/* The header fields this reader needs, checked against the file length. */
typedef struct bmp_layout {
    uint64_t pixel_off;      /* start of the pixel rows */
    int32_t width, height;   /* height > 0; top_down says the row order */
    int top_down;
    unsigned bpp;            /* 8 or 24 */
    uint8_t gray[256];       /* 8 bpp: palette entry -> gray value */
    uint32_t colors;         /* 8 bpp: palette entries */
    uint64_t stride;         /* bytes per stored row (padded to 4) */
} bmp_layout;

/* Parse and check the headers (and the palette) of data[0..len). */
static rip_status parse_layout(const uint8_t *data, size_t len, const char *name, bmp_layout *L,
                               char err[RIP_ERR_LEN])
{
    char msg[200];
    memset(L, 0, sizeof *L);
    if (len < FILE_HEADER + 40u || data[0] != 'B' || data[1] != 'M')
        return bad(err, name, "not a BMP file (no 'BM' header)");
    uint32_t info = le32(data + 14);
    if (info != 40u && info != 108u && info != 124u) {
        snprintf(msg, sizeof msg, "unsupported BMP info header of %u bytes (40, 108 or 124 are read)",
                 (unsigned)info);
        return bad(err, name, msg);
    }
    if ((uint64_t)FILE_HEADER + info > len)
        return bad(err, name, "truncated BMP header");
    int32_t w = (int32_t)le32(data + 18), h = (int32_t)le32(data + 22);
    uint32_t planes = le16(data + 26), bpp = le16(data + 28), comp = le32(data + 30);
    uint32_t used = le32(data + 46);
    if (planes != 1u)
        return bad(err, name, "BMP with more than one plane");
    if (comp != 0u)
        return bad(err, name, "compressed BMP (only uncompressed BI_RGB is read)");
    if (bpp != 8u && bpp != 24u) {
        snprintf(msg, sizeof msg, "BMP of %u bits per pixel (8-bit gray and 24-bit colour are read)",
                 (unsigned)bpp);
        return bad(err, name, msg);
    }
    if (w <= 0 || h == 0 || h == INT32_MIN)
        return bad(err, name, "BMP with no pixels (width or height 0)");
    L->width = w;
    L->top_down = h < 0;
    L->height = h < 0 ? -h : h;
    L->bpp = bpp;
    L->stride = ((uint64_t)w * bpp / 8u + 3u) / 4u * 4u;
    L->pixel_off = le32(data + 10);
    if (L->pixel_off > len || (len - L->pixel_off) / L->stride < (uint64_t)L->height)
        return bad(err, name, "truncated BMP (fewer pixel rows than its height)");
    if (bpp == 8u) {
        L->colors = used == 0u ? 256u : used;
        if (L->colors > 256u)
            return bad(err, name, "BMP palette of more than 256 colours");
        uint64_t pal = (uint64_t)FILE_HEADER + info;
        if (pal + 4u * L->colors > L->pixel_off)
            return bad(err, name, "truncated BMP palette");
        for (uint32_t i = 0; i < L->colors; i++) {
            const uint8_t *e = data + pal + 4u * i;   /* B, G, R, reserved */
            if (e[0] != e[1] || e[1] != e[2]) {
                snprintf(msg, sizeof msg,
                         "8-bit BMP whose palette is not gray (entry %u is R %u G %u B %u)",
                         (unsigned)i, (unsigned)e[2], (unsigned)e[1], (unsigned)e[0]);
                return bad(err, name, msg);
            }
            L->gray[i] = e[0];
        }
    }
    return RIP_OK;
}

rip_status rip_bmp_decode(const uint8_t *data, size_t len, const char *name, rip_bmp *img,
                          char err[RIP_ERR_LEN])
{
    bmp_layout L;
    memset(img, 0, sizeof *img);
    rip_status st = parse_layout(data, len, name, &L, err);
    if (st != RIP_OK)
        return st;
    int channels = L.bpp == 8u ? 1 : 3;
    size_t row_bytes = (size_t)L.width * (size_t)channels;
    if ((size_t)L.height > SIZE_MAX / row_bytes) {
        snprintf(err, RIP_ERR_LEN, "%.300s: out of memory", name);
        return RIP_S_NOMEM;
    }
    uint8_t *px = malloc(row_bytes * (size_t)L.height);
    if (px == NULL) {
        snprintf(err, RIP_ERR_LEN, "%.300s: out of memory", name);
        return RIP_S_NOMEM;
    }
    for (int32_t r = 0; r < L.height && st == RIP_OK; r++) {
        /* Picture row r (0 = top) is stored row r top-down, else H-1-r. */
        int32_t stored = L.top_down ? r : L.height - 1 - r;
        const uint8_t *src = data + L.pixel_off + (uint64_t)stored * L.stride;
        uint8_t *dst = px + (size_t)r * row_bytes;
        for (int32_t x = 0; x < L.width; x++) {
            if (L.bpp == 8u) {
                if (src[x] >= L.colors) {
                    char msg[120];
                    snprintf(msg, sizeof msg, "pixel (%d, %d) names palette entry %u of %u",
                             (int)x, (int)r, (unsigned)src[x], (unsigned)L.colors);
                    st = bad(err, name, msg);
                    break;
                }
                dst[x] = L.gray[src[x]];
            } else {
                dst[3 * x + 0] = src[3 * x + 2];
                dst[3 * x + 1] = src[3 * x + 1];
                dst[3 * x + 2] = src[3 * x + 0];
            }
        }
    }
    if (st != RIP_OK) {
        free(px);
        return st;
    }
    img->width = L.width;
    img->height = L.height;
    img->channels = channels;
    img->pixels = px;
    return RIP_OK;
}

rip_status rip_bmp_read(const char *path, rip_bmp *img, char err[RIP_ERR_LEN])
{
    rip_status st = RIP_OK;
    uint8_t *buf = NULL;
    size_t len = 0, cap = 0;
    memset(img, 0, sizeof *img);
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        snprintf(err, RIP_ERR_LEN, "%.300s: cannot open", path);
        rip_err_one_line(err);
        return RIP_S_NOINPUT;
    }
    for (;;) {
        if (len == cap) {
            size_t ncap = cap ? 2 * cap : 65536;
            uint8_t *nb = ncap > cap ? realloc(buf, ncap) : NULL;
            if (nb == NULL) {
                snprintf(err, RIP_ERR_LEN, "%.300s: out of memory", path);
                st = RIP_S_NOMEM;
                break;
            }
            buf = nb;
            cap = ncap;
        }
        size_t k = fread(buf + len, 1, cap - len, f);
        len += k;
        if (k == 0) {
            if (ferror(f)) {
                snprintf(err, RIP_ERR_LEN, "%.300s: read error", path);
                st = RIP_S_IO;
            }
            break;
        }
    }
    fclose(f);
    if (st == RIP_OK)
        st = rip_bmp_decode(buf, len, path, img, err);
    free(buf);
    return st;
}

void rip_bmp_free(rip_bmp *img)
{
    if (img == NULL)
        return;
    free(img->pixels);
    memset(img, 0, sizeof *img);
}

rip_status rip_bmp_to_tensor(const rip_bmp *img, int32_t height, int32_t width, int32_t channels,
                             uint8_t *dst, size_t n, char err[RIP_ERR_LEN])
{
    size_t need = (size_t)img->height * (size_t)img->width * (size_t)img->channels;
    if (height != img->height || width != img->width || channels != img->channels || n != need) {
        snprintf(err, RIP_ERR_LEN,
                 "the image is %dx%dx%d (height x width x channels) but the input tensor is "
                 "%dx%dx%d (%zu bytes)",
                 (int)img->height, (int)img->width, img->channels, (int)height, (int)width,
                 (int)channels, n);
        return RIP_S_DATA;
    }
    memcpy(dst, img->pixels, n);
    return RIP_OK;
}
