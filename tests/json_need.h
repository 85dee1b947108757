/*
** json_need.h — what a test needs from a JSON document read with
** json_mini.h: a member, an item, a whole number, a string or a boolean
** that must be there with that type, else the test fails naming the key.
** Header-only, for Criterion suites (tests/test_tflite.c, test_tflm_peer.c).
*/
#ifndef RIPSIM_TEST_JSON_NEED_H
#define RIPSIM_TEST_JSON_NEED_H

#include <criterion/criterion.h>

#include "json_mini.h"

/* o[key]. */
static inline const jm *jn_get(const jm *o, const char *key)
{
    const jm *v = jm_get(o, key);
    cr_assert_not_null(v, "the JSON has no \"%s\"", key);
    return v;
}

/* a[i] of an array. */
static inline const jm *jn_item(const jm *a, size_t i)
{
    cr_assert(a->kind == JM_ARR && i < a->n, "the JSON array has no item %zu", i);
    return &a->items[i];
}

/* o[key], an integer. */
static inline long long jn_int(const jm *o, const char *key)
{
    const jm *v = jn_get(o, key);
    cr_assert(v->kind == JM_NUM && v->is_int, "\"%s\" is not an integer", key);
    return v->i;
}

/* o[key], a string. */
static inline const char *jn_str(const jm *o, const char *key)
{
    const jm *v = jn_get(o, key);
    cr_assert_eq(v->kind, JM_STR, "\"%s\" is not a string", key);
    return v->str;
}

/* o[key], a boolean. */
static inline bool jn_bool(const jm *o, const char *key)
{
    const jm *v = jn_get(o, key);
    cr_assert_eq(v->kind, JM_BOOL, "\"%s\" is not a boolean", key);
    return v->b;
}

#endif
