#!/usr/bin/env python3
"""reports-agree.py DIR: a cluster run's report.md and report.html tell the
same story: the same verdict, the same suspects with the same status, the
same per-rail numbers, every quantity in the run's one unit. Both render
suspects.json's findings; this reads only what a person reads."""
import html
import re
import sys

UNIT = re.compile(r"\d(?:\.\d+)? (GB/s|MB/s|Gb/s|Mb/s|\u00b5s|us|ms)(?!\w)")


def md_table(text, heading):
    """Rows (lists of cells) of the first table after a '## heading' line."""
    part = text.split("\n## " + heading + "\n", 1)[1]
    rows = []
    for line in part.split("\n## ", 1)[0].splitlines():
        if line.startswith("|") and not line.startswith("|--"):
            rows.append([c.strip() for c in line.strip("|").split("|")])
    return rows[1:]


def html_table(page, kind):
    body = page.split('data-kind="%s"' % kind, 1)[1].split("</table>", 1)[0]
    rows = []
    for tr in re.findall(r"<tr[^>]*>(.*?)</tr>", body, re.S)[1:]:
        cells = re.findall(r"<t[dh][^>]*>(.*?)</t[dh]>", tr, re.S)
        rows.append([html.unescape(re.sub(r"<[^>]+>", " ", c)).strip() for c in cells])
    return rows


def main(run):
    md = open(run + "/report.md", encoding="utf-8").read()
    page = open(run + "/report.html", encoding="utf-8").read()
    text = html.unescape(re.sub(r"<[^>]+>", " ", page.split("</style>", 1)[-1]))
    got = {
        "verdict": (re.search(r"^- \*\*verdict: (\w+)\*\*", md, re.M).group(1),
                    re.search(r'data-verdict="(\w+)"', page).group(1)),
        "suspects": (sorted((r[0], " ".join(r[1].split()), r[4]) for r in md_table(md, "Suspects")
                            if len(r) == 6),
                     sorted((r[0], " ".join(r[1].replace(",", " ").split()), r[6])
                            for r in html_table(page, "suspects"))),
        "per rail": (sorted(tuple(r[:9]) for r in md_table(md, "Per rail")),
                     sorted(tuple(r[:9]) for r in html_table(page, "per-rail"))),
        "units": (sorted(set(UNIT.findall(md))), sorted(set(UNIT.findall(text)))),
    }
    bad = [k for k, (a, b) in got.items() if a != b]
    for k, (a, b) in got.items():
        print("%s %s: report.md %s, report.html %s" % ("FAIL" if k in bad else "same", k, a, b))
    units = set(got["units"][0])
    if (len(units & {"GB/s", "MB/s"}) != 1 or len(units & {"\u00b5s", "ms"}) > 1
            or units & {"Gb/s", "Mb/s", "us"}):
        print("FAIL units: one bandwidth unit a run (GB/s or MB/s), one latency unit "
              "(\u00b5s or ms), got %s" % sorted(units))
        bad.append("units")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
