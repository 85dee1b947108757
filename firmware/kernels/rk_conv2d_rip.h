/*
** rk_conv2d_rip.h — int8 2D convolution executed in place in one workspace
** (RiP, paper Sec. 4.1-4.3 and App. F), in the four layouts/orders the
** simulator calls rip_padded_gather, rip_padded_taps, rip_dense_gather and
** rip_dense_taps (sim/README.md).
**
** Workspace: the output is written left-aligned from workspace[0], output
** pixel q = r*w_out + c, channel oc at q*c_out + oc, pixels in row-major
** order, channels 0..c_out-1.  The input starts at workspace[gap]:
**   RK_PADDED: the padded input (h_p x w_p x c_in, pad cells hold the input
**              zero point, -input_offset); every tap reads the workspace;
**   RK_DENSE:  the real pixels only (h_in x w_in x c_in); a pad tap reads
**              nothing and contributes nothing.
** Order of reads and writes within one output pixel:
**   RK_GATHER: all taps of the pixel are copied to scratch, then its c_out
**              channels are computed from scratch and written (sigma = 0);
**   RK_TAPS:   channel oc reads every tap from the workspace, then is
**              written, before channel oc+1 reads (sigma = c_out).
** With gap at or above the simulator's truth for the configuration
** (rip_sim_truth) the output equals rk_conv2d's bit for bit; below it the
** release kernel's output is unspecified (it reorders reads and writes
** where the truth makes that safe; the _checked build keeps the order above
** and reports the first stale read).  ws_size = gap + stored input.
**
** Aliasing: the input and the output share workspace by design; filter,
** bias, q and scratch must not overlap the workspace or one another's
** written parts (scratch is written; filter, bias, q are only read).
*/
#ifndef RK_CONV2D_RIP_H
#define RK_CONV2D_RIP_H

#include "rk_types.h"

typedef enum rk_layout { RK_PADDED, RK_DENSE } rk_layout;
typedef enum rk_order { RK_GATHER, RK_TAPS } rk_order;
typedef struct rk_inplace { rk_layout layout; rk_order order; int64_t gap; } rk_inplace;

/*
** Run the layer in place.  Before the call workspace[gap, gap + stored)
** holds the input in ip->layout (rk_rip_store_input); after it
** workspace[0, h_out*w_out*c_out) holds the output.  Returns RK_OK; RK_ARG
** on bad parameters (as rk_conv2d, plus gap < 0, an unknown layout or
** order, a NULL buffer, ws_size >= 2^31); RK_SPACE when ws_size is below
** gap + stored input or below the output size.
*/
rk_status rk_conv2d_rip(const rk_conv_params *p, const rk_quant *q, rk_dims in, rk_dims out,
                        const int8_t *filter, const int32_t *bias, const rk_inplace *ip,
                        int8_t *workspace, int64_t ws_size, int8_t *scratch);

/* Scratch bytes: rk_conv2d_buffer_size for RK_GATHER, 0 for RK_TAPS; 0 on bad parameters. */
size_t rk_conv2d_rip_buffer_size(const rk_conv_params *p, rk_dims in, rk_dims out, const rk_inplace *ip);

/*
** The smallest gap, at least ip->gap, from which the release gather order
** reads every pixel of a 1x1 layer without padding where it lies (none of
** its pixels goes through scratch: no copy beyond the dual kernel's work),
** counted for pixels taken in pairs (the host's blocking; on the Cortex-M,
** one at a time, it holds a fortiori).  A planner with room to spare may
** place the output this far below the input.  ip->gap for any other layer
** (kxk layers gather every pixel, in place or not) and for RK_TAPS; -1 on
** bad parameters.  O(h_out).
*/
int64_t rk_conv2d_rip_direct_gap(const rk_conv_params *p, rk_dims in, rk_dims out, const rk_inplace *ip);

/* Stored input scalars of the layout: h_p*w_p*c_in (padded) or h_in*w_in*c_in
** (dense); -1 on bad parameters. */
int64_t rk_rip_stored_input(const rk_conv_params *p, rk_dims in, const rk_inplace *ip);

/* gap + stored input (the simulator's workspace); -1 on bad parameters.
** At a gap of at least the simulator's truth this also holds the output. */
int64_t rk_conv2d_rip_workspace_size(const rk_conv_params *p, rk_dims in, const rk_inplace *ip);

/* Lay the dense NHWC input out at workspace[gap] in ip->layout (padded:
** pad cells = the input zero point).  workspace[0, gap) is not touched.
** input must not overlap workspace[gap, gap + stored).  Parameters are
** the caller's to check (rk_conv2d_rip_workspace_size() >= 0). */
void rk_rip_store_input(const rk_conv_params *p, rk_dims in, const int8_t *input, const rk_inplace *ip,
                        int8_t *workspace);

/*
** Instrumented build (the same source compiled with RK_INSTRUMENT).
** shadow: ws_size bytes, caller-provided; rk_conv2d_rip_checked tags it
** itself (rk_shadow_init: [gap, gap + stored) input, the rest free), the
** _preset variant uses the tags the caller left there (tests poison bytes
** that way).  Every read of an input byte checks its tag; a write at or
** past ws_size is recorded as an overflow and not performed, so ws_size
** may be below the output size here (only gap + stored input is
** required).  stop_at_first: return at the first violation.  *v receives
** the first violation (v->found false when none).  Same statuses as
** rk_conv2d_rip except that a small output is not RK_SPACE.
*/
rk_status rk_conv2d_rip_checked(const rk_conv_params *p, const rk_quant *q, rk_dims in, rk_dims out,
                                const int8_t *filter, const int32_t *bias, const rk_inplace *ip,
                                int8_t *workspace, int64_t ws_size, int8_t *scratch,
                                uint8_t *shadow, bool stop_at_first, rk_violation *v);
rk_status rk_conv2d_rip_checked_preset(const rk_conv_params *p, const rk_quant *q, rk_dims in, rk_dims out,
                                       const int8_t *filter, const int32_t *bias, const rk_inplace *ip,
                                       int8_t *workspace, int64_t ws_size, int8_t *scratch,
                                       uint8_t *shadow, bool stop_at_first, rk_violation *v);

#endif
