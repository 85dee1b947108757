/*
** layer.c — validation and derived sizes of one convolution layer.
**
** See layer.h for the contract.  The checks run in a fixed order so that the
** message names the first offending field a user would look at.
*/
#include "layer.h"

#include <stdio.h>


rip_layer rip_layer_make(int64_t cin, int64_t cout, int64_t h_in, int64_t w_in,
                         int64_t k_h, int64_t k_w, int64_t s_h, int64_t s_w,
                         int64_t d_h, int64_t d_w, int64_t p_h, int64_t p_w)
{
    rip_layer L = {0};
    L.cin = cin; L.cout = cout; L.h_in = h_in; L.w_in = w_in;
    L.k_h = k_h; L.k_w = k_w; L.s_h = s_h; L.s_w = s_w;
    L.d_h = d_h; L.d_w = d_w;
    L.p_top = p_h; L.p_bottom = p_h; L.p_left = p_w; L.p_right = p_w;
    return L;
}

/* Contract (layer.h). */
rip_layer rip_layer_from_geometry(const int64_t g[RIP_LAYER_GEOMETRY])
{
    rip_layer L = rip_layer_make(g[0], g[1], g[2], g[3], g[4], g[5], g[6], g[7], g[8], g[9], 0, 0);
    L.p_top = g[10];
    L.p_bottom = g[11];
    L.p_left = g[12];
    L.p_right = g[13];
    return L;
}

/* a*b into *r; false on overflow or negative operands. */
static bool mul_ok(int64_t a, int64_t b, int64_t *r)
{
    if (a < 0 || b < 0)
        return false;
    return !__builtin_mul_overflow(a, b, r);
}

static bool add_ok(int64_t a, int64_t b, int64_t *r)
{
    return !__builtin_add_overflow(a, b, r);
}

static int fail(char err[RIP_ERR_LEN], const char *field, const char *what, int64_t v)
{
    snprintf(err, RIP_ERR_LEN, "%s: %s (got %lld)", field, what, (long long)v);
    return -1;
}

/* One term of a sum or one factor of a product: its value v, how often it
** enters (power 2 for a square), and the input field that stands for it
** with that field's own value (v itself, or e.g. h_p for h_in). */
typedef struct term {
    const char *name;
    int64_t v;
    int power;
    int64_t own;
} term;

/* The term that makes a sum or product too large: the one with the largest
** contribution v^power, power 1 or 2 (ties: the first).  Values are >= 0. */
static term blame(const term *t, size_t n)
{
    size_t best = 0;
    unsigned __int128 best_score = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned __int128 score = (unsigned __int128)t[i].v;   /* power is 1 or 2 */
        if (t[i].power == 2)
            score *= (unsigned __int128)t[i].v;
        if (i == 0 || score > best_score) {
            best_score = score;
            best = i;
        }
    }
    return t[best];
}

/* "FIELD: too large (got V): WHAT exceeds 2^62" naming the blamed term. */
static int fail_overflow(char err[RIP_ERR_LEN], const term *t, size_t n, const char *what)
{
    term b = blame(t, n);
    snprintf(err, RIP_ERR_LEN, "%s: too large (got %lld): %s exceeds 2^62", b.name, (long long)b.own, what);
    return -1;
}

/* a field of L as a term of power 1 */
#define F(x) {#x, L->x, 1, L->x}
#define TERMS(...) ((const term[]){__VA_ARGS__}), (sizeof((const term[]){__VA_ARGS__}) / sizeof(term))

int rip_layer_derive(rip_layer *L, char err[RIP_ERR_LEN])
{
    const int64_t limit = (int64_t)1 << 62;
    struct { const char *name; int64_t v; } pos[] = {
        {"cin", L->cin}, {"cout", L->cout}, {"h_in", L->h_in}, {"w_in", L->w_in},
        {"k_h", L->k_h}, {"k_w", L->k_w}, {"s_h", L->s_h}, {"s_w", L->s_w},
        {"d_h", L->d_h}, {"d_w", L->d_w},
    };
    for (size_t i = 0; i < sizeof pos / sizeof pos[0]; i++)
        if (pos[i].v < 1)
            return fail(err, pos[i].name, "must be >= 1", pos[i].v);
    struct { const char *name; int64_t v; } pads[] = {
        {"p_top", L->p_top}, {"p_bottom", L->p_bottom},
        {"p_left", L->p_left}, {"p_right", L->p_right},
    };
    for (size_t i = 0; i < 4; i++)
        if (pads[i].v < 0)
            return fail(err, pads[i].name, "padding must be >= 0", pads[i].v);

    /* Every check below names the input field whose value makes the size
    ** leave the safe range, not the first field of the expression. */
    int64_t t;
    if (!mul_ok(L->d_h, L->k_h - 1, &t) || !add_ok(t, 1, &L->keff_h) || L->keff_h > limit)
        return fail_overflow(err, TERMS(F(d_h), F(k_h)),
                             "the dilated kernel height d_h*(k_h-1)+1");
    if (!mul_ok(L->d_w, L->k_w - 1, &t) || !add_ok(t, 1, &L->keff_w) || L->keff_w > limit)
        return fail_overflow(err, TERMS(F(d_w), F(k_w)),
                             "the dilated kernel width d_w*(k_w-1)+1");
    /* the field that dominates each padded extent stands for it in products */
    const term h_side = blame(TERMS(F(h_in), F(p_top), F(p_bottom)));
    const term w_side = blame(TERMS(F(w_in), F(p_left), F(p_right)));
    if (!add_ok(L->h_in, L->p_top, &t) || !add_ok(t, L->p_bottom, &L->h_p) || L->h_p > limit)
        return fail_overflow(err, &h_side, 1, "the padded height h_in+p_top+p_bottom");
    if (!add_ok(L->w_in, L->p_left, &t) || !add_ok(t, L->p_right, &L->w_p) || L->w_p > limit)
        return fail_overflow(err, &w_side, 1, "the padded width w_in+p_left+p_right");
    if (L->h_p < L->keff_h) {
        snprintf(err, RIP_ERR_LEN,
                 "h_out: padded height %lld is smaller than the dilated kernel %lld, the layer has no output",
                 (long long)L->h_p, (long long)L->keff_h);
        return -1;
    }
    if (L->w_p < L->keff_w) {
        snprintf(err, RIP_ERR_LEN,
                 "w_out: padded width %lld is smaller than the dilated kernel %lld, the layer has no output",
                 (long long)L->w_p, (long long)L->keff_w);
        return -1;
    }
    L->h_out = (L->h_p - L->keff_h) / L->s_h + 1;
    L->w_out = (L->w_p - L->keff_w) / L->s_w + 1;

    /* a padded extent's factor is weighed by the extent, named by its field */
    const term hp = {h_side.name, L->h_p, 1, h_side.own}, wp = {w_side.name, L->w_p, 1, w_side.own};
    int64_t hw;
    if (!mul_ok(L->h_p, L->w_p, &hw) || hw > limit)
        return fail_overflow(err, TERMS(hp, wp), "the padded area h_p*w_p");
    if (!mul_ok(hw, L->cin, &L->n_in_padded) || L->n_in_padded > limit)
        return fail_overflow(err, TERMS(hp, wp, F(cin)), "the padded input h_p*w_p*cin");
    L->n_in_dense = L->h_in * L->w_in * L->cin;   /* <= n_in_padded */
    hw = L->h_out * L->w_out;                     /* <= h_p*w_p */
    if (!mul_ok(hw, L->cout, &L->n_out) || L->n_out > limit)
        return fail_overflow(err, TERMS({h_side.name, L->h_out, 1, h_side.own},
                                        {w_side.name, L->w_out, 1, w_side.own}, F(cout)),
                             "the output h_out*w_out*cout");

    /* The bound that covers every closed-form term (layer.h). */
    const term ch_side = blame(TERMS(F(cin), F(cout)));
    const term kh = blame(TERMS(F(d_h), F(k_h)));
    const term kw = blame(TERMS(F(d_w), F(k_w)));
    const term ke_h = {kh.name, L->keff_h, 1, kh.own}, ke_w = {kw.name, L->keff_w, 1, kw.own};
    const term ext_side = blame(TERMS(hp, wp, ke_h, ke_w));
    int64_t ch, ss, ext, ext2, b;
    if (!add_ok(L->cin, L->cout, &ch) || ch > limit)
        return fail_overflow(err, &ch_side, 1, "cin+cout");
    if (!mul_ok(L->s_h, L->s_w, &ss) || !mul_ok(ch, ss, &b) || b > limit)
        return fail_overflow(err, TERMS({ch_side.name, ch, 1, ch_side.own}, F(s_h), F(s_w)),
                             "(cin+cout)*s_h*s_w");
    if (!add_ok(L->h_p, L->w_p, &ext) || !add_ok(ext, L->keff_h, &ext) ||
        !add_ok(ext, L->keff_w, &ext) || !mul_ok(ext, ext, &ext2))
        return fail_overflow(err, &ext_side, 1, "(h_p+w_p+keff_h+keff_w)^2");
    if (!mul_ok(b, ext2, &t) || t >= limit)
        return fail_overflow(err, TERMS({ch_side.name, ch, 1, ch_side.own}, F(s_h), F(s_w),
                                        {ext_side.name, ext, 2, ext_side.own}),
                             "(cin+cout)*s_h*s_w*(h_p+w_p+keff_h+keff_w)^2");
    return 0;
}
#undef F
#undef TERMS

bool rip_layer_is_restricted(const rip_layer *L)
{
    return L->p_top == 0 && L->p_bottom == 0 && L->p_left == 0 && L->p_right == 0 &&
           L->s_h == 1 && L->s_w == 1 && L->d_h == 1 && L->d_w == 1 &&
           L->k_h == L->k_w && (L->k_h % 2) == 1 && L->h_in == L->w_in;
}

rip_layer rip_layer_transpose(const rip_layer *L)
{
    rip_layer T = rip_layer_make(L->cin, L->cout, L->w_in, L->h_in, L->k_w, L->k_h, L->s_w, L->s_h,
                                 L->d_w, L->d_h, 0, 0);
    T.p_top = L->p_left;
    T.p_bottom = L->p_right;
    T.p_left = L->p_top;
    T.p_right = L->p_bottom;
    char err[RIP_ERR_LEN];
    (void)rip_layer_derive(&T, err); /* same sizes and products as L: cannot fail */
    return T;
}
