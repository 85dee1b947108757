/*
** tflm_offline.c — read and write the OfflineMemoryAllocation metadata of
** a TFLite model (tflm_offline.h says the format and the writer's layout).
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tflite/fbs_read.h"
#include "tflm_offline.h"

/* Little-endian words, read and written with plain byte arithmetic. */
static int32_t get_i32(const uint8_t *p)
{
    uint32_t v = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
    return (int32_t)v;
}

static void put_u32(uint8_t *b, size_t pos, uint32_t v)
{
    b[pos] = (uint8_t)v, b[pos + 1] = (uint8_t)(v >> 8), b[pos + 2] = (uint8_t)(v >> 16), b[pos + 3] = (uint8_t)(v >> 24);
}

static void put_u16(uint8_t *b, size_t pos, uint16_t v)
{
    b[pos] = (uint8_t)v, b[pos + 1] = (uint8_t)(v >> 8);
}

/* The total tensor count of every subgraph (TFLM's N). */
static size_t total_tensors(const rip_tfl_model *m)
{
    size_t n = 0;
    for (size_t s = 0; s < m->n_subgraphs; s++)
        n += m->subgraphs[s].n_tensors;
    return n;
}

/* The index of the last metadata entry named RIP_TFLM_OFFLINE_NAME (TFLM's choice), its count in *count; -1 none. */
static long offline_entry(const rip_tfl_model *m, size_t *count)
{
    long last = -1;
    *count = 0;
    for (size_t i = 0; i < m->n_metadata; i++)
        if (strcmp(m->metadata[i].name, RIP_TFLM_OFFLINE_NAME) == 0)
            last = (long)i, ++*count;
    return last;
}

void rip_tflm_offline_free(rip_tflm_offline *o)
{
    if (o) {
        free(o->offset);
        memset(o, 0, sizeof *o);
    }
}

rip_status rip_tflm_offline_read(const rip_tfl_model *m, bool *present, rip_tflm_offline *out, char err[RIP_ERR_LEN])
{
    memset(out, 0, sizeof *out);
    *present = false;
    size_t count;
    long e = offline_entry(m, &count);
    if (e < 0)
        return RIP_OK;
    const char *lbl = m->label ? m->label : "model";
    uint32_t bi = m->metadata[e].buffer;
    if (bi >= m->n_buffers) {
        snprintf(err, RIP_ERR_LEN, "%s: %s: buffer %u out of range (%zu buffers)", lbl, RIP_TFLM_OFFLINE_NAME, bi,
                 m->n_buffers);
        return RIP_S_DATA;
    }
    const rip_tfl_buffer *b = &m->buffers[bi];
    if (b->size % 4 != 0 || b->size < 12) {
        snprintf(err, RIP_ERR_LEN, "%s: %s: buffer %u holds %zu bytes, not a 3-word header and int32 offsets", lbl,
                 RIP_TFLM_OFFLINE_NAME, bi, b->size);
        return RIP_S_DATA;
    }
    int32_t version = get_i32(b->data), nsg = get_i32(b->data + 4), nn = get_i32(b->data + 8);
    size_t want = total_tensors(m), words = b->size / 4;
    if (version != RIP_TFLM_OFFLINE_VERSION) {
        snprintf(err, RIP_ERR_LEN, "%s: %s: version %d, not %d", lbl, RIP_TFLM_OFFLINE_NAME, (int)version,
                 RIP_TFLM_OFFLINE_VERSION);
        return RIP_S_DATA;
    }
    if (nsg < 0 || (size_t)nsg != m->n_subgraphs) {
        snprintf(err, RIP_ERR_LEN, "%s: %s: %d subgraphs, the model has %zu", lbl, RIP_TFLM_OFFLINE_NAME, (int)nsg,
                 m->n_subgraphs);
        return RIP_S_DATA;
    }
    if (nn < 0 || (size_t)nn != want) {
        snprintf(err, RIP_ERR_LEN, "%s: %s: N = %d offsets, the model has %zu tensors", lbl, RIP_TFLM_OFFLINE_NAME,
                 (int)nn, want);
        return RIP_S_DATA;
    }
    if (words - 3 != want) {
        snprintf(err, RIP_ERR_LEN, "%s: %s: buffer holds %zu offsets, N is %zu", lbl, RIP_TFLM_OFFLINE_NAME,
                 words - 3, want);
        return RIP_S_DATA;
    }
    for (size_t i = 0; i < want; i++)
        if (get_i32(b->data + 12 + 4 * i) < RIP_TFLM_ONLINE) {
            snprintf(err, RIP_ERR_LEN, "%s: %s: offset %zu is %d (below -1)", lbl, RIP_TFLM_OFFLINE_NAME, i,
                     (int)get_i32(b->data + 12 + 4 * i));
            return RIP_S_DATA;
        }
    out->offset = malloc((want ? want : 1) * sizeof *out->offset);
    if (!out->offset) {
        snprintf(err, RIP_ERR_LEN, "%s: %s: out of memory", lbl, RIP_TFLM_OFFLINE_NAME);
        return RIP_S_NOMEM;
    }
    for (size_t i = 0; i < want; i++)
        out->offset[i] = get_i32(b->data + 12 + 4 * i);
    out->version = version, out->n_subgraphs = nsg, out->n = want;
    *present = true;
    return RIP_OK;
}

/* ---- the writer ---- */

/* Model's fields (schema.fbs): 0 version (uint32), 1 operator_codes, 2 subgraphs, 3 description,
** 4 buffers, 5 metadata_buffer, 6 metadata, 7 signature_defs: all but 0 uoffsets. */
enum { MODEL_SLOTS = 8, SLOT_VERSION = 0, SLOT_BUFFERS = 4, SLOT_METADATA = 6 };

/* Where the old file's parts are (absolute positions in the old file). */
typedef struct old_root {
    size_t field_target[MODEL_SLOTS];   /* offset fields: their target; 0 absent */
    bool has_version;
    uint32_t version;
    rip_fbs_vec buffers, metadata;      /* the vectors' elements (uoffsets) */
} old_root;

/* The target (absolute) of the uoffset at position pos of the old file; 0 when outside it. */
static size_t target_at(const rip_fbs *f, size_t pos)
{
    if (pos > f->len || f->len - pos < 4)
        return 0;
    size_t t = pos + (uint32_t)get_i32(f->buf + pos);
    return t < f->len ? t : 0;
}

static rip_status read_old_root(const rip_tfl_model *m, old_root *o, char err[RIP_ERR_LEN])
{
    rip_fbs f = {m->file, m->file_len};
    rip_fbs_table root;
    char why[RIP_FBS_WHY_LEN];
    bool present;
    memset(o, 0, sizeof *o);
    if (rip_fbs_root(&f, "TFL3", &root, why) != RIP_OK) {
        snprintf(err, RIP_ERR_LEN, "%s: %s", m->label, why);
        return RIP_S_DATA;
    }
    for (unsigned k = MODEL_SLOTS; 4u + 2u * k < root.vt_bytes; k++)
        if (rip_fbs_has(&f, &root, k)) {
            snprintf(err, RIP_ERR_LEN, "%s: the Model table has field %u, which this writer does not know", m->label, k);
            return RIP_S_DATA;
        }
    o->has_version = rip_fbs_has(&f, &root, SLOT_VERSION);
    if (rip_fbs_u32(&f, &root, SLOT_VERSION, 0, &o->version, why) != RIP_OK)
        goto bad;
    for (unsigned k = 1; k < MODEL_SLOTS; k++) {
        size_t fp = rip_fbs_field_pos(&f, &root, k);
        if (fp && !(o->field_target[k] = target_at(&f, fp))) {
            snprintf(why, sizeof why, "field %u points outside the file", k);
            goto bad;
        }
    }
    if (rip_fbs_vec_field(&f, &root, SLOT_BUFFERS, 4, &o->buffers, &present, why) != RIP_OK ||
        rip_fbs_vec_field(&f, &root, SLOT_METADATA, 4, &o->metadata, &present, why) != RIP_OK)
        goto bad;
    if (o->buffers.n != m->n_buffers || o->metadata.n != m->n_metadata) {
        snprintf(why, sizeof why, "buffers or metadata differ from the decoded model");
        goto bad;
    }
    return RIP_OK;
bad:
    snprintf(err, RIP_ERR_LEN, "%s: Model: %s", m->label, why);
    return RIP_S_DATA;
}

static size_t align_up(size_t x, size_t a)
{
    return (x + a - 1) / a * a;
}

/* A uoffset at position at pointing to target (target > at: the layout only points forward). */
static void put_uoff(uint8_t *b, size_t at, size_t target)
{
    put_u32(b, at, (uint32_t)(target - at));
}

/* Refuse what the writer cannot write: n not the model's tensor count,
** the entry named twice (count), an offset below -1, too many tensors. */
static rip_status check_write_args(const rip_tfl_model *m, const int32_t *offset, size_t n, size_t count,
                                   char err[RIP_ERR_LEN])
{
    if (n != total_tensors(m)) {
        snprintf(err, RIP_ERR_LEN, "%s: %zu offsets for %zu tensors", m->label, n, total_tensors(m));
        return RIP_S_DATA;
    }
    if (count > 1) {
        snprintf(err, RIP_ERR_LEN, "%s: %zu metadata entries are named %s", m->label, count, RIP_TFLM_OFFLINE_NAME);
        return RIP_S_DATA;
    }
    for (size_t i = 0; i < n; i++)
        if (offset[i] < RIP_TFLM_ONLINE) {
            snprintf(err, RIP_ERR_LEN, "%s: offset %zu is %d (below -1)", m->label, i, (int)offset[i]);
            return RIP_S_DATA;
        }
    if (n > (SIZE_MAX - 64) / 4 - 3) {
        snprintf(err, RIP_ERR_LEN, "%s: too many tensors", m->label);
        return RIP_S_DATA;
    }
    return RIP_OK;
}

static const char offline_name[] = RIP_TFLM_OFFLINE_NAME;

/* The new prefix's layout: positions in the new file, in order (every
** uoffset points to something after it). */
typedef struct layout {
    bool add;                    /* a new metadata entry (and buffer) */
    size_t nb, nm, new_buf;      /* buffers, metadata entries; the offline buffer's index */
    size_t root_vt, root, root_bytes, bvec, mvec;
    size_t md_vt, md, md_name;   /* the new Metadata table (add) */
    size_t b_vt, btab, data_len, dvec;
    size_t prefix;               /* the old file starts here */
} layout;

/* The layout of the prefix for n offsets (e: the old entry, -1 none). */
static rip_status plan_layout(const rip_tfl_model *m, size_t n, long e, layout *l, char err[RIP_ERR_LEN])
{
    l->add = e < 0;
    l->nb = m->n_buffers + (l->add ? 1 : 0), l->nm = m->n_metadata + (l->add ? 1 : 0);
    l->new_buf = l->add ? m->n_buffers : m->metadata[e].buffer;
    if (l->new_buf > UINT32_MAX || l->new_buf >= l->nb) {
        snprintf(err, RIP_ERR_LEN, "%s: %s: buffer index out of range", m->label, RIP_TFLM_OFFLINE_NAME);
        return RIP_S_DATA;
    }
    l->root_vt = 8, l->root = align_up(l->root_vt + 4 + 2 * MODEL_SLOTS, 4), l->root_bytes = 4 + 4 * MODEL_SLOTS;
    l->bvec = l->root + l->root_bytes, l->mvec = l->bvec + 4 + 4 * l->nb;
    size_t pos = l->add ? l->mvec + 4 + 4 * l->nm : l->mvec;
    l->md_vt = pos, l->md = l->md_vt + 8, l->md_name = l->md + 12;
    if (l->add)
        pos = align_up(l->md_name + 4 + sizeof offline_name, 4);
    l->b_vt = pos, l->btab = l->b_vt + 8, l->data_len = 4 * (3 + n);
    l->dvec = align_up(l->btab + 8 + 4, 16) - 4;
    l->prefix = align_up(l->dvec + 4 + l->data_len, 16);
    if (m->file_len > SIZE_MAX - l->prefix || l->prefix + m->file_len > (size_t)INT32_MAX) {
        snprintf(err, RIP_ERR_LEN, "%s: the model with its plan would pass 2 GiB", m->label);
        return RIP_S_DATA;
    }
    return RIP_OK;
}

/* The file identifier and the root: vtable, then the table: its soffset, version, the 7 offsets. */
static void put_root(uint8_t *b, const layout *l, const old_root *o)
{
    put_uoff(b, 0, l->root);
    memcpy(b + 4, "TFL3", 4);
    put_u16(b, l->root_vt, (uint16_t)(4 + 2 * MODEL_SLOTS));
    put_u16(b, l->root_vt + 2, (uint16_t)l->root_bytes);
    put_u32(b, l->root, (uint32_t)(l->root - l->root_vt));
    if (o->has_version) {
        put_u16(b, l->root_vt + 4, 4);
        put_u32(b, l->root + 4, o->version);
    }
    for (unsigned k = 1; k < MODEL_SLOTS; k++) {
        size_t at = l->root + 4 + 4 * k, target = 0;
        if (k == SLOT_BUFFERS)
            target = l->bvec;
        else if (k == SLOT_METADATA)
            target = l->add ? l->mvec : l->prefix + o->field_target[k];
        else if (o->field_target[k])
            target = l->prefix + o->field_target[k];
        if (target) {
            put_u16(b, l->root_vt + 4 + 2 * k, (uint16_t)(4 + 4 * k));
            put_uoff(b, at, target);
        }
    }
}

/* The buffers vector (the old ones, their tables in the old bytes, with the
** new one at new_buf) and, when adding, the metadata vector and the new entry. */
static void put_vectors(uint8_t *b, const rip_tfl_model *m, const layout *l, const old_root *o)
{
    put_u32(b, l->bvec, (uint32_t)l->nb);
    for (size_t i = 0; i < l->nb; i++) {
        size_t at = l->bvec + 4 + 4 * i;
        put_uoff(b, at, i == l->new_buf ? l->btab : l->prefix + target_at(&(rip_fbs){m->file, m->file_len},
                                                                           o->buffers.pos + 4 * i));
    }
    if (l->add) {
        put_u32(b, l->mvec, (uint32_t)l->nm);
        for (size_t i = 0; i < m->n_metadata; i++)
            put_uoff(b, l->mvec + 4 + 4 * i,
                     l->prefix + target_at(&(rip_fbs){m->file, m->file_len}, o->metadata.pos + 4 * i));
        put_uoff(b, l->mvec + 4 + 4 * m->n_metadata, l->md);
        /* Metadata { name: string (slot 0), buffer: uint (slot 1) } */
        put_u16(b, l->md_vt, 8), put_u16(b, l->md_vt + 2, 12);
        put_u16(b, l->md_vt + 4, 4), put_u16(b, l->md_vt + 6, 8);
        put_u32(b, l->md, (uint32_t)(l->md - l->md_vt));
        put_uoff(b, l->md + 4, l->md_name);
        put_u32(b, l->md + 8, (uint32_t)l->new_buf);
        put_u32(b, l->md_name, (uint32_t)(sizeof offline_name - 1));
        memcpy(b + l->md_name + 4, offline_name, sizeof offline_name);
    }
}

/* The offline buffer: Buffer { data: [ubyte] (slot 0, force_align 16) } holding the header and the n offsets. */
static void put_offline_buffer(uint8_t *b, const rip_tfl_model *m, const layout *l, const int32_t *offset, size_t n)
{
    put_u16(b, l->b_vt, 6), put_u16(b, l->b_vt + 2, 8), put_u16(b, l->b_vt + 4, 4);
    put_u32(b, l->btab, (uint32_t)(l->btab - l->b_vt));
    put_uoff(b, l->btab + 4, l->dvec);
    put_u32(b, l->dvec, (uint32_t)l->data_len);
    put_u32(b, l->dvec + 4, RIP_TFLM_OFFLINE_VERSION);
    put_u32(b, l->dvec + 8, (uint32_t)m->n_subgraphs);
    put_u32(b, l->dvec + 12, (uint32_t)n);
    for (size_t i = 0; i < n; i++)
        put_u32(b, l->dvec + 16 + 4 * i, (uint32_t)offset[i]);
}

/* Contract (tflm_offline.h): the new prefix, then the old file unchanged. */
rip_status rip_tflm_offline_write(const rip_tfl_model *m, const int32_t *offset, size_t n, uint8_t **out,
                                  size_t *out_len, char err[RIP_ERR_LEN])
{
    *out = NULL, *out_len = 0;
    size_t count;
    long e = offline_entry(m, &count);
    rip_status st = check_write_args(m, offset, n, count, err);
    if (st != RIP_OK)
        return st;
    old_root o;
    if ((st = read_old_root(m, &o, err)) != RIP_OK)
        return st;
    layout l;
    if ((st = plan_layout(m, n, e, &l, err)) != RIP_OK)
        return st;
    uint8_t *b = calloc(l.prefix + m->file_len, 1);
    if (!b) {
        snprintf(err, RIP_ERR_LEN, "%s: out of memory", m->label);
        return RIP_S_NOMEM;
    }
    memcpy(b + l.prefix, m->file, m->file_len);
    put_root(b, &l, &o);
    put_vectors(b, m, &l, &o);
    put_offline_buffer(b, m, &l, offset, n);
    *out = b, *out_len = l.prefix + m->file_len;
    return RIP_OK;
}
