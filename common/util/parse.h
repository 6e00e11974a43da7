/* parse.h - numbers and lists as command lines give them: an unsigned
 * integer in a range, seconds, a CPU list ("0-3,8"). Shared by the
 * benchmarks' options and the tools, which link util alone. */
#ifndef GDR_PARSE_H
#define GDR_PARSE_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <sched.h>
#include <stddef.h>
#include <stdint.h>

#include "bounds.h"

/* Decimal digits only, min <= value <= max; -1 otherwise. */
int gdr_parse_uint(const char *text, uint64_t min, uint64_t max, uint64_t *out);
/* Seconds > 0 and at most GDR_MAX_SECONDS ("0.5", "30"); -1 otherwise. */
int gdr_parse_seconds(const char *text, double *out);

/* A CPU list as sysfs writes it and taskset reads it: comma-separated
 * CPUs and ranges ("0-3,8,10-11"), each below CPU_SETSIZE. A trailing
 * newline is allowed; "" gives the empty set. -1 on anything else. */
int gdr_parse_cpulist(const char *text, cpu_set_t *set);
/* The set in the same form ("" when empty), truncated to len. */
void gdr_format_cpulist(const cpu_set_t *set, char *buf, size_t len);

#endif
