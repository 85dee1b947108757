/*
** deployment.c — read and write results/deployment.json (deployment.h): a
** small strict JSON reader for flat objects, and the canonical writer.
** A record must agree with itself (a run needs a fit and has a checksum)
** and, read from the tools' lines, with its model.json (the arena planned,
** the reference checksum), or it is refused naming it.
*/
#include "deployment.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define MAX_BYTES (16 * 1024 * 1024) /* far above 44 records with per-op counts */

typedef struct cursor {
    const char *s, *path;
    size_t i, n;
    int64_t line;
    char *err;
} cursor;

/* A JSON value of the accepted subset. */
typedef enum { V_NULL, V_BOOL, V_INT, V_STR, V_ARRAY } vkind;
typedef struct value {
    vkind kind;
    int64_t i;          /* V_INT, V_BOOL (0/1) */
    char str[128];      /* V_STR */
    int64_t *arr;       /* V_ARRAY (integers), n_arr of them; owned */
    size_t n_arr;
} value;

static rip_status fail(cursor *c, const char *key, const char *what)
{
    snprintf(c->err, RIP_ERR_LEN, "%.300s:%lld: %.60s: %.120s", c->path, (long long)c->line, key ? key : "json",
             what);
    return RIP_S_DATA;
}

static void skip_ws(cursor *c)
{
    while (c->i < c->n && strchr(" \t\r\n", c->s[c->i]) && c->s[c->i] != '\0') {
        if (c->s[c->i] == '\n')
            c->line++;
        c->i++;
    }
}

static bool eat(cursor *c, char ch)
{
    skip_ws(c);
    if (c->i < c->n && c->s[c->i] == ch) {
        c->i++;
        return true;
    }
    return false;
}

/* A string into out (at most cap - 1 bytes).  RIP_OK or RIP_S_DATA. */
static rip_status parse_string(cursor *c, const char *key, char *out, size_t cap)
{
    if (!eat(c, '"'))
        return fail(c, key, "expected a string");
    size_t k = 0;
    while (c->i < c->n && c->s[c->i] != '"') {
        unsigned char ch = (unsigned char)c->s[c->i];
        if (ch == '\\' || ch < 0x20 || ch > 0x7e)
            return fail(c, key, "string with an escape or a non-printable byte (not accepted)");
        if (k + 1 >= cap)
            return fail(c, key, "string too long");
        out[k++] = (char)ch;
        c->i++;
    }
    if (c->i >= c->n)
        return fail(c, key, "unterminated string");
    c->i++;
    out[k] = '\0';
    return RIP_OK;
}

/* An integer into *v; frac_ok also takes (and drops) a fraction and an
** exponent: the value of a key that is being skipped. */
static rip_status parse_int(cursor *c, const char *key, bool frac_ok, int64_t *v)
{
    skip_ws(c);
    size_t j = c->i;
    bool neg = j < c->n && c->s[j] == '-';
    j += neg;
    if (j >= c->n || c->s[j] < '0' || c->s[j] > '9')
        return fail(c, key, "expected a number");
    if (c->s[j] == '0' && j + 1 < c->n && c->s[j + 1] >= '0' && c->s[j + 1] <= '9')
        return fail(c, key, "number with a leading zero");
    int64_t x = 0;
    for (; j < c->n && c->s[j] >= '0' && c->s[j] <= '9'; j++) {
        if (x > (INT64_MAX - (c->s[j] - '0')) / 10)
            return fail(c, key, "number out of range");
        x = 10 * x + (c->s[j] - '0');
    }
    if (frac_ok && j < c->n && c->s[j] == '.')
        for (j++; j < c->n && c->s[j] >= '0' && c->s[j] <= '9'; j++)
            ;
    if (frac_ok && j < c->n && (c->s[j] == 'e' || c->s[j] == 'E')) {
        j += j + 1 < c->n && (c->s[j + 1] == '+' || c->s[j + 1] == '-');
        for (j++; j < c->n && c->s[j] >= '0' && c->s[j] <= '9'; j++)
            ;
    }
    if (j < c->n && strchr(".eE", c->s[j]) && c->s[j] != '\0')
        return fail(c, key, "expected an integer");
    c->i = j;
    *v = neg ? -x : x;
    return RIP_OK;
}

static bool word(cursor *c, const char *w)
{
    size_t k = strlen(w);
    if (c->n - c->i >= k && memcmp(c->s + c->i, w, k) == 0) {
        c->i += k;
        return true;
    }
    return false;
}

/* One value; an array is owned by v (free v->arr). */
static rip_status parse_value(cursor *c, const char *key, bool frac_ok, value *v)
{
    memset(v, 0, sizeof *v);
    skip_ws(c);
    if (c->i >= c->n)
        return fail(c, key, "expected a value, found the end");
    char ch = c->s[c->i];
    if (ch == '"') {
        v->kind = V_STR;
        return parse_string(c, key, v->str, sizeof v->str);
    }
    if (word(c, "null")) {
        v->kind = V_NULL;
        return RIP_OK;
    }
    if (word(c, "true") || word(c, "false")) {
        v->kind = V_BOOL;
        v->i = c->s[c->i - 1] == 'e' && c->s[c->i - 2] == 'u';
        return RIP_OK;
    }
    if (ch == '[') {
        c->i++;
        v->kind = V_ARRAY;
        size_t cap = 0;
        if (eat(c, ']'))
            return RIP_OK;
        do {
            int64_t x;
            rip_status s = parse_int(c, key, frac_ok, &x);
            if (s != RIP_OK)
                return s;
            if (v->n_arr == cap) {
                cap = cap ? 2 * cap : 64;
                int64_t *a = realloc(v->arr, cap * sizeof *a);
                if (!a) {
                    snprintf(c->err, RIP_ERR_LEN, "out of memory reading %.400s", c->path);
                    return RIP_S_NOMEM;
                }
                v->arr = a;
            }
            v->arr[v->n_arr++] = x;
        } while (eat(c, ','));
        return eat(c, ']') ? RIP_OK : fail(c, key, "expected ',' or ']' in an array of integers");
    }
    v->kind = V_INT;
    return parse_int(c, key, frac_ok, &v->i);
}

static const char *const keys[] = {"model", "plan", "target", "arena_bytes", "scratch_bytes", "ram_bytes",
                                   "fits", "ran", "checksum", "instructions", "op_instructions",
                                   "tool", "version"};
enum { K_MODEL, K_PLAN, K_TARGET, K_ARENA, K_SCRATCH, K_RAM, K_FITS, K_RAN, K_SUM, K_INSTR, K_OPS,
       K_TOOL, K_VERSION, N_KEYS };
#define TOOL_KEYS (1u << K_TOOL | 1u << K_VERSION)

static bool one_of(const char *s, const char *const *set)
{
    for (; *set; set++)
        if (strcmp(s, *set) == 0)
            return true;
    return false;
}

/* Store value v of key k into r (a tool object's keys into t); checks its type and range. */
static rip_status store(cursor *c, int k, value *v, rip_deploy_rec *r, rip_deploy_tool *t)
{
    static const char *const plans[] = {"base", "rip", NULL};
    static const char *const targets[] = {"qemu-m0", "qemu-m33", "pico", "pico2", NULL};
    bool null_ok = k == K_RAM || k == K_FITS || k == K_RAN || k == K_SUM || k == K_INSTR || k == K_OPS;
    if (v->kind == V_NULL) {
        if (!null_ok)
            return fail(c, keys[k], "may not be null");
        if (k == K_RAM || k == K_SUM || k == K_INSTR)
            *(k == K_RAM ? &r->ram_bytes : k == K_SUM ? &r->checksum : &r->instructions) = -1;
        else if (k == K_FITS || k == K_RAN)
            *(k == K_FITS ? &r->fits : &r->ran) = -1;
        return RIP_OK;
    }
    switch (k) {
    case K_TOOL: case K_VERSION:
        if (v->kind != V_STR || v->str[0] == '\0')
            return fail(c, keys[k], "expected a non-empty string");
        if (strlen(v->str) >= (k == K_TOOL ? sizeof t->name : sizeof t->version))
            return fail(c, keys[k], "string too long");
        strcpy(k == K_TOOL ? t->name : t->version, v->str);
        return RIP_OK;
    case K_MODEL: case K_PLAN: case K_TARGET:
        if (v->kind != V_STR || v->str[0] == '\0')
            return fail(c, keys[k], "expected a non-empty string");
        if (k == K_PLAN && !one_of(v->str, plans))
            return fail(c, keys[k], "expected \"base\" or \"rip\"");
        if (k == K_TARGET && !one_of(v->str, targets))
            return fail(c, keys[k], "expected qemu-m0, qemu-m33, pico or pico2");
        if (strlen(v->str) >= (k == K_MODEL ? sizeof r->model : k == K_PLAN ? sizeof r->plan : sizeof r->target))
            return fail(c, keys[k], "string too long");
        strcpy(k == K_MODEL ? r->model : k == K_PLAN ? r->plan : r->target, v->str);
        return RIP_OK;
    case K_FITS: case K_RAN:
        if (v->kind != V_BOOL)
            return fail(c, keys[k], "expected true, false or null");
        *(k == K_FITS ? &r->fits : &r->ran) = (int)v->i;
        return RIP_OK;
    case K_SUM: {
        if (v->kind != V_STR || strlen(v->str) != 8 || strspn(v->str, "0123456789abcdef") != 8)
            return fail(c, keys[k], "expected 8 lowercase hex digits or null");
        r->checksum = (int64_t)strtoul(v->str, NULL, 16);
        return RIP_OK;
    }
    case K_OPS:
        if (v->kind != V_ARRAY)
            return fail(c, keys[k], "expected an array of integers or null");
        for (size_t j = 0; j < v->n_arr; j++)
            if (v->arr[j] < 0)
                return fail(c, keys[k], "negative count");
        r->ops = v->arr;
        r->n_ops = v->n_arr;
        v->arr = NULL;
        return RIP_OK;
    default:
        if (v->kind != V_INT || v->i < 0)
            return fail(c, keys[k], "expected an integer >= 0");
        *(k == K_ARENA ? &r->arena_bytes : k == K_SCRATCH ? &r->scratch_bytes
          : k == K_RAM ? &r->ram_bytes : &r->instructions) = v->i;
        return RIP_OK;
    }
}

/* One object into r (a tool object's keys into t); *seen marks the keys
** found (bit per key).  Unknown keys: an error when strict, else skipped. */
static rip_status parse_object(cursor *c, bool strict, rip_deploy_rec *r, rip_deploy_tool *t, unsigned *seen)
{
    memset(r, 0, sizeof *r);
    memset(t, 0, sizeof *t);
    r->ram_bytes = r->checksum = r->instructions = -1;
    r->fits = r->ran = -1;
    *seen = 0;
    if (!eat(c, '{'))
        return fail(c, NULL, "expected '{'");
    if (eat(c, '}'))
        return RIP_OK;
    rip_status s = RIP_OK;
    do {
        char key[64];
        value v;
        if ((s = parse_string(c, NULL, key, sizeof key)) != RIP_OK)
            return s;
        if (!eat(c, ':'))
            return fail(c, key, "expected ':'");
        int k = 0;
        while (k < N_KEYS && strcmp(key, keys[k]) != 0)
            k++;
        if ((s = parse_value(c, key, !strict && k == N_KEYS, &v)) != RIP_OK) {
            free(v.arr);
            return s;
        }
        if (k < N_KEYS && (*seen >> k & 1u))
            s = fail(c, key, "given twice");
        else if (k < N_KEYS) {
            *seen |= 1u << k;
            s = store(c, k, &v, r, t);
        } else if (strict)
            s = fail(c, key, "unknown key");
        free(v.arr);
        if (s != RIP_OK)
            return s;
    } while (eat(c, ','));
    return eat(c, '}') ? RIP_OK : fail(c, NULL, "expected ',' or '}'");
}

static int cmp_rec(const void *a, const void *b)
{
    const rip_deploy_rec *x = a, *y = b;
    int d = strcmp(x->model, y->model);
    if (!d)
        d = strcmp(x->plan, y->plan);
    return d ? d : strcmp(x->target, y->target);
}

/* The whole of path into a NUL-terminated buffer. */
static rip_status slurp(const char *path, char **buf, size_t *len, char err[RIP_ERR_LEN])
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, RIP_ERR_LEN, "%.400s: cannot open: %s", path, strerror(errno));
        return RIP_S_NOINPUT;
    }
    rip_status s = RIP_OK;
    char *b = malloc(MAX_BYTES + 1);
    size_t n = b ? fread(b, 1, MAX_BYTES + 1, f) : 0;
    if (!b) {
        snprintf(err, RIP_ERR_LEN, "out of memory reading %.400s", path);
        s = RIP_S_NOMEM;
    } else if (ferror(f)) {
        snprintf(err, RIP_ERR_LEN, "%.400s: read error", path);
        s = RIP_S_NOINPUT;
    } else if (n > MAX_BYTES) {
        snprintf(err, RIP_ERR_LEN, "%.400s: larger than %d bytes", path, MAX_BYTES);
        s = RIP_S_DATA;
    } else if (memchr(b, '\0', n)) {
        snprintf(err, RIP_ERR_LEN, "%.400s: contains a NUL byte", path);
        s = RIP_S_DATA;
    }
    fclose(f);
    if (s != RIP_OK) {
        free(b);
        return s;
    }
    b[n] = '\0';
    *buf = b;
    *len = n;
    return RIP_OK;
}

/* "PATH: MODEL PLAN TARGET: what" for a record that contradicts itself or its model; RIP_S_DATA. */
static rip_status contradicts(const char *path, const rip_deploy_rec *r, const char *what, char err[RIP_ERR_LEN])
{
    snprintf(err, RIP_ERR_LEN, "%.250s: %s %s %s: %.120s", path, r->model, r->plan, r->target, what);
    return RIP_S_DATA;
}

/* A record's own facts agree: a run needs a fit, and a checksum is a run's (null exactly when not run). */
static rip_status check_record(const char *path, const rip_deploy_rec *r, char err[RIP_ERR_LEN])
{
    if (r->ran == 1 && r->fits == 0)
        return contradicts(path, r, "ran true but fits false (an image that does not fit cannot run)", err);
    if (r->ran == 1 && r->checksum < 0)
        return contradicts(path, r, "ran true but no checksum (a run prints its logits' CRC-32)", err);
    if (r->ran != 1 && r->checksum >= 0)
        return contradicts(path, r, r->ran == 0 ? "a checksum but ran false" : "a checksum but ran null", err);
    return RIP_OK;
}

/*
** A record against its model.json (info, seen: the keys it gave): the
** arena the generator planned, and, for a run, the generator's reference
** checksum of the logits, when model.json gives one.
*/
static rip_status check_against_model(const char *path, const rip_deploy_rec *r, const rip_deploy_rec *info,
                                      unsigned seen, char err[RIP_ERR_LEN])
{
    char what[200];
    if ((seen >> K_ARENA & 1u) && r->arena_bytes != info->arena_bytes) {
        snprintf(what, sizeof what, "arena_bytes %lld, its model.json %lld", (long long)r->arena_bytes,
                 (long long)info->arena_bytes);
        return contradicts(path, r, what, err);
    }
    if ((seen >> K_SUM & 1u) && info->checksum >= 0 && r->ran == 1 && r->checksum != info->checksum) {
        snprintf(what, sizeof what, "checksum %08lx, the reference of its model.json %08lx (wrong logits)",
                 (unsigned long)r->checksum, (unsigned long)info->checksum);
        return contradicts(path, r, what, err);
    }
    return RIP_OK;
}

/*
** Add tool object t (keys seen) to d.  It has exactly "tool" and "version";
** a tool repeats only in the lines (every build prints its own) and only
** with the same version.  RIP_OK; RIP_S_DATA (err, at line); RIP_S_NOMEM.
*/
static rip_status add_tool(cursor *c, int64_t line, bool lines, unsigned seen, const rip_deploy_tool *t,
                           rip_deployment *d)
{
    c->line = line;
    if (seen != TOOL_KEYS)
        return fail(c, "tool", "a tool object has exactly the keys tool and version");
    for (size_t j = 0; j < d->n_tools; j++)
        if (strcmp(d->tools[j].name, t->name) == 0) {
            if (lines && strcmp(d->tools[j].version, t->version) == 0)
                return RIP_OK;
            return fail(c, "tool", lines ? "given again with another version" : "given twice");
        }
    rip_deploy_tool *nt = realloc(d->tools, (d->n_tools + 1) * sizeof *nt);
    if (!nt) {
        snprintf(c->err, RIP_ERR_LEN, "out of memory reading %.400s", c->path);
        return RIP_S_NOMEM;
    }
    d->tools = nt;
    d->tools[d->n_tools++] = *t;
    return RIP_OK;
}

static int cmp_tool(const void *a, const void *b)
{
    return strcmp(((const rip_deploy_tool *)a)->name, ((const rip_deploy_tool *)b)->name);
}

/* The model.json objects of the lines (model, plan, scratch, arena,
** checksum), with the keys each gave. */
typedef struct info_list {
    rip_deploy_rec *rec;
    unsigned *seen;
    size_t n;
} info_list;

/* Keep model.json object r (keys seen, read at line) in in.  RIP_OK;
** RIP_S_DATA (err, at line); RIP_S_NOMEM. */
static rip_status add_info(cursor *c, int64_t line, unsigned seen, const rip_deploy_rec *r, info_list *in)
{
    const unsigned need_info = 1u << K_MODEL | 1u << K_PLAN | 1u << K_SCRATCH;
    if ((seen & need_info) != need_info) {
        c->line = line;
        return fail(c, "scratch_bytes", "an object without target needs model, plan and scratch_bytes");
    }
    rip_deploy_rec *ni = realloc(in->rec, (in->n + 1) * sizeof *ni);
    if (ni)
        in->rec = ni;
    unsigned *ns = ni ? realloc(in->seen, (in->n + 1) * sizeof *ns) : NULL;
    if (!ns) {
        snprintf(c->err, RIP_ERR_LEN, "out of memory reading %.400s", c->path);
        return RIP_S_NOMEM;
    }
    in->seen = ns;
    in->seen[in->n] = seen;
    in->rec[in->n++] = r[0];
    return RIP_OK;
}

/* Add record r (keys seen, read at line) to d (*cap records allocated);
** r's ops are d's then, or freed.  RIP_OK; RIP_S_DATA (err); RIP_S_NOMEM. */
static rip_status add_record(cursor *c, int64_t line, bool lines, unsigned seen, rip_deploy_rec *r,
                             rip_deployment *d, size_t *cap)
{
    const unsigned need = (1u << K_OPS) - 1;
    rip_status s = RIP_OK;
    unsigned want = need & ~(lines ? 1u << K_SCRATCH : 0u);
    if ((seen & want) != want) {
        int k = 0;
        while (seen >> k & 1u)
            k++;
        c->line = line;
        s = fail(c, keys[k], "missing");
    }
    if (s == RIP_OK && d->n == *cap) {
        *cap = *cap ? 2 * *cap : 64;
        rip_deploy_rec *nr = realloc(d->rec, *cap * sizeof *nr);
        if (!nr) {
            s = RIP_S_NOMEM;
            snprintf(c->err, RIP_ERR_LEN, "out of memory reading %.400s", c->path);
        } else
            d->rec = nr;
    }
    if (s == RIP_OK)
        s = check_record(c->path, r, c->err);
    if (s != RIP_OK) {
        free(r->ops);
        return s;
    }
    d->rec[d->n++] = *r;
    return RIP_OK;
}

/* Read the next object: a tool, (lines) a model.json or a record, into d
** or in (*cap records of d allocated). */
static rip_status read_object(cursor *c, bool lines, rip_deployment *d, info_list *in, size_t *cap)
{
    rip_deploy_rec r;
    rip_deploy_tool t;
    unsigned seen;
    int64_t line = (skip_ws(c), c->line);
    rip_status s = parse_object(c, !lines, &r, &t, &seen);
    if (s == RIP_OK && (seen & TOOL_KEYS)) {
        free(r.ops);
        return add_tool(c, line, lines, seen, &t, d);
    }
    if (s == RIP_OK && lines && !(seen >> K_TARGET & 1u)) { /* a model.json */
        free(r.ops);
        return add_info(c, line, seen, &r, in);
    }
    if (s != RIP_OK) {
        free(r.ops);
        return s;
    }
    return add_record(c, line, lines, seen, &r, d, cap);
}

/* Read every object of the array (or of the lines) and the end of the text. */
static rip_status read_objects(cursor *c, bool lines, rip_deployment *d, info_list *in)
{
    rip_status s = RIP_OK;
    size_t cap = 0;
    if (!lines && !eat(c, '['))
        s = fail(c, NULL, "expected '[' (an array of records)");
    bool first = true;
    while (s == RIP_OK) {
        skip_ws(c);
        if (lines ? c->i >= c->n : eat(c, ']'))
            break;
        if (!lines && !first && !eat(c, ',')) {
            s = fail(c, NULL, "expected ',' or ']'");
            break;
        }
        first = false;
        s = read_object(c, lines, d, in, &cap);
    }
    if (s == RIP_OK && !lines) {
        skip_ws(c);
        if (c->i < c->n)
            s = fail(c, NULL, "text after the array");
    }
    return s;
}

/* Lines: give each record its model.json's scratch_bytes and check it against that model.json. */
static rip_status match_models(const char *path, rip_deployment *d, const info_list *in, char err[RIP_ERR_LEN])
{
    rip_status s = RIP_OK;
    for (size_t j = 0; s == RIP_OK && j < d->n; j++) {
        size_t m = 0;
        while (m < in->n && !(strcmp(in->rec[m].model, d->rec[j].model) == 0 &&
                              strcmp(in->rec[m].plan, d->rec[j].plan) == 0))
            m++;
        if (m == in->n) {
            snprintf(err, RIP_ERR_LEN, "%.300s: scratch_bytes: no model.json object for %s %s", path,
                     d->rec[j].model, d->rec[j].plan);
            s = RIP_S_DATA;
        } else {
            d->rec[j].scratch_bytes = in->rec[m].scratch_bytes;
            s = check_against_model(path, &d->rec[j], &in->rec[m], in->seen[m], err);
        }
    }
    return s;
}

/* Sort the tools and the records; a record given twice is refused. */
static rip_status sort_unique(const char *path, rip_deployment *d, char err[RIP_ERR_LEN])
{
    rip_status s = RIP_OK;
    if (d->n_tools > 0)
        qsort(d->tools, d->n_tools, sizeof *d->tools, cmp_tool);
    if (d->n > 0) {
        qsort(d->rec, d->n, sizeof *d->rec, cmp_rec);
        for (size_t j = 1; j < d->n && s == RIP_OK; j++)
            if (cmp_rec(&d->rec[j - 1], &d->rec[j]) == 0) {
                snprintf(err, RIP_ERR_LEN, "%.300s: target: %s %s %s given twice", path, d->rec[j].model,
                         d->rec[j].plan, d->rec[j].target);
                s = RIP_S_DATA;
            }
    }
    return s;
}

/* Contract (deployment.h).  One cleanup path: the text, the model.json objects, and d on failure. */
rip_status rip_deploy_read(const char *path, bool lines, rip_deployment *d, char err[RIP_ERR_LEN])
{
    memset(d, 0, sizeof *d);
    char *buf = NULL;
    size_t len = 0;
    info_list in = {NULL, NULL, 0};
    rip_status s = slurp(path, &buf, &len, err);
    if (s != RIP_OK)
        return s;
    cursor c = {buf, path, 0, len, 1, err};
    s = read_objects(&c, lines, d, &in);
    if (s == RIP_OK && lines)
        s = match_models(path, d, &in, err);
    if (s == RIP_OK)
        s = sort_unique(path, d, err);
    free(in.rec);
    free(in.seen);
    free(buf);
    if (s != RIP_OK)
        rip_deploy_free(d);
    return s;
}

static void put_opt(FILE *o, const char *key, int64_t v)
{
    if (v < 0)
        fprintf(o, ", \"%s\": null", key);
    else
        fprintf(o, ", \"%s\": %lld", key, (long long)v);
}

static const char *tri(int v) { return v < 0 ? "null" : v ? "true" : "false"; }

void rip_deploy_write(FILE *o, const rip_deployment *d)
{
    fputs("[\n", o);
    for (size_t j = 0; j < d->n_tools; j++)
        fprintf(o, "{\"tool\": \"%s\", \"version\": \"%s\"}%s\n", d->tools[j].name, d->tools[j].version,
                j + 1 < d->n_tools || d->n > 0 ? "," : "");
    for (size_t j = 0; j < d->n; j++) {
        const rip_deploy_rec *r = &d->rec[j];
        fprintf(o, "{\"model\": \"%s\", \"plan\": \"%s\", \"target\": \"%s\", \"arena_bytes\": %lld, "
                   "\"scratch_bytes\": %lld",
                r->model, r->plan, r->target, (long long)r->arena_bytes, (long long)r->scratch_bytes);
        put_opt(o, "ram_bytes", r->ram_bytes);
        fprintf(o, ", \"fits\": %s, \"ran\": %s", tri(r->fits), tri(r->ran));
        if (r->checksum < 0)
            fputs(", \"checksum\": null", o);
        else
            fprintf(o, ", \"checksum\": \"%08lx\"", (unsigned long)r->checksum);
        put_opt(o, "instructions", r->instructions);
        if (!r->ops)
            fputs(", \"op_instructions\": null", o);
        else {
            fputs(", \"op_instructions\": [", o);
            for (size_t k = 0; k < r->n_ops; k++)
                fprintf(o, "%s%lld", k ? ", " : "", (long long)r->ops[k]);
            fputc(']', o);
        }
        fprintf(o, "}%s\n", j + 1 < d->n ? "," : "");
    }
    fputs("]\n", o);
}

const rip_deploy_rec *rip_deploy_find(const rip_deployment *d, const char *model, const char *plan,
                                      const char *target)
{
    for (size_t j = 0; d && j < d->n; j++)
        if (strcmp(d->rec[j].model, model) == 0 && strcmp(d->rec[j].plan, plan) == 0 &&
            strcmp(d->rec[j].target, target) == 0)
            return &d->rec[j];
    return NULL;
}

void rip_deploy_free(rip_deployment *d)
{
    for (size_t j = 0; j < d->n; j++)
        free(d->rec[j].ops);
    free(d->rec);
    free(d->tools);
    d->rec = NULL;
    d->tools = NULL;
    d->n = d->n_tools = 0;
}
