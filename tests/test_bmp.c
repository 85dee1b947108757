/*
** test_bmp.c — the BMP reader (src/io/bmp.h): BMP files built byte by byte
** here, their pixels written out by hand (bottom-up and top-down rows, row
** padding, an 8-bit gray palette, 24-bit B,G,R given as R,G,B), every
** malformed header an error naming the file, and rip_bmp_to_tensor's shape
** check.  TFLM's own images are checked against TFLM in tests/test_tflm_peer.c
** and against the vendor's independent converter below when it is there.
*/
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io/bmp.h"
#include "skip.h"

/* A BMP in memory: headers, optional palette, rows as given. */
typedef struct bmp_buf {
    uint8_t b[4096];
    size_t n;
} bmp_buf;

static void put16(uint8_t *p, uint32_t v) { p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); }
static void put32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

/* Headers for a w x h image (h < 0: top-down) of bpp bits, with `colors`
** palette entries (entry i = gray[i]), followed by the stored rows
** `rows` (stride bytes each, |h| of them). */
static bmp_buf make(int32_t w, int32_t h, unsigned bpp, unsigned colors, const uint8_t *gray,
                    const uint8_t *rows, size_t rows_len)
{
    bmp_buf m;
    memset(&m, 0, sizeof m);
    uint32_t off = 14 + 40 + 4 * colors;
    m.b[0] = 'B';
    m.b[1] = 'M';
    put32(m.b + 2, off + (uint32_t)rows_len);
    put32(m.b + 10, off);
    put32(m.b + 14, 40);
    put32(m.b + 18, (uint32_t)w);
    put32(m.b + 22, (uint32_t)h);
    put16(m.b + 26, 1);
    put16(m.b + 28, bpp);
    put32(m.b + 30, 0);
    put32(m.b + 46, colors);
    for (unsigned i = 0; i < colors; i++)
        memset(m.b + 54 + 4 * i, gray[i], 3);
    memcpy(m.b + off, rows, rows_len);
    m.n = off + rows_len;
    return m;
}

static uint8_t identity[256];

static void init_identity(void)
{
    for (int i = 0; i < 256; i++)
        identity[i] = (uint8_t)i;
}

TestSuite(bmp, .init = init_identity);

Test(bmp, gray_bottom_up_rows_come_out_top_first_without_padding)
{
    /* 3 x 2, stride 4: stored bottom row first. */
    const uint8_t rows[] = {40, 50, 60, 0xEE, /* picture row 1 */
                            10, 20, 200, 0xEE /* picture row 0 */};
    bmp_buf m = make(3, 2, 8, 256, identity, rows, sizeof rows);
    rip_bmp img;
    char err[RIP_ERR_LEN];
    cr_assert_eq(rip_bmp_decode(m.b, m.n, "t.bmp", &img, err), RIP_OK, "%s", err);
    cr_assert_eq(img.width, 3);
    cr_assert_eq(img.height, 2);
    cr_assert_eq(img.channels, 1);
    const uint8_t want[] = {10, 20, 200, 40, 50, 60};
    cr_assert_arr_eq(img.pixels, want, sizeof want);

    /* The tensor bytes are the same bytes: 200 is the int8 value -56. */
    int8_t t[6];
    cr_assert_eq(rip_bmp_to_tensor(&img, 2, 3, 1, (uint8_t *)t, sizeof t, err), RIP_OK);
    cr_assert_eq(t[2], -56);
    cr_assert_eq(rip_bmp_to_tensor(&img, 3, 2, 1, (uint8_t *)t, sizeof t, err), RIP_S_DATA);
    cr_assert(strstr(err, "2x3x1") && strstr(err, "3x2x1"), "%s", err);
    rip_bmp_free(&img);
    cr_assert_null(img.pixels);
}

Test(bmp, a_negative_height_means_top_down_rows)
{
    const uint8_t rows[] = {1, 2, 0, 0, 3, 4, 0, 0};
    bmp_buf m = make(2, -2, 8, 256, identity, rows, sizeof rows);
    rip_bmp img;
    char err[RIP_ERR_LEN];
    cr_assert_eq(rip_bmp_decode(m.b, m.n, "t.bmp", &img, err), RIP_OK, "%s", err);
    const uint8_t want[] = {1, 2, 3, 4};
    cr_assert_eq(img.height, 2);
    cr_assert_arr_eq(img.pixels, want, sizeof want);
    rip_bmp_free(&img);
}

Test(bmp, a_gray_palette_maps_indices_to_its_grays)
{
    const uint8_t gray[4] = {0, 85, 170, 255};
    const uint8_t rows[] = {3, 2, 1, 0};
    bmp_buf m = make(4, 1, 8, 4, gray, rows, sizeof rows);
    rip_bmp img;
    char err[RIP_ERR_LEN];
    cr_assert_eq(rip_bmp_decode(m.b, m.n, "t.bmp", &img, err), RIP_OK, "%s", err);
    const uint8_t want[] = {255, 170, 85, 0};
    cr_assert_arr_eq(img.pixels, want, sizeof want);
    rip_bmp_free(&img);

    /* A pixel past the palette. */
    const uint8_t bad_rows[] = {3, 4, 0, 0};
    m = make(4, 1, 8, 4, gray, bad_rows, sizeof bad_rows);
    cr_assert_eq(rip_bmp_decode(m.b, m.n, "t.bmp", &img, err), RIP_S_DATA);
    cr_assert(strstr(err, "t.bmp: pixel (1, 0) names palette entry 4 of 4"), "%s", err);
    cr_assert_null(img.pixels);
}

Test(bmp, colour_24_bit_is_given_as_rgb)
{
    /* 2 x 1: stored B,G,R B,G,R + 2 padding bytes. */
    const uint8_t rows[] = {1, 2, 3, 4, 5, 6, 0, 0};
    bmp_buf m = make(2, 1, 24, 0, NULL, rows, sizeof rows);
    rip_bmp img;
    char err[RIP_ERR_LEN];
    cr_assert_eq(rip_bmp_decode(m.b, m.n, "c.bmp", &img, err), RIP_OK, "%s", err);
    cr_assert_eq(img.channels, 3);
    const uint8_t want[] = {3, 2, 1, 6, 5, 4};
    cr_assert_arr_eq(img.pixels, want, sizeof want);
    rip_bmp_free(&img);
}

/* rip_bmp_decode of m must fail with RIP_S_DATA and a message holding what. */
static void expect_bad(const bmp_buf *m, size_t n, const char *what)
{
    rip_bmp img;
    char err[RIP_ERR_LEN];
    cr_assert_eq(rip_bmp_decode(m->b, n, "x.bmp", &img, err), RIP_S_DATA, "expected: %s", what);
    cr_assert(strncmp(err, "x.bmp: ", 7) == 0 && strstr(err, what), "%s (expected %s)", err, what);
    cr_assert_null(img.pixels);
}

Test(bmp, malformed_files_are_errors_naming_the_file)
{
    const uint8_t rows[] = {1, 2, 3, 4, 5, 6, 7, 8};
    bmp_buf ok = make(4, 2, 8, 256, identity, rows, sizeof rows);
    bmp_buf m = ok;
    m.b[1] = 'X';
    expect_bad(&m, m.n, "not a BMP");
    expect_bad(&ok, 20, "not a BMP");
    expect_bad(&ok, ok.n - 1, "truncated BMP (fewer pixel rows");
    m = ok;
    put32(m.b + 14, 12);   /* OS/2 core header */
    expect_bad(&m, m.n, "info header of 12 bytes");
    m = ok;
    put32(m.b + 30, 1);    /* BI_RLE8 */
    expect_bad(&m, m.n, "compressed");
    m = ok;
    put16(m.b + 28, 4);
    expect_bad(&m, m.n, "4 bits per pixel");
    m = ok;
    put32(m.b + 18, 0);
    expect_bad(&m, m.n, "no pixels");
    m = ok;
    put16(m.b + 26, 2);
    expect_bad(&m, m.n, "more than one plane");
    m = ok;
    m.b[54 + 4 * 7 + 2] = 9;   /* entry 7: R differs */
    expect_bad(&m, m.n, "palette is not gray (entry 7 is R 9 G 7 B 7)");
    m = ok;
    put32(m.b + 10, 60);   /* pixels start inside the palette */
    expect_bad(&m, m.n, "truncated BMP palette");
}

Test(bmp, a_missing_file_is_noinput)
{
    rip_bmp img;
    char err[RIP_ERR_LEN];
    cr_assert_eq(rip_bmp_read("/nonexistent/dir/x.bmp", &img, err), RIP_S_NOINPUT);
    cr_assert(strstr(err, "/nonexistent/dir/x.bmp: cannot open"), "%s", err);
}

/* TFLM's two test images against the vendor's stdlib-only converter
** (bin2cc.py --raw, which matches PIL's tobytes()), when the TFLM tree and
** python3 are there: an implementation that is not ours. */
Test(bmp, tflm_images_match_the_vendor_converter)
{
    const char *tree = getenv("RIPSIM_TFLM_PATH");
    if (tree == NULL || system("python3 -c 'import struct' >/dev/null 2>&1") != 0)
        rip_skip("needs RIPSIM_TFLM_PATH (the TFLM tree) and python3");
    const char *names[] = {"person", "no_person"};
    for (int i = 0; i < 2; i++) {
        char bmp[1024], raw[64], cmd[3000];
        snprintf(bmp, sizeof bmp,
                 "%s/tflite-micro/tensorflow/lite/micro/examples/person_detection/testdata/%s.bmp",
                 tree, names[i]);
        FILE *probe = fopen(bmp, "rb");
        if (probe == NULL)
            rip_skip("no %s", bmp);
        fclose(probe);
        snprintf(raw, sizeof raw, "/tmp/ripsim-bmp-%d-%s.raw", (int)getpid(), names[i]);
        snprintf(cmd, sizeof cmd, "python3 '%s/tools/bin2cc.py' --raw '%s' '%s'", tree, raw, bmp);
        cr_assert_eq(system(cmd), 0, "%s", cmd);
        FILE *f = fopen(raw, "rb");
        cr_assert_not_null(f);
        static uint8_t want[96 * 96 + 1];
        size_t n = fread(want, 1, sizeof want, f);
        fclose(f);
        remove(raw);
        rip_bmp img;
        char err[RIP_ERR_LEN];
        cr_assert_eq(rip_bmp_read(bmp, &img, err), RIP_OK, "%s", err);
        cr_assert_eq(n, 96u * 96u);
        cr_assert_eq((size_t)img.width * (size_t)img.height * (size_t)img.channels, n);
        cr_assert_arr_eq(img.pixels, want, n, "%s differs from bin2cc.py", names[i]);
        rip_bmp_free(&img);
    }
}
