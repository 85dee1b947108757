/*
** fbs_read.c — the bounds-checked FlatBuffers reader (see fbs_read.h for
** the format and the checks).
**
** Positions are size_t from the start of the file; every sum that could
** pass the file's end is compared by subtraction from f->len, never added
** first, so a hostile 32-bit offset cannot wrap.  Bytes are assembled one
** by one: no alignment or host endianness is assumed.
*/
#include "fbs_read.h"

#include <stdio.h>
#include <string.h>

static uint16_t rd16(const uint8_t *p)
{
    return (uint16_t)(p[0] | (unsigned)p[1] << 8);
}

static uint32_t rd32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t rd64(const uint8_t *p)
{
    return (uint64_t)rd32(p) | (uint64_t)rd32(p + 4) << 32;
}

/* Do n bytes from pos lie inside the file? */
static bool fits(const rip_fbs *f, size_t pos, size_t n)
{
    return pos <= f->len && n <= f->len - pos;
}

static rip_status fail(char why[RIP_FBS_WHY_LEN], const char *msg)
{
    snprintf(why, RIP_FBS_WHY_LEN, "%s", msg);
    return RIP_S_DATA;
}

rip_status rip_fbs_table_at(const rip_fbs *f, size_t pos, rip_fbs_table *t, char why[RIP_FBS_WHY_LEN])
{
    if (!fits(f, pos, 4))
        return fail(why, "table runs past the end of the file");
    int64_t soff = (int32_t)rd32(f->buf + pos);
    int64_t vt = (int64_t)pos - soff;
    if (vt < 0 || !fits(f, (size_t)vt, 4))
        return fail(why, "vtable offset points outside the file");
    uint16_t vt_bytes = rd16(f->buf + vt), tbl_bytes = rd16(f->buf + vt + 2);
    if (vt_bytes < 4 || vt_bytes % 2 != 0) {
        snprintf(why, RIP_FBS_WHY_LEN, "vtable size %u is not an even number of at least 4 bytes", vt_bytes);
        return RIP_S_DATA;
    }
    if (!fits(f, (size_t)vt, vt_bytes)) {
        snprintf(why, RIP_FBS_WHY_LEN, "vtable of %u bytes runs past the end of the file", vt_bytes);
        return RIP_S_DATA;
    }
    if (tbl_bytes < 4 || !fits(f, pos, tbl_bytes)) {
        snprintf(why, RIP_FBS_WHY_LEN, "table of %u bytes %s", tbl_bytes,
                 tbl_bytes < 4 ? "is shorter than its vtable offset" : "runs past the end of the file");
        return RIP_S_DATA;
    }
    *t = (rip_fbs_table){.pos = pos, .vt = (size_t)vt, .vt_bytes = vt_bytes, .tbl_bytes = tbl_bytes};
    return RIP_OK;
}

rip_status rip_fbs_root(const rip_fbs *f, const char *ident, rip_fbs_table *root, char why[RIP_FBS_WHY_LEN])
{
    if (f->len < 8) {
        snprintf(why, RIP_FBS_WHY_LEN, "%zu bytes: too short for a flatbuffer", f->len);
        return RIP_S_DATA;
    }
    if (ident && memcmp(f->buf + 4, ident, 4) != 0) {
        snprintf(why, RIP_FBS_WHY_LEN, "no \"%.4s\" file identifier at byte 4", ident);
        return RIP_S_DATA;
    }
    size_t pos = rd32(f->buf);
    if (pos >= f->len)
        return fail(why, "root table offset points past the end of the file");
    char sub[RIP_FBS_WHY_LEN];
    if (rip_fbs_table_at(f, pos, root, sub) != RIP_OK) {
        snprintf(why, RIP_FBS_WHY_LEN, "root table: %.100s", sub);
        return RIP_S_DATA;
    }
    return RIP_OK;
}

/* The field's offset inside its table, 0 when absent (slot past the vtable or 0). */
static uint16_t field_off(const rip_fbs *f, const rip_fbs_table *t, unsigned field)
{
    size_t slot = 4 + 2 * (size_t)field;
    if (slot + 2 > t->vt_bytes)
        return 0;
    return rd16(f->buf + t->vt + slot);
}

bool rip_fbs_has(const rip_fbs *f, const rip_fbs_table *t, unsigned field)
{
    return field_off(f, t, field) != 0;
}

size_t rip_fbs_field_pos(const rip_fbs *f, const rip_fbs_table *t, unsigned field)
{
    uint16_t off = field_off(f, t, field);
    return off ? t->pos + off : 0;
}

/*
** The position of a present field of size bytes, checked inside its table
** (after the table's soffset).  RIP_OK with *pos (0 when absent) or RIP_S_DATA.
*/
static rip_status field_at(const rip_fbs *f, const rip_fbs_table *t, unsigned field, size_t size, size_t *pos,
                           char why[RIP_FBS_WHY_LEN])
{
    uint16_t off = field_off(f, t, field);
    *pos = 0;
    if (off == 0)
        return RIP_OK;
    if (off < 4 || size > t->tbl_bytes || off > t->tbl_bytes - size) {
        snprintf(why, RIP_FBS_WHY_LEN, "field %u (%zu bytes at offset %u) lies outside its table of %u bytes", field,
                 size, off, t->tbl_bytes);
        return RIP_S_DATA;
    }
    *pos = t->pos + off;
    return RIP_OK;
}

#define SCALAR_FIELD(NAME, TYPE, SIZE, READ)                                                                     \
    rip_status NAME(const rip_fbs *f, const rip_fbs_table *t, unsigned field, TYPE def, TYPE *out,               \
                    char why[RIP_FBS_WHY_LEN])                                                                   \
    {                                                                                                            \
        size_t pos;                                                                                              \
        rip_status st = field_at(f, t, field, SIZE, &pos, why);                                                  \
        if (st != RIP_OK)                                                                                        \
            return st;                                                                                           \
        *out = pos ? READ : def;                                                                                 \
        return RIP_OK;                                                                                           \
    }

SCALAR_FIELD(rip_fbs_u8, uint8_t, 1, f->buf[pos])
SCALAR_FIELD(rip_fbs_i8, int8_t, 1, (int8_t)f->buf[pos])
SCALAR_FIELD(rip_fbs_bool, bool, 1, f->buf[pos] != 0)
SCALAR_FIELD(rip_fbs_i32, int32_t, 4, (int32_t)rd32(f->buf + pos))
SCALAR_FIELD(rip_fbs_u32, uint32_t, 4, rd32(f->buf + pos))
SCALAR_FIELD(rip_fbs_u64, uint64_t, 8, rd64(f->buf + pos))

static float f32_of(uint32_t bits)
{
    float x;
    memcpy(&x, &bits, sizeof x);
    return x;
}

SCALAR_FIELD(rip_fbs_f32, float, 4, f32_of(rd32(f->buf + pos)))

/* The target of the uoffset at pos: RIP_OK with *to inside the file, or RIP_S_DATA. */
static rip_status follow(const rip_fbs *f, size_t pos, size_t *to, char why[RIP_FBS_WHY_LEN])
{
    uint32_t u = rd32(f->buf + pos);
    if (u >= f->len - pos)
        return fail(why, "offset points past the end of the file");
    *to = pos + u;
    return RIP_OK;
}

/* The uoffset field's target; *to 0 when the field is absent. */
static rip_status offset_field(const rip_fbs *f, const rip_fbs_table *t, unsigned field, size_t *to,
                               char why[RIP_FBS_WHY_LEN])
{
    size_t pos;
    rip_status st = field_at(f, t, field, 4, &pos, why);
    *to = 0;
    if (st != RIP_OK || pos == 0)
        return st;
    return follow(f, pos, to, why);
}

rip_status rip_fbs_table_field(const rip_fbs *f, const rip_fbs_table *t, unsigned field, rip_fbs_table *sub,
                               bool *present, char why[RIP_FBS_WHY_LEN])
{
    size_t to;
    rip_status st = offset_field(f, t, field, &to, why);
    *present = false;
    if (st != RIP_OK || to == 0)
        return st;
    if ((st = rip_fbs_table_at(f, to, sub, why)) == RIP_OK)
        *present = true;
    return st;
}

/* The vector at file position to, checked. */
static rip_status vec_at(const rip_fbs *f, size_t to, size_t elem, rip_fbs_vec *v, char why[RIP_FBS_WHY_LEN])
{
    if (!fits(f, to, 4))
        return fail(why, "vector length runs past the end of the file");
    uint32_t n = rd32(f->buf + to);
    size_t left = f->len - to - 4;
    if (elem == 0 || n > left / elem) {
        snprintf(why, RIP_FBS_WHY_LEN, "vector of %lu %zu-byte elements runs past the end of the file",
                 (unsigned long)n, elem);
        return RIP_S_DATA;
    }
    *v = (rip_fbs_vec){.pos = to + 4, .n = n, .elem = elem};
    return RIP_OK;
}

rip_status rip_fbs_vec_field(const rip_fbs *f, const rip_fbs_table *t, unsigned field, size_t elem,
                             rip_fbs_vec *v, bool *present, char why[RIP_FBS_WHY_LEN])
{
    size_t to;
    rip_status st = offset_field(f, t, field, &to, why);
    *present = false;
    *v = (rip_fbs_vec){.pos = 0, .n = 0, .elem = elem};
    if (st != RIP_OK || to == 0)
        return st;
    if ((st = vec_at(f, to, elem, v, why)) == RIP_OK)
        *present = true;
    return st;
}

/* The string at file position to: bytes, count and the NUL after them. */
static rip_status string_at(const rip_fbs *f, size_t to, const char **s, uint32_t *len, char why[RIP_FBS_WHY_LEN])
{
    if (!fits(f, to, 4))
        return fail(why, "string length runs past the end of the file");
    uint32_t n = rd32(f->buf + to);
    if (n >= f->len - to - 4) {
        /* the bytes fit exactly, the NUL does not: name the missing NUL */
        if (n == f->len - to - 4)
            return fail(why, "string has no NUL terminator (it ends the file)");
        snprintf(why, RIP_FBS_WHY_LEN, "string of %lu bytes runs past the end of the file", (unsigned long)n);
        return RIP_S_DATA;
    }
    if (f->buf[to + 4 + n] != 0)
        return fail(why, "string has no NUL terminator");
    *s = (const char *)(f->buf + to + 4);
    *len = n;
    return RIP_OK;
}

rip_status rip_fbs_string_field(const rip_fbs *f, const rip_fbs_table *t, unsigned field, const char **s,
                                uint32_t *len, bool *present, char why[RIP_FBS_WHY_LEN])
{
    size_t to;
    rip_status st = offset_field(f, t, field, &to, why);
    *present = false;
    *s = NULL;
    *len = 0;
    if (st != RIP_OK || to == 0)
        return st;
    if ((st = string_at(f, to, s, len, why)) == RIP_OK)
        *present = true;
    return st;
}

rip_status rip_fbs_union_field(const rip_fbs *f, const rip_fbs_table *t, unsigned type_field, uint8_t *type,
                               rip_fbs_table *sub, bool *present, char why[RIP_FBS_WHY_LEN])
{
    rip_status st = rip_fbs_u8(f, t, type_field, 0, type, why);
    *present = false;
    if (st != RIP_OK)
        return st;
    return rip_fbs_table_field(f, t, type_field + 1, sub, present, why);
}

uint8_t rip_fbs_vec_u8(const rip_fbs *f, const rip_fbs_vec *v, uint32_t i)
{
    return f->buf[v->pos + i];
}

int32_t rip_fbs_vec_i32(const rip_fbs *f, const rip_fbs_vec *v, uint32_t i)
{
    return (int32_t)rd32(f->buf + v->pos + 4 * (size_t)i);
}

int64_t rip_fbs_vec_i64(const rip_fbs *f, const rip_fbs_vec *v, uint32_t i)
{
    return (int64_t)rd64(f->buf + v->pos + 8 * (size_t)i);
}

float rip_fbs_vec_f32(const rip_fbs *f, const rip_fbs_vec *v, uint32_t i)
{
    return f32_of(rd32(f->buf + v->pos + 4 * (size_t)i));
}

rip_status rip_fbs_vec_table(const rip_fbs *f, const rip_fbs_vec *v, uint32_t i, rip_fbs_table *t,
                             char why[RIP_FBS_WHY_LEN])
{
    size_t to;
    rip_status st = follow(f, v->pos + 4 * (size_t)i, &to, why);
    if (st != RIP_OK)
        return st;
    return rip_fbs_table_at(f, to, t, why);
}

rip_status rip_fbs_vec_string(const rip_fbs *f, const rip_fbs_vec *v, uint32_t i, const char **s, uint32_t *len,
                              char why[RIP_FBS_WHY_LEN])
{
    size_t to;
    rip_status st = follow(f, v->pos + 4 * (size_t)i, &to, why);
    if (st != RIP_OK)
        return st;
    return string_at(f, to, s, len, why);
}
