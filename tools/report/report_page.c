/* report_page.c - what every gdr-report page shares: series labels, units, number cells, sections, badges, the lab's warnings. */
#include "config.h"

#include "report.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

const char *gdr_pair_short(const char *pair)
{
    static const char *const map[][2] = {
        {"host-host", "H-H"}, {"host-cuda", "H-D"}, {"cuda-host", "D-H"}, {"cuda-cuda", "D-D"}};
    for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
        if (!strcmp(pair, map[i][0]))
            return map[i][1];
    return pair;
}

void gdr_series_label(const struct gdr_series *s, char *buf, size_t len)
{
    snprintf(buf, len, "%s GDR %s (%s)%s", gdr_pair_short(s->pair), s->gdr, s->reg,
             s->simulated ? " simulated" : "");
}

void gdr_td_num(struct gdr_buf *b, double si, double scale, const char *mark, const char *title)
{
    char num[32];
    gdr_fmt_num(si * scale, num, sizeof(num));
    if (isnan(si)) {
        gdr_buf_puts(b, "<td class=\"n\">-</td>");
        return;
    }
    gdr_buf_printf(b, "<td class=\"n\" data-si=\"%.9g\"", si);
    if (title) {
        gdr_buf_puts(b, " title=\"");
        gdr_buf_esc(b, title);
        gdr_buf_puts(b, "\"");
    }
    gdr_buf_printf(b, ">%s", num);
    if (mark && mark[0]) {
        gdr_buf_puts(b, "<sup>");
        gdr_buf_esc(b, mark);
        gdr_buf_puts(b, "</sup>");
    }
    gdr_buf_puts(b, "</td>");
}

/* A JSON array of strings joined by spaces into the buffer, escaped. */
void gdr_argv_text(struct gdr_buf *b, const cJSON *arr)
{
    const cJSON *it;
    bool first = true;
    cJSON_ArrayForEach(it, arr) {
        if (!cJSON_IsString(it))
            continue;
        if (!first)
            gdr_buf_puts(b, " ");
        gdr_buf_esc(b, it->valuestring);
        first = false;
    }
}
