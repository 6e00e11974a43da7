/* figset.c - a page's figures: one gnuplot process, its SVG inlined
 * under a strict CSP (figure.h). */
#include "config.h"

#include "figure.h"
#include "atomic_file.h"
#include "error.h"
#include "escape.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static char *slurp(const char *path, size_t *len);

/* The mark a page holds where figure k goes: control characters, which
 * no escaped text can carry. */
#define MARK_OPEN '\x01'
#define MARK_CLOSE '\x02'

int gdr_figset_open(struct gdr_figset *s)
{
    memset(s, 0, sizeof(*s));
    const char *tmp = getenv("TMPDIR");
    snprintf(s->dir, sizeof(s->dir), "%s/gdr-figures.XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(s->dir))
        return gdr_fail(GDR_EXIT_USAGE, "%s: %s", s->dir, strerror(errno));
    char path[4200];
    snprintf(path, sizeof(path), "%s/page.gp", s->dir);
    s->gp = fopen(path, "w");
    s->tips = open_memstream(&s->tip_text, &s->tip_len);
    if (!s->gp || !s->tips) {
        gdr_figset_close(s);
        return gdr_fail(GDR_EXIT_USAGE, "%s: %s", path, strerror(errno));
    }
    gdr_fig_preamble(s->gp);
    return 0;
}

static void push(char ***arr, size_t n, const char *v)
{
    char **a = realloc(*arr, (n + 1) * sizeof(char *));
    if (a) {
        a[n] = strdup(v ? v : "");
        *arr = a;
    }
}

void gdr_figset_place(struct gdr_figset *s, struct gdr_buf *page, const char *name,
                      const char *label)
{
    push(&s->name, s->n, name);
    push(&s->label, s->n, label);
    gdr_buf_printf(page, "%c%zu%c", MARK_OPEN, s->n++, MARK_CLOSE);
}

FILE *gdr_figset_add(struct gdr_figset *s, struct gdr_buf *page, const char *label, unsigned w,
                     unsigned h)
{
    char name[32];
    snprintf(name, sizeof(name), "f%zu", s->n);
    fprintf(s->gp, "reset\n");
    gdr_fig_output(s->gp, false, name, w, h);
    gdr_figset_place(s, page, name, label);
    return s->gp;
}

size_t gdr_figset_tip(struct gdr_figset *s, const char *text, const char *href)
{
    if (s->ntips == s->tip_cap) {
        size_t cap = s->tip_cap ? 2 * s->tip_cap : 1024;
        size_t *o = realloc(s->tip_at, cap * sizeof(*o));
        if (!o)
            return 0;
        s->tip_at = o;
        s->tip_cap = cap;
    }
    text = text ? text : "";
    href = href ? href : "";
    size_t tl = strlen(text) + 1, hl = strlen(href) + 1;
    s->tip_at[s->ntips] = s->tip_end; /* no fflush: the stream's length lags */
    s->tip_end += tl + hl;
    fwrite(text, 1, tl, s->tips);
    fwrite(href, 1, hl, s->tips);
    return s->ntips++;
}

int gdr_figset_stream(struct gdr_figset *s)
{
    char path[4200];
    snprintf(path, sizeof(path), "%s/page.gp", s->dir);
    int fd[2];
    if (s->pid || fflush(s->gp) || pipe2(fd, O_CLOEXEC))
        return gdr_fail(GDR_EXIT_RUN, "%s: %s", path, s->pid ? "already drawn" : strerror(errno));
    const char *in = "/dev/stdin"; /* "-" reads a byte a call */
    if (gdr_fig_spawn(s->dir, &in, 1, NULL, fd[0], &s->pid)) {
        close(fd[0]);
        close(fd[1]);
        return -1;
    }
    close(fd[0]);
    /* gnuplot's end shows in its exit status, not as a signal here */
    signal(SIGPIPE, SIG_IGN);
    FILE *to = fdopen(fd[1], "w");
    size_t n = 0;
    char *head = slurp(path, &n);
    if (!to || !head || fwrite(head, 1, n, to) != n) {
        free(head);
        if (to)
            fclose(to);
        else
            close(fd[1]);
        return gdr_fail(GDR_EXIT_RUN, "gnuplot's script: %s", strerror(errno));
    }
    free(head);
    fclose(s->gp);
    s->gp = to;
    return 0;
}

int gdr_figset_draw(struct gdr_figset *s)
{
    fprintf(s->gp, "unset output\n");
    if (s->pid) {
        fclose(s->gp); /* a write error is gnuplot's end: its status says */
        s->gp = NULL;
        pid_t pid = s->pid;
        s->pid = 0;
        int rc = gdr_fig_wait(pid, s->dir, NULL);
        return rc ? rc : fflush(s->tips) ? gdr_fail(GDR_EXIT_RUN, "out of memory") : 0;
    }
    if (fclose(s->gp)) {
        s->gp = NULL;
        return gdr_fail(GDR_EXIT_USAGE, "%s/page.gp: write error", s->dir);
    }
    s->gp = NULL;
    if (fflush(s->tips))
        return gdr_fail(GDR_EXIT_RUN, "out of memory");
    if (s->n == 0)
        return 0;
    const char *script = "page.gp";
    return gdr_fig_draw(s->dir, &script, 1, NULL);
}

/* ---- gnuplot's SVG, made fit to inline ---- */

static bool at(const char *p, const char *end, const char *lit)
{
    size_t n = strlen(lit);
    return (size_t)(end - p) >= n && !memcmp(p, lit, n);
}

/* Past the first lit at or after p (end when none). */
static const char *past(const char *p, const char *end, const char *lit)
{
    size_t n = strlen(lit);
    for (; p + n <= end; p++)
        if (!memcmp(p, lit, n))
            return p + n;
    return end;
}

/* A tip as <title> (and an <a> around it when it links); returns whether
 * it opened an <a>. */
static bool put_tip(FILE *out, const struct gdr_figset *s, size_t k)
{
    const char *text = k < s->ntips ? s->tip_text + s->tip_at[k] : "";
    const char *href = text + strlen(text) + 1;
    bool a = k < s->ntips && *href;
    if (a) {
        fputs("<a href=\"", out);
        gdr_esc_xml(out, href);
        fputs("\">", out);
    } else {
        fputs("<g>", out);
    }
    fputs("<title>", out);
    gdr_esc_xml(out, text);
    fputs("</title>", out);
    return a;
}

static bool space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* Past the tag that opens at p, quotes respected (end when unclosed). */
static const char *tag_end(const char *p, const char *end)
{
    char q = 0;
    for (; p < end; p++) {
        if (q) {
            if (*p == q)
                q = 0;
        } else if (*p == '"' || *p == '\'') {
            q = *p;
        } else if (*p == '>') {
            return p + 1;
        }
    }
    return end;
}

/* Past the blanks and the empty groups (<g ...> blanks </g>) from p:
 * gnuplot's SVG terminal opens a group at every change of line style,
 * four of them around each hypertext point. */
static const char *skip_empty(const char *p, const char *end)
{
    for (;;) {
        while (p < end && space(*p))
            p++;
        if (!at(p, end, "<g ") && !at(p, end, "<g>"))
            return p;
        const char *t = tag_end(p, end), *q = t;
        if (t[-2] == '/')
            return p;
        while (q < end && space(*q))
            q++;
        if (!at(q, end, "</g>"))
            return p;
        p = q + 4;
    }
}

/* The groups open while filtering: where each opening tag is in the SVG
 * (NULL: a tip, closed by </a> when link) */
struct gstack {
    const char *tag[64];
    size_t len[64];
    bool link[64];
    size_t n;
};

static void gpush(struct gstack *g, const char *tag, size_t len, bool link)
{
    if (g->n < 64) {
        g->tag[g->n] = tag;
        g->len[g->n] = len;
        g->link[g->n] = link;
    }
    g->n++;
}

/* The markers of a figure's points, each gnuplot's <use> of a point type
 * at a scale and colour, defined once. */
struct markers {
    const char *key[16];
    size_t len[16], n;
};

/* At p, gnuplot's marker of a point,
 *   <use xlink:href='#ID' transform='translate(X,Y) scale(S)' color='C'/>
 * written as <use href="#fF-uK" x="X" y="Y"/> of a marker K defined at
 * its first point (a third of the bytes); returns past it, or NULL (p
 * is something else: left as it is). */
static const char *compact_use(FILE *out, struct markers *m, size_t fig, const char *p,
                               const char *end)
{
    const char *lit[] = {
        "<use xlink:href='#", "' transform='translate(", ",", ") scale(", ")' color='", "'/>"};
    const char *v[5], *e[5], *q = p;
    for (size_t i = 0; i < 6; i++) {
        if (!at(q, end, lit[i]))
            return NULL;
        q += strlen(lit[i]);
        if (i == 5)
            break;
        v[i] = q;
        while (q < end && *q != lit[i + 1][0] && *q != '<' && *q != '>' && *q != '"' &&
               (i != 0 || (*q != ' ' && *q != '&')))
            q++;
        e[i] = q;
    }
    /* the marker: ID, S and C (from the ID to the translate, and from
     * the scale to the end) */
    const char *key = v[3];
    size_t klen = (size_t)(e[4] - v[3]), k;
    for (k = 0; k < m->n; k++)
        if (m->len[k] == klen + (size_t)(e[0] - v[0]) &&
            !memcmp(m->key[k], v[0], (size_t)(e[0] - v[0])) &&
            !memcmp(m->key[k] + (e[0] - v[0]), key, klen))
            break;
    if (k == m->n) {
        if (k == 16)
            return NULL;
        size_t il = (size_t)(e[0] - v[0]);
        char *copy = malloc(il + klen);
        if (!copy)
            return NULL;
        memcpy(copy, v[0], il);
        memcpy(copy + il, key, klen);
        m->key[k] = copy;
        m->len[k] = il + klen;
        m->n++;
        fprintf(out,
                "<defs><use id=\"f%zu-u%zu\" href=\"#f%zu-%.*s\" transform=\"scale(%.*s)\" "
                "color=\"%.*s\"/></defs>",
                fig, k, fig, (int)il, v[0], (int)(e[3] - v[3]), v[3], (int)(e[4] - v[4]), v[4]);
    }
    fprintf(out, "<use href=\"#f%zu-u%zu\" x=\"%.*s\" y=\"%.*s\"/>", fig, k, (int)(e[1] - v[1]),
            v[1], (int)(e[2] - v[2]), v[2]);
    return q;
}

/* svg[0..len) as it goes into a page: no XML prolog, role="img" and the
 * label as its title, each id and reference to one prefixed with the
 * figure's number (several SVGs share a page), gnuplot's hypertext turned
 * into <title> children (a tip's link an <a>), no script or on*
 * attribute, whatever the terminal wrote; and smaller: empty groups go,
 * and a group closed and reopened at once with the same attributes (each
 * hypertext point has its own) stays open, so a point is an <a>, its
 * title and gnuplot's marker. */
void gdr_fig_svg_inline(FILE *out, const struct gdr_figset *s, size_t fig, const char *svg,
                        size_t len)
{
    const char *p = svg, *end = svg + len;
    char quote = 0;
    bool in_tag = false;
    struct gstack g = {.n = 0};
    struct markers marks = {.n = 0};
    const char *use;
    const char *hyper = "<g onmousemove=\"gnuplot_svg.showHypertext(evt,'";
    while (p < end) {
        if (!in_tag && *p != '<') {
            const char *lt = memchr(p, '<', (size_t)(end - p));
            if (!lt)
                lt = end;
            fwrite(p, 1, (size_t)(lt - p), out);
            p = lt;
            continue;
        }
        if (!in_tag) {
            if (at(p, end, "<?xml") || at(p, end, "<!--")) {
                p = past(p, end, ">");
            } else if (at(p, end, "<script")) {
                p = past(p, end, "</script>");
            } else if (at(p, end, "<desc>")) {
                p = past(p, end, "</desc>");
            } else if (at(p, end, "<title>")) {
                const char *t = p + 7, *e = past(t, end, "</title>");
                if (at(t, end, "Gnuplot</title>")) {
                    fputs("<title>", out);
                    gdr_esc_xml(out, fig < s->n ? s->label[fig] : "");
                    fputs("</title>", out);
                }
                p = e; /* gnuplot's plot names and hypertext's blank titles go */
            } else if (at(p, end, hyper)) {
                gpush(&g, NULL, 0, put_tip(out, s, strtoul(p + strlen(hyper), NULL, 10)));
                p = tag_end(p, end);
            } else if (at(p, end, "</g>")) {
                bool open = g.n > 0;
                size_t k = open ? --g.n : 0;
                const char *tag = open && k < 64 ? g.tag[k] : NULL;
                size_t tl = tag ? g.len[k] : 0;
                const char *next = skip_empty(p + 4, end);
                if (tag && (size_t)(end - next) >= tl && !memcmp(next, tag, tl) &&
                    !memmem(tag, tl, " id=", 4)) {
                    g.n++; /* the same group again: it stays open */
                    p = next + tl;
                    fputc('\n', out);
                    continue;
                }
                fputs(open && k < 64 && g.link[k] ? "</a>" : "</g>", out);
                p += 4;
            } else if (at(p, end, "<g ") || at(p, end, "<g>")) {
                const char *t = tag_end(p, end), *q = skip_empty(p, end);
                if (q != p) {
                    p = q; /* an empty group */
                    continue;
                }
                if (t[-2] != '/')
                    gpush(&g, p, (size_t)(t - p), false);
                fputc(*p++, out);
                in_tag = true;
            } else if (at(p, end, "<use xlink:href='#") &&
                       (use = compact_use(out, &marks, fig, p, end))) {
                p = use;
            } else if (at(p, end, "<svg")) {
                fputs("<svg role=\"img\"", out);
                p += 4;
                in_tag = true;
            } else {
                fputc(*p++, out);
                in_tag = true;
            }
            continue;
        }
        if (quote) {
            const char *e = memchr(p, quote, (size_t)(end - p));
            e = e ? e : end;
            const char *u = p;
            while ((u = memchr(u, 'u', (size_t)(e - u))) && !at(u, e, "url(#"))
                u++;
            if (u) { /* a reference inside a value */
                fwrite(p, 1, (size_t)(u - p), out);
                fprintf(out, "url(#f%zu-", fig);
                p = u + 5;
                continue;
            }
            fwrite(p, 1, (size_t)(e - p), out);
            p = e;
            if (p < end)
                fputc(*p++, out);
            quote = 0;
            continue;
        }
        if (space(*p)) {
            const char *a = p + 1;
            while (a < end && space(*a))
                a++;
            const char *n = a;
            while (n < end && ((*n >= 'a' && *n <= 'z') || *n == ':' || *n == '-'))
                n++;
            if (n - a > 2 && (a[0] == 'o' || a[0] == 'O') && (a[1] == 'n' || a[1] == 'N')) {
                /* an event handler: the attribute goes, value and all */
                const char *v = n;
                while (v < end && (*v == ' ' || *v == '='))
                    v++;
                char q = v < end ? *v : 0;
                p = (q == '"' || q == '\'') ? past(v + 1, end, (char[]){q, 0}) : v;
                continue;
            }
            bool id = n - a == 2 && !memcmp(a, "id", 2);
            bool href = (n - a == 4 && !memcmp(a, "href", 4)) ||
                        (n - a == 10 && !memcmp(a, "xlink:href", 10));
            if (id || href) {
                const char *v = n;
                while (v < end && (*v == ' ' || *v == '='))
                    v++;
                if (v < end && (*v == '"' || *v == '\'') && (id || (v + 1 < end && v[1] == '#'))) {
                    fwrite(p, 1, (size_t)(v + 1 + !id - p), out);
                    fprintf(out, "f%zu-", fig);
                    quote = *v;
                    p = v + 1 + !id;
                    continue;
                }
            }
        }
        if (at(p, end, "url(#")) {
            fprintf(out, "url(#f%zu-", fig);
            p += 5;
            continue;
        }
        if (*p == '"' || *p == '\'')
            quote = *p;
        else if (*p == '>')
            in_tag = false;
        fputc(*p++, out);
    }
    for (size_t i = 0; i < marks.n; i++)
        free((char *)marks.key[i]);
}

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return NULL;
    char *buf = NULL;
    size_t cap = 0;
    FILE *m = open_memstream(&buf, &cap);
    char chunk[65536];
    size_t n;
    while (m && (n = fread(chunk, 1, sizeof(chunk), f)) > 0)
        fwrite(chunk, 1, n, m);
    fclose(f);
    if (!m || fclose(m)) {
        free(buf);
        return NULL;
    }
    *len = cap;
    return buf;
}

int gdr_figset_write(struct gdr_figset *s, const char *page, size_t len, const char *path,
                     enum gdr_exit code)
{
    struct gdr_atomic_file a;
    if (gdr_atomic_open(&a, path, code))
        return -1;
    const char *p = page, *end = page + len;
    while (p < end) {
        const char *m = memchr(p, MARK_OPEN, (size_t)(end - p));
        if (!m) {
            fwrite(p, 1, (size_t)(end - p), a.f);
            break;
        }
        fwrite(p, 1, (size_t)(m - p), a.f);
        char *q;
        size_t k = strtoul(m + 1, &q, 10);
        p = q < end && *q == MARK_CLOSE ? q + 1 : m + 1;
        char file[4400];
        snprintf(file, sizeof(file), "%s/%s.svg", s->dir, k < s->n ? s->name[k] : "-");
        size_t n = 0;
        char *svg = k < s->n ? slurp(file, &n) : NULL;
        if (!svg) {
            gdr_atomic_abort(&a);
            return gdr_fail(GDR_EXIT_RUN, "%s: gnuplot drew no figure (%s)", path, file);
        }
        gdr_fig_svg_inline(a.f, s, k, svg, n);
        free(svg);
    }
    return gdr_atomic_commit(&a);
}

void gdr_figset_close(struct gdr_figset *s)
{
    if (s->gp)
        fclose(s->gp);
    if (s->pid) /* gnuplot ends at the end of its script */
        waitpid(s->pid, NULL, 0);
    if (s->tips)
        fclose(s->tips);
    free(s->tip_text);
    free(s->tip_at);
    for (size_t i = 0; i < s->n; i++) {
        free(s->name[i]);
        free(s->label[i]);
    }
    free(s->name);
    free(s->label);
    DIR *d = s->dir[0] ? opendir(s->dir) : NULL;
    struct dirent *e;
    while (d && (e = readdir(d))) {
        char path[4400];
        snprintf(path, sizeof(path), "%s/%s", s->dir, e->d_name);
        if (e->d_name[0] != '.')
            unlink(path);
    }
    if (d) {
        closedir(d);
        rmdir(s->dir);
    }
    memset(s, 0, sizeof(*s));
}

int gdr_fig_files_open(const char *dir, const char *script, const char *list,
                       struct gdr_atomic_file *f)
{
    char path[4200];
    snprintf(path, sizeof(path), "%s/%s", dir, script);
    if (gdr_atomic_open(&f[0], path, GDR_EXIT_USAGE))
        return -1;
    snprintf(path, sizeof(path), "%s/%s", dir, list);
    if (gdr_atomic_open(&f[1], path, GDR_EXIT_USAGE)) {
        gdr_atomic_abort(&f[0]);
        return -1;
    }
    gdr_fig_preamble(f[0].f);
    return 0;
}

int gdr_fig_files_close(struct gdr_atomic_file *f, bool ok)
{
    if (!ok) {
        gdr_atomic_abort(&f[0]);
        gdr_atomic_abort(&f[1]);
        return -1;
    }
    if (gdr_atomic_commit(&f[0])) {
        gdr_atomic_abort(&f[1]);
        return -1;
    }
    return gdr_atomic_commit(&f[1]);
}
