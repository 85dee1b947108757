/*
** rip_plain.c — the plain (scalar by scalar) engine for the four row-major
** RiP configurations.
**
** It reads the semantics literally and uses no structure of the problem:
**   build: enumerate every channel of every tap of every output pixel q in
**          row-major order and record q as the last reader of the stored
**          scalar it touches (a dense-layout tap on padding touches none);
**   run:   write every output scalar at q*cout + gamma in order and check
**          that one write against the workspace size and the liveness of
**          the input scalar stored there.
** Its job is to be obviously right, so the fast engine can be tested
** against it; it is not meant for sweeps.
*/
#include "sim_internal.h"

/*
** Fill s->last_reader[n_stored]: for every stored scalar, the largest pixel
** ordinal q = r*w_out + c of an output with a tap on it, -1 if none.
** Returns 0, or -1 when memory runs out (s->last_reader stays NULL).
** Cost O(n_stored + h_out*w_out*k_h*k_w*cin) time, 8*n_stored bytes.
*/
int rip_plain_build(rip_sim *s)
{
    const rip_layer *L = &s->L;
    const bool dense = (s->exec == RIP_CONFIG_DENSE_GATHER || s->exec == RIP_CONFIG_DENSE_TAPS);
    int64_t *last = rip_sim_alloc_i64(s->n_stored);
    if (last == NULL)
        return -1;
    for (int64_t x = 0; x < s->n_stored; x++)
        last[x] = -1;

    for (int64_t r = 0; r < L->h_out; r++)
        for (int64_t c = 0; c < L->w_out; c++) {
            const int64_t q = r * L->w_out + c;
            for (int64_t a = 0; a < L->k_h; a++)
                for (int64_t b = 0; b < L->k_w; b++) {
                    /* padded position of the tap */
                    int64_t i = r * L->s_h + a * L->d_h;
                    int64_t j = c * L->s_w + b * L->d_w;
                    int64_t base;
                    if (dense) {
                        i -= L->p_top;
                        j -= L->p_left;
                        if (i < 0 || i >= L->h_in || j < 0 || j >= L->w_in)
                            continue; /* a pad tap touches no address */
                        base = (i * L->w_in + j) * L->cin;
                    } else {
                        base = (i * L->w_p + j) * L->cin;
                    }
                    for (int64_t ch = 0; ch < L->cin; ch++)
                        if (last[base + ch] < q)
                            last[base + ch] = q;
                }
        }
    s->last_reader = last;
    return 0;
}

/*
** Run with gap delta: workspace of delta + n_stored scalars, stored scalar
** x at address delta + x.  Output pixel q writes q*cout + gamma for gamma =
** 0..cout-1, in order; each write is checked on its own:
**   address >= workspace size                       -> overflow;
**   address holds an input scalar that is live at q -> corruption,
** live meaning last reader > q (gather first) or >= q (taps read from the
** workspace).  Returns true iff no write fails; rep gets the first failure.
** Cost O(n_out).
*/
bool rip_plain_run(const rip_sim *s, int64_t delta, rip_run_report *rep)
{
    const rip_layer *L = &s->L;
    const int64_t ws = rip_sat_add(delta, s->n_stored);
    for (int64_t q = 0; q < s->n_pix; q++)
        for (int64_t g = 0; g < L->cout; g++) {
            const int64_t addr = q * L->cout + g;
            rip_run_outcome bad = RIP_RUN_OK;
            if (addr >= ws) {
                bad = RIP_RUN_OVERFLOW;
            } else if (addr >= delta) {
                const int64_t lr = s->last_reader[addr - delta];
                if (lr > q || (s->taps && lr == q))
                    bad = RIP_RUN_CORRUPTION;
            }
            if (bad != RIP_RUN_OK) {
                rep->outcome = bad;
                rep->step = q;
                rep->pixel_r = q / L->w_out;
                rep->pixel_c = q % L->w_out;
                rep->address = addr;
                return false;
            }
        }
    return true;
}
