#!/usr/bin/env python3
"""check-junit.py FILE - hold a JUnit XML report to what CI systems read.

Parsed with xml.etree (a real parser: malformed XML fails); then the rules
of the JUnit format that Jenkins, GitLab and GitHub test reporters rely on:
<testsuites> with <testsuite> children, each testcase named with a
classname and a numeric time, only failure/error/skipped/system-out/
system-err inside a testcase, failure and error with message and type, and
the tests/failures/errors/skipped counts equal to what the elements hold
(skipped on <testsuite> only: Jenkins xunit's junit-10 schema has no such
attribute on <testsuites>; junit-10.xsd beside this file is checked with
xmllint by junit-schema.test).
Prints "N testcases, F failures, S skipped" or the problems; exit 0 or 1.
"""
import sys
import xml.etree.ElementTree as ET


def main(path):
    problems = []

    def need(cond, what):
        if not cond:
            problems.append(what)

    root = ET.parse(path).getroot()
    need(root.tag == "testsuites", "the root is <testsuites>")
    suites = root.findall("testsuite")
    need(len(suites) >= 1, "at least one <testsuite>")

    def count(el, attr):
        v = el.get(attr)
        need(v is not None and v.isdigit(), "<%s> has a numeric %s" % (el.tag, attr))
        return int(v) if v and v.isdigit() else -1

    for el in [root] + suites:
        cases = list(el.iter("testcase"))
        need(count(el, "tests") == len(cases), "<%s> tests = its testcases" % el.tag)
        for attr, child in (("failures", "failure"), ("errors", "error"), ("skipped", "skipped")):
            if el is root and attr == "skipped":
                need(el.get(attr) is None, "<testsuites> has no skipped attribute")
                continue
            need(count(el, attr) == sum(1 for c in cases if c.find(child) is not None),
                 "<%s> %s = its testcases with <%s>" % (el.tag, attr, child))
    for s in suites:
        need(s.get("name"), "<testsuite> has a name")
        ts = s.get("timestamp", "")
        need(len(ts) == 19 and ts[10] == "T", "timestamp is ISO 8601 without a zone: %r" % ts)
        for c in s.findall("testcase"):
            need(c.get("name") and c.get("classname"), "<testcase> has name and classname")
            try:
                float(c.get("time", ""))
            except ValueError:
                need(False, "<testcase> time is a number")
            for child in c:
                need(child.tag in ("failure", "error", "skipped", "system-out", "system-err"),
                     "<testcase> child <%s> allowed" % child.tag)
                if child.tag in ("failure", "error"):
                    need(child.get("message") and child.get("type"),
                         "<%s> has message and type" % child.tag)
    cases = list(root.iter("testcase"))
    if problems:
        print("\n".join(sorted(set(problems))))
        return 1
    print("%d testcases, %d failures, %d skipped" % (
        len(cases), sum(1 for c in cases if c.find("failure") is not None),
        sum(1 for c in cases if c.find("skipped") is not None)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
