/*
** spec.c — parser and printer of the layer SPEC (see spec.h).
**
** The parser is strict on purpose: a typo in a research sweep must stop the
** run with the field named, not silently become a default.  It reads the
** names of every scheme ripsim prints (SPEC keys, database and JSON
** columns, layer-CSV columns) as aliases of the canonical SPEC keys, so a
** row copied from any of them pastes back; the same field given twice must
** agree.
*/
#include "spec.h"
#include "status.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The scalar fields a SPEC sets; PV and PH are p='s vertical and
** horizontal padding, which pt, pb, pl and pr override side by side. */
enum { F_CIN, F_COUT, F_H, F_W, F_KH, F_KW, F_SH, F_SW, F_DH, F_DW, F_PV, F_PH, F_PT, F_PB, F_PL, F_PR,
       F_COUNT };

/* One accepted name and the fields it sets: a, and b for a key that takes
** A or AxB (b < 0: one field, an integer).  The canonical keys come first. */
typedef struct key {
    const char *name;
    int a, b;
} key;

static const key keys[] = {
    {"cin", F_CIN, -1},   {"cout", F_COUT, -1}, {"h", F_H, -1},      {"w", F_W, -1},
    {"k", F_KH, F_KW},    {"s", F_SH, F_SW},    {"d", F_DH, F_DW},   {"p", F_PV, F_PH},
    {"pt", F_PT, -1},     {"pb", F_PB, -1},     {"pl", F_PL, -1},    {"pr", F_PR, -1},
    /* database, JSON and layer-CSV names */
    {"c_in", F_CIN, -1},  {"c_out", F_COUT, -1}, {"h_in", F_H, -1},  {"w_in", F_W, -1},
    {"k_h", F_KH, -1},    {"k_w", F_KW, -1},    {"s_h", F_SH, -1},   {"s_w", F_SW, -1},
    {"d_h", F_DH, -1},    {"d_w", F_DW, -1},    {"p_h", F_PV, -1},   {"p_w", F_PH, -1},
    {"p_top", F_PT, -1},  {"p_bottom", F_PB, -1}, {"p_left", F_PL, -1}, {"p_right", F_PR, -1},
};
enum { N_KEYS = sizeof keys / sizeof keys[0] };

/* Columns ripsim prints that a SPEC cannot set: they follow from the others. */
static const char *const derived[] = {"h_out", "w_out", "keff_h", "keff_w", "h_p", "w_p", "restricted",
                                      "n_in_padded", "n_in_dense", "n_out", "n_in_read"};

/* Parse a decimal int64 occupying exactly [s, end).  0 on success, -1 not
** a number, -2 out of range.  s is inside a NUL-terminated SPEC and *end
** is ',', 'x' or the NUL, none of which continues a number, so strtoll
** stops exactly at end for a well-formed value of any length (leading
** zeros included). */
static int parse_int(const char *s, const char *end, int64_t *v)
{
    if (s == end || !((*s >= '0' && *s <= '9') || *s == '-' || *s == '+'))
        return -1;
    char *stop;
    errno = 0;
    long long x = strtoll(s, &stop, 10);
    if (stop != end)
        return -1;
    if (errno == ERANGE)
        return -2;
    *v = (int64_t)x;
    return 0;
}

static int bad_value(char err[RIP_ERR_LEN], const char *name, const char *s, const char *end, int rc, bool pair)
{
    int n = (int)(end - s);
    if (n > 40)
        n = 40;
    if (rc == -2)
        snprintf(err, RIP_ERR_LEN, "%s: number out of range '%.*s'", name, n, s);
    else
        snprintf(err, RIP_ERR_LEN, "%s: expected %s, got '%.*s'", name,
                 pair ? "an integer A or AxB" : "an integer", n, s);
    return -1;
}

/* The fields read so far: value and the name that set it. */
typedef struct fields {
    int64_t v[F_COUNT];
    const char *by[F_COUNT];
} fields;

/* Set field f to v by name: -1 with err when another name set it to another value. */
static int set_field(fields *fs, int f, int64_t v, const char *name, char err[RIP_ERR_LEN])
{
    if (fs->by[f] && fs->v[f] != v) {
        if (strcmp(fs->by[f], name) == 0)
            snprintf(err, RIP_ERR_LEN, "%s: given twice with different values (%lld and %lld)", name,
                     (long long)fs->v[f], (long long)v);
        else
            snprintf(err, RIP_ERR_LEN, "%s=%lld conflicts with %s=%lld (the same field)", name, (long long)v,
                     fs->by[f], (long long)fs->v[f]);
        return -1;
    }
    fs->v[f] = v;
    fs->by[f] = name;
    return 0;
}

/* The key named by [item, item + klen), or NULL with err. */
static const key *find_key(const char *spec, const char *item, int klen, char err[RIP_ERR_LEN])
{
    for (int i = 0; i < N_KEYS; i++)
        if ((int)strlen(keys[i].name) == klen && strncmp(item, keys[i].name, (size_t)klen) == 0)
            return &keys[i];
    int n = klen > 40 ? 40 : klen;
    for (size_t i = 0; i < sizeof derived / sizeof derived[0]; i++)
        if ((int)strlen(derived[i]) == klen && strncmp(item, derived[i], (size_t)klen) == 0) {
            snprintf(err, RIP_ERR_LEN, "%.*s: follows from the other fields, a SPEC cannot set it", n, item);
            return NULL;
        }
    if (klen == 0)
        snprintf(err, RIP_ERR_LEN, "spec: empty item in '%.60s'", spec);
    else
        snprintf(err, RIP_ERR_LEN,
                 "%.*s: unknown key (known: cin cout h w k s d p pt pb pl pr, or their aliases c_in c_out "
                 "h_in w_in k_h k_w s_h s_w d_h d_w p_h p_w p_top p_bottom p_left p_right)", n, item);
    return NULL;
}

/* Read the items of spec into *fs: 0, or -1 with err. */
static int read_items(const char *spec, fields *fs, char err[RIP_ERR_LEN])
{
    const char *item = spec;
    for (;;) {
        const char *comma = strchr(item, ',');
        const char *end = comma ? comma : item + strlen(item);
        const char *eq = memchr(item, '=', (size_t)(end - item));
        const key *k = find_key(spec, item, (int)((eq ? eq : end) - item), err);
        if (k == NULL)
            return -1;
        if (eq == NULL) {
            snprintf(err, RIP_ERR_LEN, "%s: missing '=value'", k->name);
            return -1;
        }
        const char *v = eq + 1;
        const char *x = k->b >= 0 ? memchr(v, 'x', (size_t)(end - v)) : NULL;
        int64_t a = 0, b = 0;
        int rc = parse_int(v, x ? x : end, &a);
        if (rc == 0 && x)
            rc = parse_int(x + 1, end, &b);
        else
            b = a;
        if (rc != 0)
            return bad_value(err, k->name, v, end, rc, k->b >= 0);
        if (set_field(fs, k->a, a, k->name, err) != 0 || (k->b >= 0 && set_field(fs, k->b, b, k->name, err) != 0))
            return -1;
        if (!comma)
            return 0;
        item = comma + 1;
    }
}

/* rip_spec_parse without the clean-up of its message. */
static int parse(const char *spec, rip_layer *L, char err[RIP_ERR_LEN])
{
    fields fs = {{0}, {NULL}};
    if (spec == NULL || *spec == '\0') {
        snprintf(err, RIP_ERR_LEN, "spec: empty layer SPEC");
        return -1;
    }
    if (read_items(spec, &fs, err) != 0)
        return -1;
    static const struct { int f; const char *name; } required[] = {
        {F_CIN, "cin"}, {F_COUT, "cout"}, {F_H, "h"}, {F_KH, "k"}};
    for (size_t i = 0; i < sizeof required / sizeof required[0]; i++)
        if (!fs.by[required[i].f]) {
            snprintf(err, RIP_ERR_LEN, "%s: required key missing", required[i].name);
            return -1;
        }
    /* a width defaults to its height; strides and dilations to 1, padding to 0 */
#define GET(f, dflt) (fs.by[f] ? fs.v[f] : (dflt))
    rip_layer l = {0};
    l.cin = fs.v[F_CIN];
    l.cout = fs.v[F_COUT];
    l.h_in = fs.v[F_H];
    l.w_in = GET(F_W, l.h_in);
    l.k_h = fs.v[F_KH];
    l.k_w = GET(F_KW, l.k_h);
    l.s_h = GET(F_SH, 1);
    l.s_w = GET(F_SW, l.s_h);
    l.d_h = GET(F_DH, 1);
    l.d_w = GET(F_DW, l.d_h);
    int64_t pv = GET(F_PV, 0), ph = GET(F_PH, pv);
    l.p_top = GET(F_PT, pv);
    l.p_bottom = GET(F_PB, pv);
    l.p_left = GET(F_PL, ph);
    l.p_right = GET(F_PR, ph);
#undef GET
    if (rip_layer_derive(&l, err) != 0)
        return -1;
    *L = l;
    return 0;
}

int rip_spec_parse(const char *spec, rip_layer *L, char err[RIP_ERR_LEN])
{
    int rc = parse(spec, L, err);
    /* Messages quote the user's text, and a shell word may hold a newline or
    ** other control bytes: the message must stay one printable line (found by
    ** tests/fuzz/fuzz_spec). */
    if (rc != 0)
        rip_err_one_line(err);
    return rc;
}

static void pair(char *buf, size_t len, int64_t x, int64_t y)
{
    if (x == y)
        snprintf(buf, len, "%lld", (long long)x);
    else
        snprintf(buf, len, "%lldx%lld", (long long)x, (long long)y);
}

void rip_spec_format(const rip_layer *L, char *buf, size_t len)
{
    char k[48], s[48], d[48], p[100];
    pair(k, sizeof k, L->k_h, L->k_w);
    pair(s, sizeof s, L->s_h, L->s_w);
    pair(d, sizeof d, L->d_h, L->d_w);
    if (L->p_top == L->p_bottom && L->p_left == L->p_right) {
        memcpy(p, "p=", 3);
        pair(p + 2, sizeof p - 2, L->p_top, L->p_left);
    }
    else
        snprintf(p, sizeof p, "pt=%lld,pb=%lld,pl=%lld,pr=%lld", (long long)L->p_top,
                 (long long)L->p_bottom, (long long)L->p_left, (long long)L->p_right);
    snprintf(buf, len, "cin=%lld,cout=%lld,h=%lld,w=%lld,k=%s,s=%s,d=%s,%s",
             (long long)L->cin, (long long)L->cout, (long long)L->h_in, (long long)L->w_in,
             k, s, d, p);
}
