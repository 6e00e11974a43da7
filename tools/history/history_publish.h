/* history_publish.h - the static dashboard of the history: plain files,
 * served by any web server or opened from disk (gdr-history publish).
 *
 *   DIR/index.html            every testbed and series with its latest
 *                             verdict, regressions first
 *   DIR/TESTBED/SERIES.html   a page per series: the trend (rolling
 *                             baseline and its no-alarm band, steps,
 *                             annotations, outliers, failed nights), each
 *                             point linking to that night's gdr-report page
 *   DIR/publish-state.json    what each page was made from (a content hash)
 *                             and its index row, so the next publish
 *                             rewrites only the series that changed
 *
 * Pages use tools/report's HTML and SVG (escaping, CSP, honest axes). */
#ifndef GDR_TOOLS_HISTORY_PUBLISH_H
#define GDR_TOOLS_HISTORY_PUBLISH_H

#include "history_db.h"
#include "history_stats.h"

struct hist_publish_opts {
    const char *outdir;
    const char *testbed;  /* NULL: every testbed */
    const char *runs_url; /* a point's link: URL/RUN_ID/report.html ("{run}" in URL is
                             replaced instead); NULL: the run directory's report.html */
    bool force;           /* rewrite every page */
    struct hist_opts stats;
};

struct hist_publish_result {
    size_t testbeds, series, written, unchanged, removed;
};

/* Returns 0, or -1 after gdr_fail. Nothing is left half-written: each page
 * and the index are written to a temporary file and renamed. */
int hist_publish(struct hdb *h, const struct hist_publish_opts *o, struct hist_publish_result *r);

#endif
