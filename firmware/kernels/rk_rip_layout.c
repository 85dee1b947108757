/*
** rk_rip_layout.c — sizes and input placement of the in-place convolution
** (rk_conv2d_rip.h), shared by its release and instrumented builds.
*/
#include "rk_conv2d_rip.h"
#include "rk_internal.h"

static bool ip_ok(const rk_inplace *ip)
{
    return ip != NULL && (ip->layout == RK_PADDED || ip->layout == RK_DENSE) &&
           (ip->order == RK_GATHER || ip->order == RK_TAPS) && ip->gap >= 0 && ip->gap <= RK_MAX_SCALARS;
}

int64_t rk_rip_stored_input(const rk_conv_params *p, rk_dims in, const rk_inplace *ip)
{
    if (p == NULL || !ip_ok(ip) || !rk_dims_ok(in) || p->p_top < 0 || p->p_bottom < 0 || p->p_left < 0 ||
        p->p_right < 0)
        return -1;
    if (ip->layout == RK_DENSE)
        return (int64_t)in.h * in.w * in.c;
    return ((int64_t)in.h + p->p_top + p->p_bottom) * ((int64_t)in.w + p->p_left + p->p_right) * in.c;
}

int64_t rk_conv2d_rip_workspace_size(const rk_conv_params *p, rk_dims in, const rk_inplace *ip)
{
    const int64_t n = rk_rip_stored_input(p, in, ip);
    return n < 0 ? -1 : ip->gap + n;
}

size_t rk_conv2d_rip_buffer_size(const rk_conv_params *p, rk_dims in, rk_dims out, const rk_inplace *ip)
{
    if (!ip_ok(ip) || rk_conv_check(p, NULL, in, out) != RK_OK)
        return 0;
    if (ip->order == RK_TAPS)
        return 0;
    return rk_gather_scratch_size(out.c, (int64_t)p->k_h * p->k_w * in.c);
}

int64_t rk_conv2d_rip_direct_gap(const rk_conv_params *p, rk_dims in, rk_dims out, const rk_inplace *ip)
{
    if (!ip_ok(ip) || rk_conv_check(p, NULL, in, out) != RK_OK)
        return -1;
    const bool pads = p->p_top || p->p_bottom || p->p_left || p->p_right;
    if (ip->order == RK_TAPS || p->k_h != 1 || p->k_w != 1 || (pads && ip->layout == RK_DENSE))
        return ip->gap;
    /* stored extents: the padded layout stores its pad cells, which a 1x1 layer reads as input */
    const int64_t w_s = (int64_t)in.w + (ip->layout == RK_PADDED ? (int64_t)p->p_left + p->p_right : 0);
    const int64_t cin = in.c, cout = out.c, m = 2;
    /* rk_conv2d_rip.c, run_gather: column c of row r is read in place when
    ** c (c_out - s_w c_in) <= gap + r (s_h w_s c_in - w_out c_out) - m c_out;
    ** at stride 1 the layer is one row of h_out w_out pixels */
    const bool flat = p->s_h == 1 && p->s_w == 1;
    const int64_t rows = flat ? 1 : out.h, w_out = flat ? (int64_t)out.h * out.w : out.w;
    const int64_t d = cout - (int64_t)p->s_w * cin, row = (int64_t)p->s_h * w_s * cin - w_out * cout;
    const int64_t worst_c = d > 0 ? (w_out - 1) * d : 0;
    int64_t need = ip->gap;
    for (int64_t r = 0; r < rows; r++) {
        const int64_t g = worst_c + m * cout - r * row;
        if (g > need)
            need = g;
    }
    return need;
}

void rk_rip_store_input(const rk_conv_params *p, rk_dims in, const int8_t *input, const rk_inplace *ip,
                        int8_t *workspace)
{
    int8_t *dst = workspace + ip->gap;
    const size_t row = (size_t)in.w * (size_t)in.c;
    if (ip->layout == RK_DENSE) {
        memcpy(dst, input, (size_t)in.h * row);
        return;
    }
    const int8_t zero_point = (int8_t)(-p->input_offset);
    const size_t w_p = (size_t)in.w + (size_t)p->p_left + (size_t)p->p_right;
    const size_t c = (size_t)in.c;
    memset(dst, zero_point, (size_t)p->p_top * w_p * c);
    dst += (size_t)p->p_top * w_p * c;
    for (int32_t i = 0; i < in.h; i++) {
        memset(dst, zero_point, (size_t)p->p_left * c);
        dst += (size_t)p->p_left * c;
        memcpy(dst, input + (size_t)i * row, row);
        dst += row;
        memset(dst, zero_point, (size_t)p->p_right * c);
        dst += (size_t)p->p_right * c;
    }
    memset(dst, zero_point, (size_t)p->p_bottom * w_p * c);
}
