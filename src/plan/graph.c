/*
** graph.c — operator graphs (graph.h) and the planning problems made from
** them (plan.h): the CSV loader with its checks, tensor lifetimes, the
** in-place candidates of the RiP paper's operator classes, and raw buffer
** lists (`ripsim plan --intervals`).
**
** Loading (schema: firmware/models/README.md, Sec. 1).  The header must be
** exactly the twenty columns of the schema.  Every row is checked on its
** own first (integers, ranges, the op vocabulary, the per-op geometry:
** conv and pool output sizes against
**     h_out = (h_in + p_top + p_bottom - ((k_h-1) d_h + 1)) / s_h + 1,
** pointwise 1x1/s1/p0, channel-preserving depthwise/pool/elementwise ops,
** upsampling by s, fc to 1x1), then against the rows before it: every
** input must be -1 (the model input) or the op_id of an earlier row (a
** later one is a forward reference, i.e. a cycle in execution order), the
** first input's producer must produce exactly h_in x w_in x c_in, and a
** concat's c_out must be the sum of its inputs' channels.  Errors read
** FILE:ROW: FIELD: problem, ROW being the line number (header = 1).
** op_ids must increase down the file; an op's row index is its step.
**
** Lifetimes (inclusive, in op steps): the model input "input" from step 0
** to its last consumer; the output of the op at step i from i to the step
** of its last consumer; a graph output (no consumer) to the last step.
** Sizes are h * w * c * dtype_bytes.
**
** In-place candidates, only for an input that dies at the op (the op is its
** last consumer), following App. I "Operator classes" and the check of
** firmware/models/README.md that reproduces Tab. 3 and Tab. 7:
**   with rip:
**     conv2d, pointwise      GAP, gap = Theorem 13's dense gap (sigma = 0,
**                            gathered; or C_out with sigma_taps) x
**                            dtype_bytes, rounded up to the alignment; no
**                            candidate where Theorem 13 is undefined
**                            (padding >= k_eff);
**     elementwise ops        ALIAS with every dying input of the output's
**                            size (an add may alias either operand; the
**                            planner picks at most one per op);
**     local avg/max pool     GAP with gap 0 (App. I: alpha, beta <= 0, so
**                            W* = N_in and the output sits at or below the
**                            input); a global pool (k = input size, 1x1
**                            output) has none;
**     upsample               ALIAS (Theorem 14: both left-aligned, reverse
**                            traversal, W* = N_out);
**     concat, fc             none (always dual buffered);
**   with inplace_depthwise:
**     depthwise              ALIAS (TinyEngine's in-place depthwise).
** Limits: the pool gap 0 is the paper's argument, not simulated (the
** simulator models channel-mixing convolutions only); Theorem 13 is
** evaluated on the per-side padding of the row; mixed dtypes between an
** op's input and output are not modelled (the op's dtype_bytes is used).
*/
#include "graph.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "formulas.h"

static const char *const op_names[RIP_OP_COUNT] = {
    "conv2d", "pointwise", "depthwise", "add",     "mul",     "sub",      "logistic", "relu",
    "bn",     "hardswish", "hardsigmoid", "avgpool", "maxpool", "upsample", "concat",   "fc",
};

const char *rip_op_name(rip_op_kind k)
{
    return (unsigned)k < RIP_OP_COUNT ? op_names[k] : "?";
}

#define N_COLS 20
static const char *const graph_cols[N_COLS] = {
    "op_id", "op",  "inputs", "h_in", "w_in",  "c_in",   "h_out",    "w_out", "c_out", "k_h",
    "k_w",   "s_h", "s_w",    "p_top", "p_left", "p_bottom", "p_right", "d_h",   "d_w",   "dtype_bytes",
};

/* Largest spatial/channel extent and tensor size accepted: keeps every
** product below (and the planners' sums of sizes) far from overflow. */
#define DIM_MAX ((int64_t)1 << 24)
#define SIZE_MAX_BYTES ((int64_t)1 << 46)

/* ---- small parsing helpers ---- */

/* Strip a trailing "\n" / "\r\n". */
static void chomp(char *s)
{
    size_t n = strlen(s);
    while (n > 0 && (s[n - 1] == '\n' || s[n - 1] == '\r'))
        s[--n] = '\0';
}

static bool blank(const char *s)
{
    for (; *s; s++)
        if (*s != ' ' && *s != '\t')
            return false;
    return true;
}

/* Split s in place at `sep`; stores up to max field pointers, returns the
** number of fields found (which may exceed max). */
static int split(char *s, char sep, char **f, int max)
{
    int n = 0;
    for (;;) {
        if (n < max)
            f[n] = s;
        n++;
        char *c = strchr(s, sep);
        if (c == NULL)
            break;
        *c = '\0';
        s = c + 1;
    }
    return n;
}

/* Strict decimal integer: optional '-', digits only, in int64 range. */
static bool parse_i64(const char *s, int64_t *out)
{
    if (s == NULL || *s == '\0')
        return false;
    const char *d = *s == '-' ? s + 1 : s;
    if (*d < '0' || *d > '9')
        return false;
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (*end != '\0' || errno == ERANGE)
        return false;
    *out = (int64_t)v;
    return true;
}

/* The file's base name without directory and ".csv", for problem names. */
static void base_name(const char *path, char *out, size_t n)
{
    const char *b = strrchr(path, '/');
    b = b ? b + 1 : path;
    snprintf(out, n, "%s", b);
    size_t len = strlen(out);
    if (len > 4 && strcmp(out + len - 4, ".csv") == 0)
        out[len - 4] = '\0';
}

/* ---- the loader ---- */

static bool is_elementwise(rip_op_kind k)
{
    return k == RIP_OP_ADD || k == RIP_OP_MUL || k == RIP_OP_SUB || k == RIP_OP_LOGISTIC ||
           k == RIP_OP_RELU || k == RIP_OP_BN || k == RIP_OP_HARDSWISH || k == RIP_OP_HARDSIGMOID;
}

static bool is_pool(rip_op_kind k)
{
    return k == RIP_OP_AVGPOOL || k == RIP_OP_MAXPOOL;
}

static bool is_global_pool(const rip_op *op)
{
    return is_pool(op->kind) && op->k_h == op->h_in && op->k_w == op->w_in && op->h_out == 1 &&
           op->w_out == 1;
}

/* Output extent of one axis by the schema's formula; < 1 if none. */
static int64_t out_extent(int64_t in, int64_t pa, int64_t pb, int64_t k, int64_t d, int64_t s)
{
    int64_t num = in + pa + pb - ((k - 1) * d + 1);
    if (num < 0)
        return 0;
    return num / s + 1;
}

/*
** Parse the fields of one data row into *op and check what the row says on
** its own.  fname/row name the row in err.  Returns 0 or RIP_EX_DATAERR.
*/
static int parse_row(char **f, const char *fname, int64_t row, rip_op *op, char err[RIP_ERR_LEN])
{
    memset(op, 0, sizeof *op);
    if (!parse_i64(f[0], &op->id) || op->id < 0) {
        snprintf(err, RIP_ERR_LEN, "%s:%lld: op_id: '%s' is not a non-negative integer", fname,
                 (long long)row, f[0]);
        return RIP_EX_DATAERR;
    }
    int kind = -1;
    for (int k = 0; k < RIP_OP_COUNT; k++)
        if (strcmp(f[1], op_names[k]) == 0)
            kind = k;
    if (kind < 0) {
        snprintf(err, RIP_ERR_LEN,
                 "%s:%lld: op: unknown op '%s' (known: conv2d pointwise depthwise add mul sub logistic relu "
                 "bn hardswish hardsigmoid avgpool maxpool upsample concat fc)",
                 fname, (long long)row, f[1]);
        return RIP_EX_DATAERR;
    }
    op->kind = (rip_op_kind)kind;

    /* inputs: ';'-separated ids, copied because split() writes into it */
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", f[2]);
    char *in[RIP_OP_MAX_INPUTS + 1];
    int n_in = split(buf, ';', in, RIP_OP_MAX_INPUTS + 1);
    if (n_in > RIP_OP_MAX_INPUTS) {
        snprintf(err, RIP_ERR_LEN, "%s:%lld: inputs: %d inputs, at most %d are supported", fname,
                 (long long)row, n_in, RIP_OP_MAX_INPUTS);
        return RIP_EX_DATAERR;
    }
    for (int i = 0; i < n_in; i++) {
        if (!parse_i64(in[i], &op->inputs[i]) || op->inputs[i] < -1) {
            snprintf(err, RIP_ERR_LEN, "%s:%lld: inputs: '%s' is not an op_id or -1", fname, (long long)row,
                     in[i]);
            return RIP_EX_DATAERR;
        }
    }
    op->n_inputs = n_in;

    int64_t *num[N_COLS - 3] = {&op->h_in, &op->w_in,  &op->c_in,  &op->h_out,    &op->w_out,   &op->c_out,
                                &op->k_h,  &op->k_w,   &op->s_h,   &op->s_w,      &op->p_top,   &op->p_left,
                                &op->p_bottom, &op->p_right, &op->d_h, &op->d_w, &op->dtype_bytes};
    for (int c = 3; c < N_COLS; c++) {
        int64_t v;
        bool pad = c >= 13 && c <= 16;
        if (!parse_i64(f[c], &v)) {
            snprintf(err, RIP_ERR_LEN, "%s:%lld: %s: '%s' is not an integer", fname, (long long)row,
                     graph_cols[c], f[c]);
            return RIP_EX_DATAERR;
        }
        if (v < (pad ? 0 : 1) || v > DIM_MAX) {
            snprintf(err, RIP_ERR_LEN, "%s:%lld: %s: %lld is out of range [%d, %lld]", fname, (long long)row,
                     graph_cols[c], (long long)v, pad ? 0 : 1, (long long)DIM_MAX);
            return RIP_EX_DATAERR;
        }
        *num[c - 3] = v;
    }
    if (op->dtype_bytes > 16) {
        snprintf(err, RIP_ERR_LEN, "%s:%lld: dtype_bytes: %lld is out of range [1, 16]", fname, (long long)row,
                 (long long)op->dtype_bytes);
        return RIP_EX_DATAERR;
    }
    /* sizes: each factor <= 2^24, checked pairwise so the product cannot wrap */
    const int64_t sz[2][3] = {{op->h_in, op->w_in, op->c_in}, {op->h_out, op->w_out, op->c_out}};
    for (int s = 0; s < 2; s++) {
        int64_t hw = sz[s][0] * sz[s][1];
        if (hw > SIZE_MAX_BYTES / sz[s][2] || hw * sz[s][2] > SIZE_MAX_BYTES / op->dtype_bytes) {
            snprintf(err, RIP_ERR_LEN, "%s:%lld: %s: tensor %lldx%lldx%lld is too large", fname,
                     (long long)row, s ? "c_out" : "c_in", (long long)sz[s][0], (long long)sz[s][1],
                     (long long)sz[s][2]);
            return RIP_EX_DATAERR;
        }
    }

    /* per-op geometry */
    const char *name = op_names[op->kind];
    bool conv_like = op->kind == RIP_OP_CONV2D || op->kind == RIP_OP_POINTWISE ||
                     op->kind == RIP_OP_DEPTHWISE || is_pool(op->kind);
    if (conv_like) {
        int64_t ho = out_extent(op->h_in, op->p_top, op->p_bottom, op->k_h, op->d_h, op->s_h);
        int64_t wo = out_extent(op->w_in, op->p_left, op->p_right, op->k_w, op->d_w, op->s_w);
        if (ho != op->h_out) {
            snprintf(err, RIP_ERR_LEN,
                     "%s:%lld: h_out: %lld, but (h_in + p_top + p_bottom - ((k_h-1)*d_h+1)) / s_h + 1 = %lld",
                     fname, (long long)row, (long long)op->h_out, (long long)ho);
            return RIP_EX_DATAERR;
        }
        if (wo != op->w_out) {
            snprintf(err, RIP_ERR_LEN,
                     "%s:%lld: w_out: %lld, but (w_in + p_left + p_right - ((k_w-1)*d_w+1)) / s_w + 1 = %lld",
                     fname, (long long)row, (long long)op->w_out, (long long)wo);
            return RIP_EX_DATAERR;
        }
    }
    if (op->kind == RIP_OP_POINTWISE &&
        (op->k_h != 1 || op->k_w != 1 || op->s_h != 1 || op->s_w != 1 || op->p_top || op->p_left ||
         op->p_bottom || op->p_right)) {
        snprintf(err, RIP_ERR_LEN, "%s:%lld: k_h: pointwise must be 1x1, stride 1, no padding (use conv2d)",
                 fname, (long long)row);
        return RIP_EX_DATAERR;
    }
    if ((op->kind == RIP_OP_DEPTHWISE || is_pool(op->kind) || is_elementwise(op->kind) ||
         op->kind == RIP_OP_UPSAMPLE) &&
        op->c_out != op->c_in) {
        snprintf(err, RIP_ERR_LEN, "%s:%lld: c_out: %s keeps the channels, but c_in %lld != c_out %lld", fname,
                 (long long)row, name, (long long)op->c_in, (long long)op->c_out);
        return RIP_EX_DATAERR;
    }
    if ((is_elementwise(op->kind) || op->kind == RIP_OP_CONCAT) &&
        (op->h_out != op->h_in || op->w_out != op->w_in)) {
        snprintf(err, RIP_ERR_LEN, "%s:%lld: h_out: %s keeps the spatial size, but %lldx%lld -> %lldx%lld",
                 fname, (long long)row, name, (long long)op->h_in, (long long)op->w_in, (long long)op->h_out,
                 (long long)op->w_out);
        return RIP_EX_DATAERR;
    }
    if (op->kind == RIP_OP_UPSAMPLE && (op->h_out != op->h_in * op->s_h || op->w_out != op->w_in * op->s_w)) {
        snprintf(err, RIP_ERR_LEN, "%s:%lld: h_out: upsample by s_h x s_w = %lldx%lld of %lldx%lld is not %lldx%lld",
                 fname, (long long)row, (long long)op->s_h, (long long)op->s_w, (long long)op->h_in,
                 (long long)op->w_in, (long long)op->h_out, (long long)op->w_out);
        return RIP_EX_DATAERR;
    }
    if (op->kind == RIP_OP_FC && (op->h_out != 1 || op->w_out != 1)) {
        snprintf(err, RIP_ERR_LEN, "%s:%lld: h_out: fc produces 1x1xc_out, not %lldx%lld", fname, (long long)row,
                 (long long)op->h_out, (long long)op->w_out);
        return RIP_EX_DATAERR;
    }
    bool single = op->kind == RIP_OP_CONV2D || op->kind == RIP_OP_POINTWISE || op->kind == RIP_OP_DEPTHWISE ||
                  is_pool(op->kind) || op->kind == RIP_OP_UPSAMPLE || op->kind == RIP_OP_FC ||
                  op->kind == RIP_OP_LOGISTIC || op->kind == RIP_OP_RELU || op->kind == RIP_OP_BN ||
                  op->kind == RIP_OP_HARDSWISH || op->kind == RIP_OP_HARDSIGMOID;
    if (single && op->n_inputs != 1) {
        snprintf(err, RIP_ERR_LEN, "%s:%lld: inputs: %s takes one input, got %d", fname, (long long)row, name,
                 op->n_inputs);
        return RIP_EX_DATAERR;
    }
    return 0;
}

/* Index of the op with id `id` among ops[0..n) (ids increase), or -1. */
static long find_op(const rip_op *ops, size_t n, int64_t id)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (ops[mid].id < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n && ops[lo].id == id ? (long)lo : -1;
}

/*
** Checks across rows: references, the model input's shape, first-input
** shapes, concat channels.  rows[i] is op i's line number.
*/
static int check_edges(const rip_graph *g, const int64_t *rows, const char *fname, char err[RIP_ERR_LEN])
{
    /* the model input's shape: from the first op whose first input is -1 */
    long def = -1;
    for (size_t i = 0; i < g->n_ops && def < 0; i++)
        if (g->ops[i].inputs[0] == -1)
            def = (long)i;
    bool uses_input = false;
    for (size_t i = 0; i < g->n_ops; i++)
        for (int k = 0; k < g->ops[i].n_inputs; k++)
            uses_input |= g->ops[i].inputs[k] == -1;
    if (!uses_input) {
        snprintf(err, RIP_ERR_LEN, "%s: inputs: no op reads the model input -1", fname);
        return RIP_EX_DATAERR;
    }

    for (size_t i = 0; i < g->n_ops; i++) {
        const rip_op *op = &g->ops[i];
        long long row = (long long)rows[i];
        int64_t c_sum = 0;
        for (int k = 0; k < op->n_inputs; k++) {
            int64_t id = op->inputs[k];
            int64_t h, w, c;
            if (id == -1) {
                if (def < 0) {
                    snprintf(err, RIP_ERR_LEN,
                             "%s:%lld: inputs: the model input -1 is never an op's first input, so its shape "
                             "is unknown",
                             fname, row);
                    return RIP_EX_DATAERR;
                }
                h = g->ops[def].h_in, w = g->ops[def].w_in, c = g->ops[def].c_in;
            } else {
                long j = find_op(g->ops, g->n_ops, id);
                if (j < 0) {
                    snprintf(err, RIP_ERR_LEN, "%s:%lld: inputs: no op has op_id %lld (dangling input)", fname,
                             row, (long long)id);
                    return RIP_EX_DATAERR;
                }
                if ((size_t)j >= i) {
                    snprintf(err, RIP_ERR_LEN,
                             "%s:%lld: inputs: op %lld is %s (forward reference or cycle: inputs must come from "
                             "earlier rows)",
                             fname, row, (long long)id, (size_t)j == i ? "this op itself" : "a later row");
                    return RIP_EX_DATAERR;
                }
                h = g->ops[j].h_out, w = g->ops[j].w_out, c = g->ops[j].c_out;
            }
            if (k == 0 && (h != op->h_in || w != op->w_in || c != op->c_in)) {
                snprintf(err, RIP_ERR_LEN,
                         "%s:%lld: h_in,w_in,c_in: %lldx%lldx%lld, but its first input %lld produces "
                         "%lldx%lldx%lld",
                         fname, row, (long long)op->h_in, (long long)op->w_in, (long long)op->c_in,
                         (long long)id, (long long)h, (long long)w, (long long)c);
                return RIP_EX_DATAERR;
            }
            c_sum += c;
        }
        if (op->kind == RIP_OP_CONCAT && c_sum != op->c_out) {
            snprintf(err, RIP_ERR_LEN, "%s:%lld: c_out: %lld, but the concatenated inputs have %lld channels",
                     fname, row, (long long)op->c_out, (long long)c_sum);
            return RIP_EX_DATAERR;
        }
    }
    return 0;
}

int rip_graph_load(const char *path, rip_graph *g, char err[RIP_ERR_LEN])
{
    memset(g, 0, sizeof *g);
    int rc = 0;
    char *line = NULL;
    size_t cap = 0, cap_ops = 0;
    int64_t *rows = NULL;
    FILE *f = fopen(path, "r");
    if (f == NULL) {
        snprintf(err, RIP_ERR_LEN, "%s: %s", path, strerror(errno));
        return RIP_EX_NOINPUT;
    }
    base_name(path, g->name, sizeof g->name);

    int64_t row = 0;
    bool header = false;
    while (getline(&line, &cap, f) != -1) {
        row++;
        chomp(line);
        char *fl[N_COLS];
        if (!header) {
            int n = split(line, ',', fl, N_COLS);
            for (int c = 0; c < N_COLS; c++) {
                if (c >= n || strcmp(fl[c], graph_cols[c]) != 0) {
                    snprintf(err, RIP_ERR_LEN, "%s:1: header: column %d must be '%s', got '%s'", path, c + 1,
                             graph_cols[c], c < n ? fl[c] : "(nothing)");
                    rc = RIP_EX_DATAERR;
                    goto done;
                }
            }
            if (n != N_COLS) {
                snprintf(err, RIP_ERR_LEN, "%s:1: header: %d columns, expected %d", path, n, N_COLS);
                rc = RIP_EX_DATAERR;
                goto done;
            }
            header = true;
            continue;
        }
        if (blank(line))
            continue;
        int n = split(line, ',', fl, N_COLS);
        if (n != N_COLS) {
            snprintf(err, RIP_ERR_LEN, "%s:%lld: %d fields, expected %d", path, (long long)row, n, N_COLS);
            rc = RIP_EX_DATAERR;
            goto done;
        }
        if (g->n_ops == cap_ops) {
            size_t nc = cap_ops ? 2 * cap_ops : 64;
            rip_op *no = realloc(g->ops, nc * sizeof *no);
            if (no == NULL) {
                snprintf(err, RIP_ERR_LEN, "%s: out of memory", path);
                rc = RIP_EX_OSERR;
                goto done;
            }
            g->ops = no;
            int64_t *nr = realloc(rows, nc * sizeof *nr);
            if (nr == NULL) {
                snprintf(err, RIP_ERR_LEN, "%s: out of memory", path);
                rc = RIP_EX_OSERR;
                goto done;
            }
            rows = nr;
            cap_ops = nc;
        }
        rip_op *op = &g->ops[g->n_ops];
        rc = parse_row(fl, path, row, op, err);
        if (rc != 0)
            goto done;
        if (g->n_ops > 0 && op->id <= g->ops[g->n_ops - 1].id) {
            snprintf(err, RIP_ERR_LEN, "%s:%lld: op_id: %lld after %lld (op ids must increase in execution order)",
                     path, (long long)row, (long long)op->id, (long long)g->ops[g->n_ops - 1].id);
            rc = RIP_EX_DATAERR;
            goto done;
        }
        rows[g->n_ops++] = row;
    }
    if (ferror(f)) {
        snprintf(err, RIP_ERR_LEN, "%s: read error", path);
        rc = RIP_EX_NOINPUT;
        goto done;
    }
    if (!header) {
        snprintf(err, RIP_ERR_LEN, "%s:1: header: the file is empty", path);
        rc = RIP_EX_DATAERR;
        goto done;
    }
    if (g->n_ops == 0) {
        snprintf(err, RIP_ERR_LEN, "%s:2: no operators after the header", path);
        rc = RIP_EX_DATAERR;
        goto done;
    }
    rc = check_edges(g, rows, path, err);

done:
    free(line);
    free(rows);
    fclose(f);
    if (rc != 0)
        rip_graph_free(g);
    return rc;
}

/* ---- graph -> problem ---- */

/* Theorem 13 gap of a conv op in bytes, aligned; false if undefined.
** *L receives the derived layer. */
static bool conv_gap(const rip_op *op, bool taps, int64_t align, rip_layer *L, int64_t *gap)
{
    memset(L, 0, sizeof *L);
    L->cin = op->c_in, L->cout = op->c_out, L->h_in = op->h_in, L->w_in = op->w_in;
    L->k_h = op->k_h, L->k_w = op->k_w, L->s_h = op->s_h, L->s_w = op->s_w;
    L->d_h = op->d_h, L->d_w = op->d_w;
    L->p_top = op->p_top, L->p_bottom = op->p_bottom, L->p_left = op->p_left, L->p_right = op->p_right;
    char lerr[RIP_ERR_LEN];
    if (rip_layer_derive(L, lerr) != 0)
        return false;
    int64_t g;
    if (!rip_thm13(L, taps ? RIP_SIGMA_TAPS : RIP_SIGMA_GATHER, &g))
        return false;
    *gap = rip_align_up(g * op->dtype_bytes, align);
    return true;
}

int rip_problem_from_graph(const rip_graph *g, const rip_graph_opts *o, rip_problem *p, char err[RIP_ERR_LEN])
{
    memset(p, 0, sizeof *p);
    int rc = 0;
    int *tin = NULL; /* per (op, input): the input's tensor index */
    if (o->align < 1) {
        snprintf(err, RIP_ERR_LEN, "align: %lld, must be >= 1", (long long)o->align);
        return RIP_EX_USAGE;
    }
    if (g->n_ops == 0) {
        snprintf(err, RIP_ERR_LEN, "%s: no operators", g->name);
        return RIP_EX_DATAERR;
    }
    snprintf(p->name, sizeof p->name, "%s", g->name);
    p->align = o->align;
    p->n_steps = (int64_t)g->n_ops;
    p->n = g->n_ops + 1;
    size_t max_cand = 0;
    for (size_t i = 0; i < g->n_ops; i++)
        max_cand += (size_t)g->ops[i].n_inputs;
    p->t = calloc(p->n, sizeof *p->t);
    p->cand = calloc(max_cand ? max_cand : 1, sizeof *p->cand);
    tin = calloc(max_cand ? max_cand : 1, sizeof *tin);
    if (p->t == NULL || p->cand == NULL || tin == NULL) {
        snprintf(err, RIP_ERR_LEN, "%s: out of memory", g->name);
        rc = RIP_EX_OSERR;
        goto done;
    }

    /* tensors: 0 = model input, i + 1 = output of op i */
    for (size_t i = 0; i < g->n_ops; i++) {
        const rip_op *op = &g->ops[i];
        rip_tensor *t = &p->t[i + 1];
        snprintf(t->id, sizeof t->id, "%lld", (long long)op->id);
        t->size = op->h_out * op->w_out * op->c_out * op->dtype_bytes;
        t->first = (int64_t)i;
        t->last = -1;
        t->producer_op = (int)i;
    }
    rip_tensor *in = &p->t[0];
    snprintf(in->id, sizeof in->id, "input");
    in->first = 0;
    in->last = -1;
    in->producer_op = -1;
    for (size_t i = 0; i < g->n_ops && in->size == 0; i++)
        if (g->ops[i].inputs[0] == -1)
            in->size = g->ops[i].h_in * g->ops[i].w_in * g->ops[i].c_in * g->ops[i].dtype_bytes;

    /* map each input to its tensor index and extend lifetimes */
    size_t k = 0;
    for (size_t i = 0; i < g->n_ops; i++) {
        const rip_op *op = &g->ops[i];
        for (int j = 0; j < op->n_inputs; j++, k++) {
            long idx = op->inputs[j] == -1 ? -1 : find_op(g->ops, g->n_ops, op->inputs[j]);
            if (op->inputs[j] != -1 && (idx < 0 || (size_t)idx >= i)) {
                snprintf(err, RIP_ERR_LEN, "%s: op %lld: input %lld is not an earlier op (graph not checked?)",
                         g->name, (long long)op->id, (long long)op->inputs[j]);
                rc = RIP_EX_DATAERR;
                goto done;
            }
            tin[k] = (int)(idx + 1);
            rip_tensor *t = &p->t[tin[k]];
            if ((int64_t)i > t->last)
                t->last = (int64_t)i;
        }
    }
    for (size_t i = 0; i < p->n; i++)
        if (p->t[i].last < 0)
            p->t[i].last = p->n_steps - 1; /* graph output: live to the end */

    /* candidates */
    k = 0;
    for (size_t i = 0; i < g->n_ops; i++) {
        const rip_op *op = &g->ops[i];
        int out = (int)i + 1;
        size_t k0 = k;
        k += (size_t)op->n_inputs;
        for (int j = 0; j < op->n_inputs; j++) {
            int ti = tin[k0 + (size_t)j];
            bool dup = false;
            for (int q = 0; q < j; q++)
                dup |= tin[k0 + (size_t)q] == ti;
            if (dup || p->t[ti].last != (int64_t)i)
                continue; /* repeated operand, or still needed later */
            rip_candidate c;
            memset(&c, 0, sizeof c);
            c.in = ti, c.out = out, c.op = (int)i;
            c.dtype_bytes = op->dtype_bytes;
            bool add = false;
            if (o->rip && (op->kind == RIP_OP_CONV2D || op->kind == RIP_OP_POINTWISE) && j == 0) {
                c.kind = RIP_INPLACE_GAP;
                c.taps = o->sigma_taps;
                if (conv_gap(op, o->sigma_taps, o->align, &c.layer, &c.gap)) {
                    c.has_layer = true;
                    add = true;
                }
            } else if (o->rip && is_elementwise(op->kind)) {
                c.kind = RIP_INPLACE_ALIAS;
                add = p->t[ti].size == p->t[out].size;
            } else if (o->rip && is_pool(op->kind) && !is_global_pool(op)) {
                c.kind = RIP_INPLACE_GAP;
                c.gap = 0;
                add = true;
            } else if (o->rip && op->kind == RIP_OP_UPSAMPLE) {
                c.kind = RIP_INPLACE_ALIAS;
                add = true; /* Theorem 14's argument holds for s_h != s_w as well */
            } else if (o->inplace_depthwise && op->kind == RIP_OP_DEPTHWISE) {
                c.kind = RIP_INPLACE_ALIAS;
                add = true;
            }
            if (add)
                p->cand[p->n_cand++] = c;
        }
    }

done:
    free(tin);
    if (rc != 0)
        rip_problem_free(p);
    return rc;
}

/* ---- raw interval lists ---- */

typedef struct id_sort {
    const rip_tensor *t;
    size_t i;
} id_sort;

static int cmp_id_sort(const void *a, const void *b)
{
    const id_sort *x = a, *y = b;
    int c = strcmp(x->t->id, y->t->id);
    return c ? c : (x->i < y->i ? -1 : x->i > y->i);
}

int rip_problem_from_intervals(const char *path, bool inclusive, int64_t align, rip_problem *p,
                               char err[RIP_ERR_LEN])
{
    memset(p, 0, sizeof *p);
    if (align < 1) {
        snprintf(err, RIP_ERR_LEN, "align: %lld, must be >= 1", (long long)align);
        return RIP_EX_USAGE;
    }
    int rc = 0;
    char *line = NULL;
    size_t cap = 0, cap_t = 0;
    int64_t *rows = NULL;
    id_sort *ids = NULL;
    FILE *f = fopen(path, "r");
    if (f == NULL) {
        snprintf(err, RIP_ERR_LEN, "%s: %s", path, strerror(errno));
        return RIP_EX_NOINPUT;
    }
    base_name(path, p->name, sizeof p->name);
    p->align = align;

    static const char *const cols[4] = {"id", "start", "end", "size"};
    int64_t row = 0;
    bool header = false;
    while (getline(&line, &cap, f) != -1) {
        row++;
        chomp(line);
        char *fl[4];
        if (!header) {
            int n = split(line, ',', fl, 4);
            for (int c = 0; c < 4; c++) {
                if (c >= n || strcmp(fl[c], cols[c]) != 0) {
                    snprintf(err, RIP_ERR_LEN, "%s:1: header: column %d must be '%s', got '%s'", path, c + 1,
                             cols[c], c < n ? fl[c] : "(nothing)");
                    rc = RIP_EX_DATAERR;
                    goto done;
                }
            }
            if (n != 4) {
                snprintf(err, RIP_ERR_LEN, "%s:1: header: %d columns, expected 4 (id,start,end,size)", path, n);
                rc = RIP_EX_DATAERR;
                goto done;
            }
            header = true;
            continue;
        }
        if (blank(line))
            continue;
        int n = split(line, ',', fl, 4);
        if (n != 4) {
            snprintf(err, RIP_ERR_LEN, "%s:%lld: %d fields, expected 4 (id,start,end,size)", path, (long long)row, n);
            rc = RIP_EX_DATAERR;
            goto done;
        }
        if (fl[0][0] == '\0' || strlen(fl[0]) >= RIP_PLAN_ID_LEN) {
            snprintf(err, RIP_ERR_LEN, "%s:%lld: id: '%s' must be 1 to %d characters", path, (long long)row, fl[0],
                     RIP_PLAN_ID_LEN - 1);
            rc = RIP_EX_DATAERR;
            goto done;
        }
        int64_t v[3];
        for (int c = 1; c < 4; c++) {
            if (!parse_i64(fl[c], &v[c - 1]) || v[c - 1] < (c == 3 ? 1 : 0) || v[c - 1] > SIZE_MAX_BYTES) {
                snprintf(err, RIP_ERR_LEN, "%s:%lld: %s: '%s' is not an integer in [%d, %lld]", path,
                         (long long)row, cols[c], fl[c], c == 3 ? 1 : 0, (long long)SIZE_MAX_BYTES);
                rc = RIP_EX_DATAERR;
                goto done;
            }
        }
        if (inclusive ? v[1] < v[0] : v[1] <= v[0]) {
            snprintf(err, RIP_ERR_LEN,
                     inclusive ? "%s:%lld: end: %lld is before start %lld (inclusive [start, end])"
                               : "%s:%lld: end: %lld <= start %lld: a zero-length half-open interval [start, end) "
                                 "(use --inclusive if the file means [start, end])",
                     path, (long long)row, (long long)v[1], (long long)v[0]);
            rc = RIP_EX_DATAERR;
            goto done;
        }
        if (p->n == cap_t) {
            size_t nc = cap_t ? 2 * cap_t : 64;
            rip_tensor *nt = realloc(p->t, nc * sizeof *nt);
            if (nt == NULL) {
                snprintf(err, RIP_ERR_LEN, "%s: out of memory", path);
                rc = RIP_EX_OSERR;
                goto done;
            }
            p->t = nt;
            int64_t *nr = realloc(rows, nc * sizeof *nr);
            if (nr == NULL) {
                snprintf(err, RIP_ERR_LEN, "%s: out of memory", path);
                rc = RIP_EX_OSERR;
                goto done;
            }
            rows = nr;
            cap_t = nc;
        }
        rip_tensor *t = &p->t[p->n];
        memset(t, 0, sizeof *t);
        snprintf(t->id, sizeof t->id, "%s", fl[0]);
        t->first = v[0];
        t->last = inclusive ? v[1] : v[1] - 1;
        t->size = v[2];
        t->producer_op = -1;
        if (t->last + 1 > p->n_steps)
            p->n_steps = t->last + 1;
        rows[p->n++] = row;
    }
    if (ferror(f)) {
        snprintf(err, RIP_ERR_LEN, "%s: read error", path);
        rc = RIP_EX_NOINPUT;
        goto done;
    }
    if (!header) {
        snprintf(err, RIP_ERR_LEN, "%s:1: header: the file is empty", path);
        rc = RIP_EX_DATAERR;
        goto done;
    }
    if (p->n == 0) {
        snprintf(err, RIP_ERR_LEN, "%s:2: no intervals after the header", path);
        rc = RIP_EX_DATAERR;
        goto done;
    }
    /* ids must be unique (plans and JSON are keyed by id) */
    ids = malloc(p->n * sizeof *ids);
    if (ids == NULL) {
        snprintf(err, RIP_ERR_LEN, "%s: out of memory", path);
        rc = RIP_EX_OSERR;
        goto done;
    }
    for (size_t i = 0; i < p->n; i++)
        ids[i] = (id_sort){&p->t[i], i};
    qsort(ids, p->n, sizeof *ids, cmp_id_sort);
    for (size_t i = 1; i < p->n; i++) {
        if (strcmp(ids[i].t->id, ids[i - 1].t->id) == 0) {
            snprintf(err, RIP_ERR_LEN, "%s:%lld: id: '%s' repeats row %lld", path, (long long)rows[ids[i].i],
                     ids[i].t->id, (long long)rows[ids[i - 1].i]);
            rc = RIP_EX_DATAERR;
            goto done;
        }
    }

done:
    free(ids);
    free(line);
    free(rows);
    fclose(f);
    if (rc != 0)
        rip_problem_free(p);
    return rc;
}
