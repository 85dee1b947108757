/*
** rk_depthwise_inplace.h — TinyEngine-style in-place depthwise convolution
** (the baseline of paper Tab. 3): the output is written over its own
** input, one channel at a time.
**
** Scheme (as TinyEngine's *_inplace depthwise kernels; the paths below
** replace it where they apply): for channel ch =
** 0..c-1, the input plane of ch (h_in x w_in scalars at stride c in the
** NHWC tensor) is copied into scratch as a padded h_p x w_p plane, pad
** cells at the input zero point; then the output plane of ch is computed
** from scratch and written into the same tensor at
** tensor[(r * w_out + col) * c + ch].  Only channel ch's slots are
** written, and their input values are already in scratch; the other
** channels are untouched until their turn.  So the output (NHWC,
** h_out x w_out x c) ends in tensor[0, h_out*w_out*c), which requires
** h_out*w_out <= h_in*w_in (RK_ARG otherwise).  Channel ch >= 1 slots of
** pixels at or past h_out*w_out keep stale input afterwards.
**
** Parameters as rk_depthwise (rk_depthwise.h).  Aliasing: tensor is input
** and output; scratch, filter, bias, q must not overlap it.
*/
#ifndef RK_DEPTHWISE_INPLACE_H
#define RK_DEPTHWISE_INPLACE_H

#include "rk_types.h"

/* RK_OK; RK_ARG on bad parameters, NULL buffers or an output larger than the input. */
rk_status rk_depthwise_inplace(const rk_conv_params *p, const rk_quant *q, rk_dims in, rk_dims out,
                               const int8_t *filter, const int32_t *bias, int8_t *tensor, int8_t *scratch);

/* Direct.  On every target, a layer at d = 1 none of whose input pixels
** is read by an output pixel after the one written over its bytes
** (row-major; stride-2 layers with pad 1, whose windows reach back) runs
** the dual kernel over the tensor itself, with no scratch use and no
** copy: every write then meets only bytes no later read needs, in any
** placement where the output starts at the input (the ALIAS one).
**
** Four channels at a time.  With at least four channels, at most
** RK_DW_QUAD_TAPS taps and at most RK_DW_QUAD_PIXELS output pixels, the
** Cortex-M33 and M0 builds run channels k .. k + 3 together: the group's
** outputs are computed from the tensor into
** scratch (four bytes an output pixel) and copied over the group's bytes
** once the group is done.  So the group's bytes are written only after
** all of the group's input is read, and the ordering argument above holds
** per group (its later-read sets are subsets of the per-channel order's: a
** placement safe for that order is safe for this one).  The path's
** scratch is 4 h_out w_out bytes, at most 512: a layer's scratch is the
** larger of that and one padded plane (of the models here only
** kws_ref_model's largest scratch grows, 323 -> 500 B).  The size is the
** same on every target: a plan must not depend on the core.
**
** Row delay (the M0 and the host; the M33 keeps the plane loop, which is
** there at least as fast as its dual kernel).  Where neither path above
** runs, at stride 1 with out.w = in.w, output row y lies on input row y's
** bytes and input row y is last read by output row y + p_top.  Bands of
** output rows are computed by the dual kernel from the tensor into a ring
** in scratch, and each row is copied over its input once its last reader
** has run; a write thus meets only bytes no later read needs, and only the
** output's own bytes are written (the checker's ALIAS verdict, which
** replays the per-channel order inside the tensor, covers it for the same
** reason as the four-channel path).  The ring is as many bands as the
** layer's scratch holds (its size is not raised for it); a layer whose
** scratch holds fewer than 1 + p_top rows takes the plane loop.  It costs
** the dual kernel's instructions and one copy of the output: on the M0,
** 1.005-1.009 of the dual kernel, against 1.14-1.34 for the plane loop on
** the models' 16-channel 3 x 3 layers (results/kernels.md). */
#define RK_DW_QUAD_TAPS 49
#define RK_DW_QUAD_PIXELS 128

/* Scratch bytes: one padded plane, h_p * w_p, or the four-channel path's
** scratch where that is larger (above); 0 on bad parameters. */
size_t rk_depthwise_inplace_buffer_size(const rk_conv_params *p, rk_dims in, rk_dims out);

#endif
