/*
** bmp.h — the one BMP reader of ripsim: an image file given as a model's
** input (`--input x.bmp`) becomes the bytes of the model's input tensor
** exactly as TensorFlow Lite Micro's person-detection test makes them.
**
** What TFLM does (tensorflow/lite/micro/examples/person_detection): its
** build turns testdata/person.bmp into a C array with PIL's
** Image.open(f).tobytes() (generate_cc_arrays.py), and the test memcpy()s
** that array into the int8 input tensor.  For an 8-bit BMP whose palette is
** the gray identity (entry i = (i, i, i), as TFLM's images have) PIL's
** image is mode "L" and tobytes() gives one byte per pixel, rows from the
** top of the picture down (a BMP stores them bottom-up unless its height
** is negative), no row padding.  The int8 tensor then holds each gray byte
** unchanged as a bit pattern: gray 200 is the int8 value -56.  No -128
** offset, no scaling.
**
** Read here (anything else is an error naming the file and the reason):
**   - the "BM" file header and a BITMAPINFOHEADER or a later, larger info
**     header (V4, V5; 40, 108 or 124 bytes), one plane, no compression
**     (BI_RGB);
**   - 8 bits per pixel with a palette whose colours are all grays
**     (B == G == R): one channel, each pixel the gray value of its entry
**     (for the identity palette the stored byte itself); a pixel naming an
**     entry past the palette is an error;
**   - 24 bits per pixel: three channels, stored B, G, R, given as R, G, B
**     (PIL's mode "RGB" order);
**   - a negative height (rows stored top-down); rows padded to 4 bytes.
*/
#ifndef RIPSIM_BMP_H
#define RIPSIM_BMP_H

#include <stddef.h>
#include <stdint.h>

#include "layer.h"   /* RIP_ERR_LEN */
#include "status.h"

/* A decoded image: rows top first, each row left to right, channels
** interleaved (height * width * channels bytes). */
typedef struct rip_bmp {
    int32_t width, height;   /* pixels, both >= 1 */
    int channels;            /* 1 (gray) or 3 (R, G, B) */
    uint8_t *pixels;         /* malloc'd; rip_bmp_free */
} rip_bmp;

/* Decode the BMP file held in data[0..len).  name is used in messages.
** Returns RIP_OK with *img filled (the caller frees it with rip_bmp_free),
** RIP_S_DATA for a file that is not a BMP this reader reads (err says
** why), RIP_S_NOMEM.  On failure *img is empty (pixels NULL). */
rip_status rip_bmp_decode(const uint8_t *data, size_t len, const char *name, rip_bmp *img,
                          char err[RIP_ERR_LEN]);

/* Read and decode the BMP file at path: as rip_bmp_decode, plus
** RIP_S_NOINPUT when the file cannot be opened and RIP_S_IO when reading
** it fails. */
rip_status rip_bmp_read(const char *path, rip_bmp *img, char err[RIP_ERR_LEN]);

/* Release img's pixels and empty it; NULL or an empty image is fine. */
void rip_bmp_free(rip_bmp *img);

/* The bytes of an input tensor of shape [1, height, width, channels] (int8
** or uint8, NHWC) for img, as TFLM's person-detection test fills it: the
** image's bytes unchanged (see above).  n is the tensor's byte count.
** Returns RIP_OK, or RIP_S_DATA when the tensor's shape is not the image's
** (err names both). */
rip_status rip_bmp_to_tensor(const rip_bmp *img, int32_t height, int32_t width, int32_t channels,
                             uint8_t *dst, size_t n, char err[RIP_ERR_LEN]);

#endif
