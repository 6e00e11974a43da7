/* irq.c - a PCI function's completion interrupts and their CPUs; see irq.h. */
#include "config.h"

#include "irq.h"
#include "topo.h"

#include <ctype.h>
#include <stdbool.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Does one /proc/interrupts line belong to a completion vector of bdf?
 * The action names are the line's last words ("mlx5_comp3@pci:0000:81:00.0",
 * several actions comma-separated). */
static bool is_completion_of(const char *line, const char *bdf)
{
    char want[64];
    snprintf(want, sizeof(want), "@pci:%s", bdf);
    for (const char *at = strstr(line, want); at; at = strstr(at + 1, want)) {
        const char *end = at + strlen(want);
        if (*end && !isspace((unsigned char)*end) && *end != ',')
            continue; /* a longer BDF */
        const char *word = at;
        while (word > line && !isspace((unsigned char)word[-1]) && word[-1] != ',')
            word--;
        char name[64];
        snprintf(name, sizeof(name), "%.*s", (int)(at - word), word);
        if (strstr(name, "comp"))
            return true;
    }
    return false;
}

/* Append IRQ irq's CPU list (the effective one, else the allowed) to
 * list; 0, or -ENOENT when neither is there, -ENOSPC when it does not fit. */
static int append_affinity(const char *root, long irq, char *list, size_t len)
{
    static const char *const names[] = {"effective_affinity_list", "smp_affinity_list"};
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        char path[4096], text[1024];
        snprintf(path, sizeof(path), "%s/irq/%ld/%s", root, irq, names[i]);
        if (gdr_topo_read_line(path, text, sizeof(text)) != 0)
            continue;
        text[strcspn(text, " ")] = '\0';
        if (!text[0])
            continue;
        size_t used = strlen(list);
        int w = snprintf(list + used, len - used, "%s%s", used ? "," : "", text);
        return w < 0 || (size_t)w >= len - used ? -ENOSPC : 0;
    }
    return -ENOENT;
}

int gdr_topo_irq_cpulist(const char *proc_root, const char *bdf, char *list, size_t len)
{
    const char *root = proc_root ? proc_root : "/proc";
    char path[4096];
    if (len)
        list[0] = '\0';
    if (!bdf || !*bdf)
        return 0;
    snprintf(path, sizeof(path), "%s/interrupts", root);
    FILE *f = fopen(path, "r");
    if (!f)
        return -errno;
    int n = 0, rc = 0;
    char *line = NULL;
    size_t cap = 0;
    while (rc == 0 && getline(&line, &cap, f) > 0) {
        char *colon;
        long irq = strtol(line, &colon, 10);
        if (colon == line || *colon != ':' || !is_completion_of(colon, bdf))
            continue;
        n++;
        if (append_affinity(root, irq, list, len) == -ENOSPC)
            rc = -ENOSPC;
    }
    free(line);
    fclose(f);
    return rc ? rc : n;
}
