#include "config.h"

#include "sizes.h"
#include "error.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

int gdr_parse_bytes(const char *text, uint64_t *out)
{
    if (!text || !isdigit((unsigned char)text[0]))
        return -1;
    errno = 0;
    char *end;
    unsigned long long v = strtoull(text, &end, 10);
    if (errno == ERANGE)
        return -1;
    unsigned shift = 0;
    if (*end) {
        switch (toupper((unsigned char)*end)) {
        case 'K': shift = 10; break;
        case 'M': shift = 20; break;
        case 'G': shift = 30; break;
        default: return -1;
        }
        end++;
        if (strcasecmp(end, "") && strcasecmp(end, "B") && strcasecmp(end, "iB"))
            return -1;
    }
    if (shift && v > (UINT64_MAX >> shift))
        return -1;
    *out = (uint64_t)v << shift;
    return 0;
}

int gdr_sizes_range(struct gdr_size_list *list, uint64_t min, uint64_t max, unsigned factor)
{
    if (min < GDR_SIZE_MIN || max > GDR_SIZE_MAX || min > max)
        return gdr_fail(GDR_EXIT_USAGE, "size range %llu..%llu: need %u <= MIN <= MAX <= %llu",
                        (unsigned long long)min, (unsigned long long)max, GDR_SIZE_MIN,
                        (unsigned long long)GDR_SIZE_MAX);
    if (factor < 2)
        return gdr_fail(GDR_EXIT_USAGE, "size factor %u: must be 2 or more", factor);
    list->count = 0;
    for (uint64_t s = min; s < max; s *= factor)
        list->size[list->count++] = s; /* at most 30 steps for factor >= 2 */
    list->size[list->count++] = max;
    return 0;
}

int gdr_sizes_parse(struct gdr_size_list *list, const char *spec)
{
    char buf[128];
    if (strlen(spec) >= sizeof(buf))
        return gdr_fail(GDR_EXIT_USAGE, "--sizes '%.40s...': too long", spec);
    strcpy(buf, spec);

    char *fields[4];
    int n = 0;
    for (char *p = buf, *tok; n < 4 && (tok = strsep(&p, ":"));)
        fields[n++] = tok;
    if (n < 2 || n > 3)
        return gdr_fail(GDR_EXIT_USAGE, "--sizes '%s': expected MIN:MAX[:FACTOR]", spec);

    uint64_t min, max, factor = 2;
    if (gdr_parse_bytes(fields[0], &min))
        return gdr_fail(GDR_EXIT_USAGE, "--sizes '%s': bad MIN '%s'", spec, fields[0]);
    if (gdr_parse_bytes(fields[1], &max))
        return gdr_fail(GDR_EXIT_USAGE, "--sizes '%s': bad MAX '%s'", spec, fields[1]);
    if (n == 3) {
        char *end;
        errno = 0;
        factor = strtoull(fields[2], &end, 10);
        if (!isdigit((unsigned char)fields[2][0]) || *end || errno || factor < 2 || factor > 1024)
            return gdr_fail(GDR_EXIT_USAGE, "--sizes '%s': bad FACTOR '%s' (integer 2..1024)", spec,
                            fields[2]);
    }
    /* Checked here too, so the message names the option the user typed. */
    if (min < GDR_SIZE_MIN || max > GDR_SIZE_MAX || min > max)
        return gdr_fail(GDR_EXIT_USAGE, "--sizes '%s': need %u <= MIN <= MAX <= 1G", spec,
                        GDR_SIZE_MIN);
    return gdr_sizes_range(list, min, max, (unsigned)factor);
}

uint64_t gdr_sizes_max(const struct gdr_size_list *list)
{
    uint64_t m = 0;
    for (size_t i = 0; i < list->count; i++)
        if (list->size[i] > m)
            m = list->size[i];
    return m;
}
