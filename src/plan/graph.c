/*
** graph.c — loading operator graphs (graph.h) from the CSV schema of the
** model data (firmware/models/README.md, Sec. 1), through the one CSV
** reader (csv.h).
**
** The header must name the twenty columns of the schema (in any order, no
** others).  Every row is checked on its own first (strict integers, ranges,
** the op vocabulary, the per-op geometry: conv and pool output sizes
** against
**     h_out = (h_in + p_top + p_bottom - ((k_h-1) d_h + 1)) / s_h + 1,
** pointwise 1x1/s1/p0, channel-preserving depthwise/pool/elementwise ops,
** upsampling by s, fc to 1x1, one input for every op but the elementwise
** binaries and concat, at most RIP_OP_MAX_INPUTS inputs), then against the
** rows before it:
**   - every input is -1 (the model input) or the op_id of an earlier row;
**     a later one is refused, and named as a cycle when following inputs
**     from it leads back to the row ("op 1 reads op 2, which reads op 1");
**   - the first input's producer makes exactly h_in x w_in x c_in;
**   - add and sub take operands of that same shape; mul too, or a
**     1 x 1 x c_in second operand (the squeeze-excite broadcast);
**   - concat's inputs share h_in x w_in and their channels sum to c_out.
** op_ids must increase down the file (they need not be contiguous); an
** op's row index is its step.  Errors read FILE:ROW: FIELD: problem, ROW
** being the line of the file the row starts on (header = 1).
*/
#include "graph.h"

#include <stdlib.h>
#include <string.h>

#include "plan_csv.h"

static const char *const op_names[RIP_OP_COUNT] = {
    "conv2d", "pointwise", "depthwise", "add",     "mul",     "sub",      "logistic", "relu",
    "bn",     "hardswish", "hardsigmoid", "avgpool", "maxpool", "upsample", "concat",   "fc",
};

const char *rip_op_name(rip_op_kind k)
{
    return (unsigned)k < RIP_OP_COUNT ? op_names[k] : "?";
}

enum { C_ID, C_OP, C_INPUTS, C_HIN, C_WIN, C_CIN, C_HOUT, C_WOUT, C_COUT, C_KH, C_KW, C_SH, C_SW, C_PT, C_PL,
       C_PB, C_PR, C_DH, C_DW, C_DTYPE, N_COLS };

static const rip_csv_column graph_cols[N_COLS] = {
    {"op_id", true}, {"op", true},     {"inputs", true},  {"h_in", true},     {"w_in", true},
    {"c_in", true},  {"h_out", true},  {"w_out", true},   {"c_out", true},    {"k_h", true},
    {"k_w", true},   {"s_h", true},    {"s_w", true},     {"p_top", true},    {"p_left", true},
    {"p_bottom", true}, {"p_right", true}, {"d_h", true}, {"d_w", true},      {"dtype_bytes", true},
};

bool rip_op_is_elementwise(rip_op_kind k)
{
    return k == RIP_OP_ADD || k == RIP_OP_MUL || k == RIP_OP_SUB || k == RIP_OP_LOGISTIC || k == RIP_OP_RELU ||
           k == RIP_OP_BN || k == RIP_OP_HARDSWISH || k == RIP_OP_HARDSIGMOID;
}

bool rip_op_is_pool(rip_op_kind k)
{
    return k == RIP_OP_AVGPOOL || k == RIP_OP_MAXPOOL;
}

/* Output extent of one axis by the schema's formula; 0 if none. */
static int64_t out_extent(int64_t in, int64_t pa, int64_t pb, int64_t k, int64_t d, int64_t s)
{
    int64_t num = in + pa + pb - ((k - 1) * d + 1);
    if (num < 0)
        return 0;
    return num / s + 1;
}

/* The ';'-separated inputs field (written into) into op.  RIP_OK or RIP_S_DATA. */
static rip_status parse_inputs(rip_csv *r, const rip_csv_record *rec, char *text, rip_op *op,
                               char err[RIP_ERR_LEN])
{
    size_t n = 1;
    for (const char *s = text; *s; s++)
        n += *s == ';';
    if (n > RIP_OP_MAX_INPUTS) {
        rip_csv_errorf(r, rec->line, "inputs", err, "%zu inputs, at most %d are supported", n, RIP_OP_MAX_INPUTS);
        return RIP_S_DATA;
    }
    char *s = text;
    for (size_t i = 0; i < n; i++) {
        char *end = strchr(s, ';');
        if (end)
            *end = '\0';
        if (rip_csv_parse_int(s, -1, INT64_MAX, &op->inputs[i]) != 0) {
            char shown[64];
            rip_csv_show(s, 40, shown, sizeof shown);
            rip_csv_errorf(r, rec->line, "inputs", err, "'%s' is not an op_id or -1", shown);
            return RIP_S_DATA;
        }
        s = end ? end + 1 : s;
    }
    op->n_inputs = (int)n;
    return RIP_OK;
}

/* The per-op geometry of a parsed row.  RIP_OK or RIP_S_DATA. */
static rip_status check_geometry(rip_csv *r, int64_t row, const rip_op *op, char err[RIP_ERR_LEN])
{
    const char *name = op_names[op->kind];
    bool conv_like = op->kind == RIP_OP_CONV2D || op->kind == RIP_OP_POINTWISE || op->kind == RIP_OP_DEPTHWISE ||
                     rip_op_is_pool(op->kind);
    if (conv_like) {
        int64_t ho = out_extent(op->h_in, op->p_top, op->p_bottom, op->k_h, op->d_h, op->s_h);
        int64_t wo = out_extent(op->w_in, op->p_left, op->p_right, op->k_w, op->d_w, op->s_w);
        if (ho != op->h_out) {
            rip_csv_errorf(r, row, "h_out", err, "%lld, but (h_in + p_top + p_bottom - ((k_h-1)*d_h+1)) / s_h + 1 = %lld",
                           (long long)op->h_out, (long long)ho);
            return RIP_S_DATA;
        }
        if (wo != op->w_out) {
            rip_csv_errorf(r, row, "w_out", err, "%lld, but (w_in + p_left + p_right - ((k_w-1)*d_w+1)) / s_w + 1 = %lld",
                           (long long)op->w_out, (long long)wo);
            return RIP_S_DATA;
        }
    }
    if (op->kind == RIP_OP_POINTWISE && (op->k_h != 1 || op->k_w != 1 || op->s_h != 1 || op->s_w != 1 || op->p_top ||
                                         op->p_left || op->p_bottom || op->p_right)) {
        rip_csv_errorf(r, row, "k_h", err, "pointwise must be 1x1, stride 1, no padding (use conv2d)");
        return RIP_S_DATA;
    }
    if ((op->kind == RIP_OP_DEPTHWISE || rip_op_is_pool(op->kind) || rip_op_is_elementwise(op->kind) ||
         op->kind == RIP_OP_UPSAMPLE) &&
        op->c_out != op->c_in) {
        rip_csv_errorf(r, row, "c_out", err, "%s keeps the channels, but c_in %lld != c_out %lld", name,
                       (long long)op->c_in, (long long)op->c_out);
        return RIP_S_DATA;
    }
    if ((rip_op_is_elementwise(op->kind) || op->kind == RIP_OP_CONCAT) &&
        (op->h_out != op->h_in || op->w_out != op->w_in)) {
        rip_csv_errorf(r, row, "h_out", err, "%s keeps the spatial size, but %lldx%lld -> %lldx%lld", name,
                       (long long)op->h_in, (long long)op->w_in, (long long)op->h_out, (long long)op->w_out);
        return RIP_S_DATA;
    }
    if (op->kind == RIP_OP_UPSAMPLE && (op->h_out != op->h_in * op->s_h || op->w_out != op->w_in * op->s_w)) {
        rip_csv_errorf(r, row, "h_out", err, "upsample by s_h x s_w = %lldx%lld of %lldx%lld is not %lldx%lld",
                       (long long)op->s_h, (long long)op->s_w, (long long)op->h_in, (long long)op->w_in,
                       (long long)op->h_out, (long long)op->w_out);
        return RIP_S_DATA;
    }
    if (op->kind == RIP_OP_FC && (op->h_out != 1 || op->w_out != 1)) {
        rip_csv_errorf(r, row, "h_out", err, "fc produces 1x1xc_out, not %lldx%lld", (long long)op->h_out,
                       (long long)op->w_out);
        return RIP_S_DATA;
    }
    bool binary = op->kind == RIP_OP_ADD || op->kind == RIP_OP_MUL || op->kind == RIP_OP_SUB;
    if (binary && op->n_inputs > 2) {
        rip_csv_errorf(r, row, "inputs", err, "%s takes one or two inputs (one: a constant other operand), got %d",
                       name, op->n_inputs);
        return RIP_S_DATA;
    }
    if (!binary && op->kind != RIP_OP_CONCAT && op->n_inputs != 1) {
        rip_csv_errorf(r, row, "inputs", err, "%s takes one input, got %d", name, op->n_inputs);
        return RIP_S_DATA;
    }
    return RIP_OK;
}

/*
** Parse and check one data record into *op (what the row says on its
** own).  RIP_OK or RIP_S_DATA with err.
*/
static rip_status parse_row(rip_csv *r, const rip_csv_record *rec, const int col[N_COLS], rip_op *op,
                            char err[RIP_ERR_LEN])
{
    memset(op, 0, sizeof *op);
    rip_status s = rip_csv_check_width(r, rec, err);
    if (s != RIP_OK)
        return s;
    if ((s = rip_csv_int(r, rec, (size_t)col[C_ID], 0, INT64_MAX, &op->id, err)) != RIP_OK)
        return s;
    const char *opname = rec->field[col[C_OP]];
    int kind = -1;
    for (int k = 0; k < RIP_OP_COUNT; k++)
        if (strcmp(opname, op_names[k]) == 0)
            kind = k;
    if (kind < 0) {
        char shown[64];
        rip_csv_show(opname, 40, shown, sizeof shown);
        rip_csv_errorf(r, rec->line, "op", err,
                       "unknown op '%s' (known: conv2d pointwise depthwise add mul sub logistic relu bn hardswish "
                       "hardsigmoid avgpool maxpool upsample concat fc)",
                       shown);
        return RIP_S_DATA;
    }
    op->kind = (rip_op_kind)kind;
    if ((s = parse_inputs(r, rec, rec->field[col[C_INPUTS]], op, err)) != RIP_OK)
        return s;

    int64_t *num[N_COLS] = {
        [C_HIN] = &op->h_in,   [C_WIN] = &op->w_in,         [C_CIN] = &op->c_in,   [C_HOUT] = &op->h_out,
        [C_WOUT] = &op->w_out, [C_COUT] = &op->c_out,       [C_KH] = &op->k_h,     [C_KW] = &op->k_w,
        [C_SH] = &op->s_h,     [C_SW] = &op->s_w,           [C_PT] = &op->p_top,   [C_PL] = &op->p_left,
        [C_PB] = &op->p_bottom, [C_PR] = &op->p_right,      [C_DH] = &op->d_h,     [C_DW] = &op->d_w,
        [C_DTYPE] = &op->dtype_bytes,
    };
    for (int c = C_HIN; c < N_COLS; c++) {
        bool pad = c >= C_PT && c <= C_PR;
        int64_t hi = c == C_DTYPE ? 16 : RIP_GRAPH_DIM_MAX;
        if ((s = rip_csv_int(r, rec, (size_t)col[c], pad ? 0 : 1, hi, num[c], err)) != RIP_OK)
            return s;
    }
    /* sizes: each factor <= 2^24, checked pairwise so the product cannot wrap */
    const int64_t sz[2][3] = {{op->h_in, op->w_in, op->c_in}, {op->h_out, op->w_out, op->c_out}};
    for (int t = 0; t < 2; t++) {
        int64_t hw = sz[t][0] * sz[t][1];
        if (hw > RIP_GRAPH_TENSOR_MAX / sz[t][2] || hw * sz[t][2] > RIP_GRAPH_TENSOR_MAX / op->dtype_bytes) {
            rip_csv_errorf(r, rec->line, t ? "c_out" : "c_in", err, "tensor %lldx%lldx%lld is larger than 2^46 bytes",
                           (long long)sz[t][0], (long long)sz[t][1], (long long)sz[t][2]);
            return RIP_S_DATA;
        }
    }
    return check_geometry(r, rec->line, op, err);
}

/* Index of the op with id `id` among ops[0..n) (ids increase), or -1. */
long rip_graph_find_op(const rip_graph *g, int64_t id)
{
    size_t lo = 0, hi = g->n_ops;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (g->ops[mid].id < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < g->n_ops && g->ops[lo].id == id ? (long)lo : -1;
}

/*
** Op i reads op j, a later row.  Name the cycle through i if following
** inputs from j leads back to i (depth first, O(ops + inputs)); else call
** it a forward reference.  Always RIP_S_DATA (or RIP_S_NOMEM).
*/
static rip_status later_input(const rip_graph *g, rip_csv *r, int64_t row, size_t i, size_t j, char err[RIP_ERR_LEN])
{
    long *parent = malloc(g->n_ops * sizeof *parent);
    size_t *stack = malloc(g->n_ops * sizeof *stack);
    if (parent == NULL || stack == NULL) {
        free(parent);
        free(stack);
        snprintf(err, RIP_ERR_LEN, "%.200s: out of memory", rip_csv_fname(r));
        return RIP_S_NOMEM;
    }
    for (size_t k = 0; k < g->n_ops; k++)
        parent[k] = -2; /* unvisited */
    size_t top = 0;
    bool found = false;
    parent[j] = (long)i;
    stack[top++] = j;
    while (top > 0 && !found) {
        size_t u = stack[--top];
        for (int k = 0; k < g->ops[u].n_inputs && !found; k++) {
            long v = g->ops[u].inputs[k] == -1 ? -1 : rip_graph_find_op(g, g->ops[u].inputs[k]);
            if (v < 0 || parent[v] != -2)
                continue;
            parent[v] = (long)u;
            if ((size_t)v == i)
                found = true;
            else
                stack[top++] = (size_t)v;
        }
    }
    if (!found) {
        rip_csv_errorf(r, row, "inputs", err,
                       "op %lld is a later row (a forward reference: inputs must come from earlier rows, in "
                       "execution order)",
                       (long long)g->ops[j].id);
    } else {
        /* the path i -> j -> ... -> i, read back from i through parent[] */
        size_t n = 0;
        for (long u = parent[i]; (size_t)u != i; u = parent[u])
            stack[n++] = (size_t)u;
        char path[RIP_ERR_LEN / 2];
        size_t len = (size_t)snprintf(path, sizeof path, "op %lld reads op %lld", (long long)g->ops[i].id,
                                      (long long)g->ops[j].id);
        /* stack holds the cycle backwards from i's predecessor to j */
        for (size_t k = n; k-- > 1 && len < sizeof path;)
            len += (size_t)snprintf(path + len, sizeof path - len, ", which reads op %lld",
                                    (long long)g->ops[stack[k - 1]].id);
        if (len < sizeof path)
            snprintf(path + len, sizeof path - len, ", which reads op %lld", (long long)g->ops[i].id);
        rip_csv_errorf(r, row, "inputs", err, "a cycle: %s", path);
    }
    free(parent);
    free(stack);
    return RIP_S_DATA;
}

/* The shape (h, w, c) input k of op reads; def is the op defining the model input's shape. */
static void input_shape(const rip_graph *g, long def, int64_t id, int64_t s[3])
{
    const rip_op *p = id == -1 ? &g->ops[def] : &g->ops[rip_graph_find_op(g, id)];
    s[0] = id == -1 ? p->h_in : p->h_out;
    s[1] = id == -1 ? p->w_in : p->w_out;
    s[2] = id == -1 ? p->c_in : p->c_out;
}

/*
** Checks across rows: references (dangling, self, later rows and cycles),
** the model input, the shapes of every input.  rows[i] is op i's line.
*/
static rip_status check_edges(const rip_graph *g, const int64_t *rows, rip_csv *r, char err[RIP_ERR_LEN])
{
    for (size_t i = 0; i < g->n_ops; i++) {
        const rip_op *op = &g->ops[i];
        for (int k = 0; k < op->n_inputs; k++) {
            int64_t id = op->inputs[k];
            if (id == -1)
                continue;
            long j = rip_graph_find_op(g, id);
            if (j < 0) {
                rip_csv_errorf(r, rows[i], "inputs", err, "no op has op_id %lld (dangling input)", (long long)id);
                return RIP_S_DATA;
            }
            if ((size_t)j == i) {
                rip_csv_errorf(r, rows[i], "inputs", err, "op %lld reads its own output (a cycle)", (long long)id);
                return RIP_S_DATA;
            }
            if ((size_t)j > i)
                return later_input(g, r, rows[i], i, (size_t)j, err);
        }
    }
    /* every reference points up, so the first row reads only the model input */
    long def = -1;
    for (size_t i = 0; i < g->n_ops && def < 0; i++)
        if (g->ops[i].inputs[0] == -1)
            def = (long)i;

    for (size_t i = 0; i < g->n_ops; i++) {
        const rip_op *op = &g->ops[i];
        const char *name = op_names[op->kind];
        int64_t c_sum = 0;
        for (int k = 0; k < op->n_inputs; k++) {
            int64_t id = op->inputs[k], s[3];
            if (id == -1 && def < 0) {
                rip_csv_errorf(r, rows[i], "inputs", err,
                               "the model input -1 is never an op's first input, so its shape is unknown");
                return RIP_S_DATA;
            }
            input_shape(g, def, id, s);
            bool same = s[0] == op->h_in && s[1] == op->w_in && s[2] == op->c_in;
            if (k == 0 && !same) {
                rip_csv_errorf(r, rows[i], "h_in,w_in,c_in", err, "%lldx%lldx%lld, but its first input %lld produces %lldx%lldx%lld",
                               (long long)op->h_in, (long long)op->w_in, (long long)op->c_in, (long long)id,
                               (long long)s[0], (long long)s[1], (long long)s[2]);
                return RIP_S_DATA;
            }
            bool se = op->kind == RIP_OP_MUL && s[0] == 1 && s[1] == 1 && s[2] == op->c_in;
            if (k > 0 && (op->kind == RIP_OP_ADD || op->kind == RIP_OP_SUB || op->kind == RIP_OP_MUL) && !same &&
                !se) {
                rip_csv_errorf(r, rows[i], "inputs", err,
                               "%s of %lldx%lldx%lld and %lldx%lldx%lld (input %lld): the operands' shapes must "
                               "match%s",
                               name, (long long)op->h_in, (long long)op->w_in, (long long)op->c_in, (long long)s[0],
                               (long long)s[1], (long long)s[2], (long long)id,
                               op->kind == RIP_OP_MUL ? " (or the second be 1x1xc_in)" : "");
                return RIP_S_DATA;
            }
            if (k > 0 && op->kind == RIP_OP_CONCAT && (s[0] != op->h_in || s[1] != op->w_in)) {
                rip_csv_errorf(r, rows[i], "inputs", err,
                               "concat of %lldx%lld and %lldx%lld (input %lld): the inputs' spatial sizes must match",
                               (long long)op->h_in, (long long)op->w_in, (long long)s[0], (long long)s[1],
                               (long long)id);
                return RIP_S_DATA;
            }
            c_sum += s[2];
        }
        if (op->kind == RIP_OP_CONCAT && c_sum != op->c_out) {
            rip_csv_errorf(r, rows[i], "c_out", err, "%lld, but the concatenated inputs have %lld channels",
                           (long long)op->c_out, (long long)c_sum);
            return RIP_S_DATA;
        }
    }
    return RIP_OK;
}

/* Room for one more op (and its row); RIP_OK or RIP_S_NOMEM. */
static rip_status grow(rip_graph *g, int64_t **rows, size_t *cap)
{
    if (g->n_ops < *cap)
        return RIP_OK;
    size_t nc = *cap ? 2 * *cap : 64;
    rip_op *no = nc < SIZE_MAX / sizeof *no ? realloc(g->ops, nc * sizeof *no) : NULL;
    if (no == NULL)
        return RIP_S_NOMEM;
    g->ops = no;
    int64_t *nr = realloc(*rows, nc * sizeof *nr);
    if (nr == NULL)
        return RIP_S_NOMEM;
    *rows = nr;
    *cap = nc;
    return RIP_OK;
}

rip_status rip_graph_load(const char *path, rip_graph *g, char err[RIP_ERR_LEN])
{
    memset(g, 0, sizeof *g);
    FILE *f;
    rip_csv *r;
    int64_t *rows = NULL;
    size_t cap = 0;
    int col[N_COLS];
    rip_status s = rip_plan_csv_open(path, &f, &r, g->name, sizeof g->name, err);
    if (s != RIP_OK)
        return s;
    s = rip_csv_read_header(r, graph_cols, N_COLS, false, col, err);
    const rip_csv_record *rec;
    while (s == RIP_OK && (s = rip_csv_next(r, &rec, err)) == RIP_OK && rec != NULL) {
        if ((s = grow(g, &rows, &cap)) != RIP_OK) {
            snprintf(err, RIP_ERR_LEN, "%.200s: out of memory", path);
            break;
        }
        rip_op *op = &g->ops[g->n_ops];
        if ((s = parse_row(r, rec, col, op, err)) != RIP_OK)
            break;
        if (g->n_ops > 0 && op->id <= g->ops[g->n_ops - 1].id) {
            rip_csv_errorf(r, rec->line, "op_id", err, "%lld after %lld (op ids must increase in execution order)",
                           (long long)op->id, (long long)g->ops[g->n_ops - 1].id);
            s = RIP_S_DATA;
            break;
        }
        rows[g->n_ops++] = rec->line;
    }
    if (s == RIP_OK && g->n_ops == 0) {
        rip_csv_errorf(r, 2, "op_id", err, "no operators after the header");
        s = RIP_S_DATA;
    }
    if (s == RIP_OK)
        s = check_edges(g, rows, r, err);
    free(rows);
    rip_csv_close(r);
    fclose(f);
    if (s != RIP_OK)
        rip_graph_free(g);
    return s;
}

void rip_graph_free(rip_graph *g)
{
    if (g == NULL)
        return;
    free(g->ops);
    g->ops = NULL;
    g->n_ops = 0;
}

rip_status rip_graph_count_branches(const rip_graph *g, int64_t *branches, char err[RIP_ERR_LEN])
{
    /* uses[0]: the model input; uses[j + 1]: the output of the op at position j (ids may have gaps) */
    int64_t *uses = calloc(g->n_ops + 1, sizeof *uses);
    if (uses == NULL) {
        snprintf(err, RIP_ERR_LEN, "%.60s: out of memory counting branches", g->name);
        return RIP_S_NOMEM;
    }
    for (size_t i = 0; i < g->n_ops; i++) {
        const rip_op *op = &g->ops[i];
        for (int a = 0; a < op->n_inputs; a++) {
            bool seen = false; /* each consumer counted once per tensor */
            for (int b = 0; b < a; b++)
                seen |= op->inputs[b] == op->inputs[a];
            long j = op->inputs[a] == -1 ? -1 : rip_graph_find_op(g, op->inputs[a]);
            if (op->inputs[a] != -1 && j < 0) {
                free(uses);
                snprintf(err, RIP_ERR_LEN, "%.60s: op %lld reads op %lld, which is not in the graph", g->name,
                         (long long)op->id, (long long)op->inputs[a]);
                return RIP_S_INTERNAL;
            }
            if (!seen)
                uses[j + 1]++;
        }
    }
    int64_t n = 0;
    for (size_t t = 0; t <= g->n_ops; t++)
        n += uses[t] > 1;
    free(uses);
    *branches = n;
    return RIP_OK;
}
