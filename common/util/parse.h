/* parse.h - numbers and lists as command lines give them: an unsigned
 * integer in a range, seconds, a CPU list ("0-3,8"); and the tools'
 * subcommand options over getopt_long. Shared by the benchmarks' options
 * and the tools, which link util alone. */
#ifndef GDR_PARSE_H
#define GDR_PARSE_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
/* getopt_long(argc, argv, shorts, opts) for a tool's subcommand, with the
 * one message shape: "PROG: CMD: unknown argument 'X'" and "PROG: CMD:
 * --name needs a value" (gdr_usage_error). shorts must begin with ':' (after
 * getopt's '+' or '-', if any) so that the two are told apart. Returns the
 * option's val, 1 for an argument in "-" mode, -1 at the end (*rc 0) or
 * after the message (*rc GDR_EXIT_USAGE). */
int gdr_getopt(const char *prog, const char *cmd, int argc, char **argv, const char *shorts,
               const struct option *opts, int *rc);

#endif
#include <getopt.h>
#include <sched.h>
#include <stddef.h>
#include <stdint.h>

#include "bounds.h"

/* Decimal digits only, min <= value <= max; -1 otherwise. */
int gdr_parse_uint(const char *text, uint64_t min, uint64_t max, uint64_t *out);
/* A decimal number, min <= value <= max, nothing after it; -1 otherwise. */
int gdr_parse_real(const char *text, double min, double max, double *out);
/* Seconds > 0 and at most GDR_MAX_SECONDS ("0.5", "30"); -1 otherwise. */
int gdr_parse_seconds(const char *text, double *out);
/* A duration >= 0 in seconds: a number alone or with s, m, h or d ("90s",
 * "90m", "8h", "3d"), or H:MM[:SS]; -1 otherwise (gdr-cluster's --budget,
 * the benchmarks' --soak). */
int gdr_parse_duration(const char *text, double *out);

/* A CPU list as sysfs writes it and taskset reads it: comma-separated
 * CPUs and ranges ("0-3,8,10-11"), each below CPU_SETSIZE. A trailing
 * newline is allowed; "" gives the empty set. -1 on anything else. */
int gdr_parse_cpulist(const char *text, cpu_set_t *set);
/* The set in the same form ("" when empty), truncated to len. */
void gdr_format_cpulist(const cpu_set_t *set, char *buf, size_t len);

/* getopt_long(argc, argv, shorts, opts) for a tool's subcommand, with the
 * one message shape: "PROG: CMD: unknown argument 'X'" and "PROG: CMD:
 * --name needs a value" (gdr_usage_error). shorts must begin with ':' (after
 * getopt's '+' or '-', if any) so that the two are told apart. Returns the
 * option's val, 1 for an argument in "-" mode, -1 at the end (*rc 0) or
 * after the message (*rc GDR_EXIT_USAGE). */
int gdr_getopt(const char *prog, const char *cmd, int argc, char **argv, const char *shorts,
               const struct option *opts, int *rc);

#endif
