/* order.h - the orders qsort and bsearch use across the tree, written
 * once: numbers ascending (NaN-free input), C strings by strcmp. */
#ifndef GDR_ORDER_H
#define GDR_ORDER_H

#include <stdint.h>
#include <string.h>

static inline int gdr_cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

static inline int gdr_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Elements that are char pointers (an argv, a list of names). */
static inline int gdr_cmp_strp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

#endif
