/* pcie_json.h - one PCIe link (a hop of gdr_topo_pcie_walk) as every JSON
 * document writes it: the benchmarks' ends.*.pcie, gdr_doctor's links[]
 * facts and gdr-cluster-core rails' pcie_links (results/schema's
 * pcie_link, docs/results-format.md). One writer and one reader, so the
 * three cannot drift apart again (the doctor wrote max_gts, the rails
 * expect_gts, for links judged by the same rule).
 *
 * The one part of common/topo that needs libcjson: only its callers link it. */
#ifndef GDR_PCIE_JSON_H
#define GDR_PCIE_JSON_H

#include "pcie.h"

#include <cjson/cJSON.h>

/* {bdf, role, current_gts, current_width, max_gts, max_width, expect_gts,
 *  expect_width, max_payload, max_read_request, relaxed_ordering, ats,
 *  acs_ctrl, judged, below_max}; null where unknown. max_*: the device's
 * own maxima; expect_*: what the link should train at, the lower of both
 * ends' maxima, which below_max is judged against. NULL without memory. */
cJSON *gdr_pcie_hop_to_json(const struct gdr_pcie_hop *h);

/* The inverse, into *h (what o lacks stays unknown); -1 when o is not an
 * object. */
int gdr_pcie_hop_from_json(const cJSON *o, struct gdr_pcie_hop *h);

#endif
