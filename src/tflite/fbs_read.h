/*
** fbs_read.h — a minimal, bounds-checked reader of FlatBuffers binaries
** (the wire format of TFLite models), for files nobody vouches for.
**
** The format, as this reader knows it (all integers little-endian):
**   - byte 0: a uoffset (u32) to the root table, from byte 0; bytes 4..7:
**     the optional file identifier ("TFL3" for TFLite);
**   - a table starts with an soffset (i32): its vtable is at table - soffset
**     (before or after the table); a vtable is u16 vtable_bytes, u16
**     table_bytes (the table's inline size), then one u16 per field: the
**     field's offset inside the table, 0 when the field is absent (then it
**     takes its schema default);
**   - a field holding a table, vector or string is a uoffset (u32) from the
**     field's own position, so it always points forward;
**   - a vector is a u32 element count then the elements (a vector of tables
**     or strings holds uoffsets, each from its own position); a string is a
**     u32 byte count, the bytes and a NUL;
**   - a union is two fields: its type (u8, 0 = none) in field N and the
**     table in field N + 1.
**
** Every access is checked against the file before any byte is read: the
** vtable inside the file with an even size of at least 4, the table's
** inline size inside the file, each field inside its table's inline size,
** every offset's target inside the file, a vector's count times its element
** size inside what is left of the file (computed without overflow), a
** string's NUL.  Bytes are read with memcpy (no unaligned pointer casts);
** alignment is not required.  Nothing here recurses: how deep a caller
** goes is up to its schema.
**
** Errors are a rip_status (RIP_S_DATA) and a short reason in `why` (no
** path: the caller knows which field of which table it asked for and
** prefixes that).  Nothing is allocated; nothing prints.
*/
#ifndef RIPSIM_FBS_READ_H
#define RIPSIM_FBS_READ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "status.h"

/* Room for a reason ("vector of 4000000000 4-byte elements runs past the end of the file"). */
#define RIP_FBS_WHY_LEN 128

/* The file: bytes the caller keeps alive while anything read from it is used. */
typedef struct rip_fbs {
    const uint8_t *buf;
    size_t len;
} rip_fbs;

/* A table whose vtable has been checked. */
typedef struct rip_fbs_table {
    size_t pos;          /* the table's first byte (its soffset) */
    size_t vt;           /* its vtable's first byte */
    uint16_t vt_bytes;   /* vtable size: 4 + 2 * (number of field slots) */
    uint16_t tbl_bytes;  /* the table's inline size */
} rip_fbs_table;

/* A vector whose extent has been checked: n elements of elem bytes at pos. */
typedef struct rip_fbs_vec {
    size_t pos;          /* first element */
    uint32_t n;
    size_t elem;
} rip_fbs_vec;

/*
** The root table.  ident: the 4-byte file identifier the file must carry
** at byte 4, or NULL to accept any.  RIP_OK with *root; RIP_S_DATA with why
** (file too short, identifier missing, root offset or vtable out of the file).
*/
rip_status rip_fbs_root(const rip_fbs *f, const char *ident, rip_fbs_table *root, char why[RIP_FBS_WHY_LEN]);

/* The table at file position pos, its vtable checked.  RIP_OK or RIP_S_DATA with why. */
rip_status rip_fbs_table_at(const rip_fbs *f, size_t pos, rip_fbs_table *t, char why[RIP_FBS_WHY_LEN]);

/* Is field (0-based slot) present in table t? */
bool rip_fbs_has(const rip_fbs *f, const rip_fbs_table *t, unsigned field);

/*
** Scalar fields: *out is the stored value, or def when the field is
** absent.  RIP_OK; RIP_S_DATA with why when the field does not fit in the
** table's inline size.
*/
rip_status rip_fbs_u8(const rip_fbs *f, const rip_fbs_table *t, unsigned field, uint8_t def, uint8_t *out,
                      char why[RIP_FBS_WHY_LEN]);
rip_status rip_fbs_i8(const rip_fbs *f, const rip_fbs_table *t, unsigned field, int8_t def, int8_t *out,
                      char why[RIP_FBS_WHY_LEN]);
rip_status rip_fbs_bool(const rip_fbs *f, const rip_fbs_table *t, unsigned field, bool def, bool *out,
                        char why[RIP_FBS_WHY_LEN]);
rip_status rip_fbs_i32(const rip_fbs *f, const rip_fbs_table *t, unsigned field, int32_t def, int32_t *out,
                       char why[RIP_FBS_WHY_LEN]);
rip_status rip_fbs_u32(const rip_fbs *f, const rip_fbs_table *t, unsigned field, uint32_t def, uint32_t *out,
                       char why[RIP_FBS_WHY_LEN]);
rip_status rip_fbs_u64(const rip_fbs *f, const rip_fbs_table *t, unsigned field, uint64_t def, uint64_t *out,
                       char why[RIP_FBS_WHY_LEN]);
rip_status rip_fbs_f32(const rip_fbs *f, const rip_fbs_table *t, unsigned field, float def, float *out,
                       char why[RIP_FBS_WHY_LEN]);

/*
** A field holding a table.  *present false (and *sub untouched) when the
** field is absent.  RIP_OK; RIP_S_DATA with why (offset or vtable out of the
** file, field out of the table).
*/
rip_status rip_fbs_table_field(const rip_fbs *f, const rip_fbs_table *t, unsigned field, rip_fbs_table *sub,
                               bool *present, char why[RIP_FBS_WHY_LEN]);

/*
** A field holding a vector of elem-byte elements (scalars: their size;
** tables and strings: 4, the uoffsets).  Absent: *present false and an
** empty *v.  RIP_OK or RIP_S_DATA with why.
*/
rip_status rip_fbs_vec_field(const rip_fbs *f, const rip_fbs_table *t, unsigned field, size_t elem,
                             rip_fbs_vec *v, bool *present, char why[RIP_FBS_WHY_LEN]);

/*
** A field holding a string: *s points at its bytes inside the file (NUL
** terminated there), *len its byte count (the string may hold NUL bytes).
** Absent: *present false, *s NULL, *len 0.  RIP_OK or RIP_S_DATA with why
** (out of the file, no NUL after the bytes).
*/
rip_status rip_fbs_string_field(const rip_fbs *f, const rip_fbs_table *t, unsigned field, const char **s,
                                uint32_t *len, bool *present, char why[RIP_FBS_WHY_LEN]);

/*
** A union: its type in field type_field (u8, 0 = none) and its table in
** field type_field + 1.  *type is the stored type; *present tells whether a
** table is there (a type without a table, or a table with type 0, is
** reported as stored: the caller decides).  RIP_OK or RIP_S_DATA with why.
*/
rip_status rip_fbs_union_field(const rip_fbs *f, const rip_fbs_table *t, unsigned type_field, uint8_t *type,
                               rip_fbs_table *sub, bool *present, char why[RIP_FBS_WHY_LEN]);

/* Element i (< v->n) of a checked vector of scalars: no check left to fail. */
uint8_t rip_fbs_vec_u8(const rip_fbs *f, const rip_fbs_vec *v, uint32_t i);
int32_t rip_fbs_vec_i32(const rip_fbs *f, const rip_fbs_vec *v, uint32_t i);
int64_t rip_fbs_vec_i64(const rip_fbs *f, const rip_fbs_vec *v, uint32_t i);
float rip_fbs_vec_f32(const rip_fbs *f, const rip_fbs_vec *v, uint32_t i);

/* Element i (< v->n) of a checked vector of tables.  RIP_OK or RIP_S_DATA with why. */
rip_status rip_fbs_vec_table(const rip_fbs *f, const rip_fbs_vec *v, uint32_t i, rip_fbs_table *t,
                             char why[RIP_FBS_WHY_LEN]);

/* Element i (< v->n) of a checked vector of strings, as rip_fbs_string_field. */
rip_status rip_fbs_vec_string(const rip_fbs *f, const rip_fbs_vec *v, uint32_t i, const char **s, uint32_t *len,
                              char why[RIP_FBS_WHY_LEN]);

/* The file position of field's bytes in t, or 0 when absent (tests patch models there). */
size_t rip_fbs_field_pos(const rip_fbs *f, const rip_fbs_table *t, unsigned field);

#endif
