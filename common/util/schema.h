/* schema.h - the identity of a result document: what the benchmarks write
 * into "schema_version" and what gdr-json accepts (results/schema/). */
#ifndef GDR_SCHEMA_H
#define GDR_SCHEMA_H

#define GDR_RESULT_SCHEMA "gdrbench.result/1"

#endif
