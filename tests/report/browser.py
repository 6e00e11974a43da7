#!/usr/bin/env python3
"""browser.py SPEC.json - gdr-report's and the dashboard's pages in headless
Chromium (python3-selenium + chromium-driver), as a reader opens them.

For each page of SPEC ({"shots": DIR or null, "pages": [{"path", "name",
"kind", ...}]}) it asserts:
  - no console error (a CSP violation is one) and no request other than
    file:// (the performance log's Network.requestWillBeSent);
  - every figure (<svg role="img">) rendered: a bounding box that is not
    empty;
  - usable at 1280 and at 390 px wide: no horizontal scroll of the page,
    text of at least 12 px, headings that do not overlap; a full-page
    screenshot of each width in DIR (NAME-1280.png, NAME-390.png);
  - "table": the numbers of one table, read from the DOM, equal the JSON
    documents (kind sweep: the bandwidth table of a test against each
    series' client document; compare: base and run; cluster: the aggregate
    table against gdr-cluster-core aggregate's JSON; dashboard: the index
    against gdr-history check --json; soak: the findings table against the
    soak's document);
  - "hostile": no planted script ran, no element carries an on* handler or
    is an <img>, and the planted strings show as text.
Prints one line per check; exit 0 when all pass, 1 otherwise, 77 when
Chromium, chromedriver or selenium is missing (the .test decides).
"""
import base64
import json
import os
import sys

try:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
except ImportError:
    print("SKIP: python3-selenium missing")
    sys.exit(77)

failures = 0


def check(cond, what):
    global failures
    print(("ok: " if cond else "FAIL: ") + what)
    if not cond:
        failures += 1


def driver():
    chromium = next((p for p in ("/usr/bin/chromium", "/usr/bin/chromium-browser",
                                 "/usr/bin/google-chrome") if os.path.exists(p)), None)
    drv = next((p for p in ("/usr/bin/chromedriver", "/usr/lib/chromium/chromedriver")
                if os.path.exists(p)), None)
    if not chromium or not drv:
        print("SKIP: chromium or chromedriver missing")
        sys.exit(77)
    o = webdriver.ChromeOptions()
    o.binary_location = chromium
    for a in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
              "--hide-scrollbars", "--force-device-scale-factor=1", "--font-render-hinting=none"):
        o.add_argument(a)
    o.set_capability("goog:loggingPrefs", {"browser": "ALL", "performance": "ALL"})
    return webdriver.Chrome(service=Service(drv), options=o)


def metrics(d, width, height=900):
    d.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
        "width": width, "height": height, "deviceScaleFactor": 1, "mobile": width < 600})


def screenshot(d, path, width):
    if width >= 1000:
        top = d.execute_cdp_cmd("Page.captureScreenshot", {"format": "png"})
        with open(path.replace(".png", "-top.png"), "wb") as f:
            f.write(base64.b64decode(top["data"]))
    h = d.execute_script("return Math.ceil(document.documentElement.scrollHeight)")
    metrics(d, width, min(h, 16000))
    shot = d.execute_cdp_cmd("Page.captureScreenshot", {"format": "png",
                                                        "captureBeyondViewport": True})
    with open(path, "wb") as f:
        f.write(base64.b64decode(shot["data"]))
    metrics(d, width)


LAYOUT_JS = """
const w = window.innerWidth, out = {w: w, scroll: document.documentElement.scrollWidth};
out.small = Array.from(document.querySelectorAll('p, td, th, li, dd, figcaption'))
  .filter(e => e.offsetParent && parseFloat(getComputedStyle(e).fontSize) < 12).length;
const hs = Array.from(document.querySelectorAll('h1, h2, h3')).map(e => e.getBoundingClientRect());
out.overlap = 0;
for (let i = 0; i < hs.length; i++) for (let j = i + 1; j < hs.length; j++) {
  const a = hs[i], b = hs[j];
  if (a.width && b.width && a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom)
    out.overlap++;
}
out.wide = Array.from(document.querySelectorAll('.fig, .tbl, header, section'))
  .filter(e => e.getBoundingClientRect().right > w + 1).length;
return out;
"""

# The figures (role="img"; the legends' little icons are aria-hidden).
SVG_JS = """
return Array.from(document.querySelectorAll('svg[role="img"]')).map(s => {
  const r = s.getBoundingClientRect(); let b = {width: 0, height: 0};
  try { b = s.getBBox(); } catch (e) {}
  return [r.width, r.height, b.width, b.height];
});
"""


def load_docs(d):
    """The client result documents of a directory (a baseline's files need
    not be named *.client.json)."""
    docs = []
    for n in sorted(os.listdir(d)):
        if n.endswith(".json") and n != "manifest.json":
            with open(os.path.join(d, n)) as f:
                doc = json.load(f)
            if doc.get("role") == "client":
                docs.append(doc)
    return docs


def key_of(doc):
    e = doc["ends"]
    pl = lambda r: e[r].get("placement", "host")
    rg = lambda r: e[r].get("registration", "host")
    return doc["test"], "%s-%s" % (pl("client"), pl("server")), "%s/%s" % (rg("client"), rg("server"))


def row_value(doc, size):
    for r in doc["results"]:
        if r["size"] == size:
            return r["bw_avg_bytes_per_s"] if "bw_avg_bytes_per_s" in r else r["latency_s"]["median"]
    return None


def close(a, b):
    return a is not None and b is not None and abs(a - b) <= 1e-6 * max(abs(a), abs(b), 1e-30)


def table_cells(d, selector):
    return d.execute_script("""
      const t = document.querySelector(arguments[0]); if (!t) return null;
      const heads = Array.from(t.querySelectorAll('thead th')).map(h =>
        ({pair: h.dataset.pair, reg: h.dataset.reg, text: h.textContent}));
      const rows = Array.from(t.querySelectorAll('tbody tr')).map(r => ({size: r.dataset.size,
        cells: Array.from(r.querySelectorAll('td')).map(c => ({si: c.dataset.si, text: c.textContent}))}));
      return {heads: heads, rows: rows};""", selector)


def check_table(d, page):
    kind = page["kind"]
    if kind == "sweep":
        docs = {key_of(x): x for x in load_docs(page["docs"])}
        t = table_cells(d, 'table[data-kind="bandwidth"][data-test="%s"]' % page["test"])
        check(t is not None, "%s: the %s bandwidth table is there" % (page["name"], page["test"]))
        if not t:
            return
        n = 0
        unit = 1e-9 if "GB/s" in t["heads"][0]["text"] else 1e-6
        for row in t["rows"]:
            for h, c in zip(t["heads"][1:], row["cells"]):
                doc = docs.get((page["test"], h["pair"], h["reg"]))
                want = row_value(doc, int(row["size"])) if doc else None
                got = float(c["si"]) if c["si"] else None
                shown = float(c["text"].split()[0].rstrip("\u2717")) if c["si"] else None
                ok = close(got, want) and abs(shown - want * unit) <= 0.006 * want * unit + 1e-9
                if not ok:
                    print("  | %s %s size %s: page %s (%s), document %s" % (
                        h["pair"], h["reg"], row["size"], got, c["text"], want))
                n += ok
        cells = sum(len(r["cells"]) for r in t["rows"])
        check(n == cells and cells > 0,
              "%s: %d of %d bandwidth cells equal the documents" % (page["name"], n, cells))
    elif kind == "compare":
        base = {key_of(x): x for x in load_docs(page["base"])}
        run = {key_of(x): x for x in load_docs(page["docs"])}
        tables = d.execute_script("""return Array.from(document.querySelectorAll(
          'table[data-kind="compare"]')).map(t => ({test: t.dataset.test, pair: t.dataset.pair,
          reg: t.dataset.reg, rows: Array.from(t.querySelectorAll('tbody tr')).map(r => ({
          size: r.dataset.size, si: Array.from(r.querySelectorAll('td[data-si]')).map(
          c => parseFloat(c.dataset.si))}))}))""")
        n = total = 0
        for t in tables:
            k = (t["test"], t["pair"], t["reg"])
            for r in t["rows"]:
                total += 1
                n += (close(r["si"][0], row_value(base[k], int(r["size"]))) and
                      close(r["si"][1], row_value(run[k], int(r["size"]))))
        check(total > 0 and n == total,
              "%s: %d of %d baseline/run pairs equal the documents" % (page["name"], n, total))
    elif kind == "cluster":
        with open(page["aggregate"]) as f:
            agg = json.load(f)["aggregates"]
        t = table_cells(d, 'table[data-kind="aggregate"]')
        check(t is not None and len(t["rows"]) == len(agg), "%s: an aggregate row per size"
              % page["name"])
        if t:
            ok = all(close(float(r["cells"][3]["si"]), a["min_bytes_per_s"]) and
                     close(float(r["cells"][4]["si"]), a["median_bytes_per_s"]) and
                     close(float(r["cells"][5]["si"]), a["max_bytes_per_s"])
                     for r, a in zip(t["rows"], agg))
            check(ok, "%s: min/median/max equal gdr-cluster-core aggregate" % page["name"])
    elif kind == "soak":
        with open(page["doc"]) as f:
            want = [x["kind"] for x in json.load(f)["soak"]["findings"]]
        got = d.execute_script("""return Array.from(document.querySelectorAll(
          'table[data-kind="soak-findings"] tbody tr')).map(r => r.dataset.finding)""")
        check(got == want and want, "%s: the findings table %s equals the document's %s"
              % (page["name"], got, want))
    elif kind == "dashboard":
        with open(page["check"]) as f:
            want = json.load(f)
        counts = d.execute_script("""return Array.from(document.querySelectorAll(
          'table[data-kind="series"] tbody tr td:first-child')).map(c => c.textContent)""")
        got = {}
        for v in counts:
            got[v] = got.get(v, 0) + 1
        exp = {k: v for k, v in want["counts"].items() if v and k != "failed runs"}
        check(got == exp, "%s: the index's verdicts %s equal gdr-history check %s"
              % (page["name"], got, exp))


def check_canary(d, page):
    """The checks must see what this page does wrong."""
    d.get_log("browser")
    d.get_log("performance")
    d.get("file://" + os.path.abspath(page["path"]))
    errors = [e for e in d.get_log("browser") if e["level"] == "SEVERE"]
    urls = [json.loads(e["message"])["message"]["params"]["request"]["url"]
            for e in d.get_log("performance")
            if json.loads(e["message"])["message"]["method"] == "Network.requestWillBeSent"]
    check(any("canary error" in e["message"] for e in errors),
          "canary: the console error is seen")
    check(any(u.startswith("http://198.51.100.7/") for u in urls),
          "canary: the remote request is seen")
    empty = [s for s in d.execute_script(SVG_JS) if not (s[2] > 0 and s[3] > 0)]
    check(len(empty) == 1, "canary: the empty SVG is seen")


def check_page(d, page, shots):
    if page["kind"] == "canary":
        return check_canary(d, page)
    name, url = page["name"], "file://" + os.path.abspath(page["path"])
    d.get_log("browser")
    d.get_log("performance")
    metrics(d, 1280)
    d.get(url)
    d.execute_script("return document.readyState")
    errors = [e for e in d.get_log("browser") if e["level"] == "SEVERE"]
    for e in errors:
        print("  | console: " + e["message"][:300])
    check(not errors, "%s: no console error" % name)
    urls = []
    for e in d.get_log("performance"):
        m = json.loads(e["message"])["message"]
        if m["method"] == "Network.requestWillBeSent":
            urls.append(m["params"]["request"]["url"])
    bad = [u for u in urls if not u.startswith("file://")]
    for u in bad:
        print("  | request: " + u[:200])
    check(urls and not bad, "%s: %d requests, all file://" % (name, len(urls)))
    svgs = d.execute_script(SVG_JS)
    empty = [s for s in svgs if not (s[0] > 0 and s[1] > 0 and s[2] > 0 and s[3] > 0)]
    check(len(svgs) >= page.get("min_svgs", 1) and not empty,
          "%s: %d figures (SVG) rendered, %d empty" % (name, len(svgs), len(empty)))
    for width in (1280, 390):
        metrics(d, width)
        lay = d.execute_script(LAYOUT_JS)
        check(lay["scroll"] <= lay["w"] + 1 and lay["wide"] == 0 and lay["small"] == 0 and
              lay["overlap"] == 0,
              "%s at %d px: no page scroll (%d), nothing wider, no text under 12 px (%d), no "
              "overlapping heading (%d)" % (name, width, lay["scroll"], lay["small"],
                                            lay["overlap"]))
        if shots:
            screenshot(d, os.path.join(shots, "%s-%d.png" % (name, width)), width)
    metrics(d, 1280)
    if page.get("kind") in ("sweep", "compare", "cluster", "soak", "dashboard") and "no_table" not in page:
        check_table(d, page)
    if page.get("hostile"):
        ran = d.execute_script("return window.pwned === undefined && document.title !== 'pwned'")
        check(ran, "%s: no planted script ran" % name)
        handlers = d.execute_script("""return Array.from(document.querySelectorAll('*')).filter(
          e => Array.from(e.attributes).some(a => a.name.startsWith('on'))).length +
          document.querySelectorAll('img, script, iframe, object, embed').length""")
        check(handlers == 0, "%s: no element with an on* handler, no img or script (%d)"
              % (name, handlers))
        text = d.execute_script("return document.body.innerText")
        check('<script>document.title="pwned"' in text and "</svg><script>" in text,
              "%s: the planted strings show as text" % name)
        sections = d.execute_script("return Array.from(document.querySelectorAll('section'))"
                                    ".map(s => s.id)")
        check(all(s in sections for s in page["hostile"]),
              "%s: its sections are all there: %s" % (name, sections))


def main():
    with open(sys.argv[1]) as f:
        spec = json.load(f)
    d = driver()
    try:
        for page in spec["pages"]:
            check_page(d, page, spec.get("shots"))
    finally:
        d.quit()
    print("%d failure(s)" % failures)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
