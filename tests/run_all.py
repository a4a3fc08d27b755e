#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""tests/run_all.py: every test suite, in order, then one total (`make test`).

Suites: build/unit/tests, tests/route/run and tests/fuzz/run where they
exist (each ends with "N passed, N failed"), then pytest on tests/docs,
tests/boot and tests/e2e. Output streams through as it comes. The very last line is
"N passed, N failed" (", N skipped" when some were) over all suites; the
exit status is non-zero if anything failed or a suite ended without its
summary line (counted as one failure).
"""
import os
import re
import signal
import subprocess
import sys
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SUITE_TIMEOUT_S = 40 * 60  # CI has 90 minutes in all; a hang must not eat them
COUNT_RX = re.compile(r"(\d+) (passed|failed|errors?|skipped|xfailed|xpassed)\b")
PLAIN_RX = re.compile(r"^(\d+) passed, (\d+) failed")


def run(argv, env=None):
    """Run argv, echoing its output; returns (exit status, output). A suite
    still running after SUITE_TIMEOUT_S is killed, its process group too."""
    print(f"\n=== {' '.join(os.path.relpath(a, ROOT) if a.startswith(ROOT) else a for a in argv)}",
          flush=True)
    out = []
    p = subprocess.Popen(argv, cwd=ROOT, env=env, stdin=subprocess.DEVNULL,
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         start_new_session=True)
    def overdue():
        print(f"run_all: {argv[0]}: killed after {SUITE_TIMEOUT_S}s", flush=True)
        os.killpg(p.pid, signal.SIGKILL)
    timer = threading.Timer(SUITE_TIMEOUT_S, overdue)
    timer.start()
    for line in iter(p.stdout.readline, b""):
        text = line.decode(errors="replace")
        sys.stdout.write(text)
        sys.stdout.flush()
        out.append(text)
    rc = p.wait()
    timer.cancel()
    p.stdout.close()
    return rc, "".join(out)


def plain_counts(rc, out):
    """(passed, failed, skipped) from a last line "N passed, N failed"."""
    lines = [ln for ln in out.splitlines() if ln.strip()]
    m = PLAIN_RX.match(lines[-1].strip()) if lines else None
    if not m:
        return None
    passed, failed = int(m.group(1)), int(m.group(2))
    if rc != 0 and failed == 0:
        failed = 1  # a non-zero exit with nothing failed is still a failure
    return passed, failed, 0


def pytest_counts(rc, out):
    """(passed, failed, skipped) from pytest's last summary line; errors
    count as failed. Exit status 5 means no tests were collected."""
    if rc == 5:
        return 0, 0, 0
    for ln in reversed(out.splitlines()):
        if re.search(r"\b(passed|failed|errors?|skipped|no tests ran)\b", ln) and " in " in ln:
            c = {}
            for n, what in COUNT_RX.findall(ln):
                c[what.rstrip("s") if what.startswith("error") else what] = int(n)
            passed = c.get("passed", 0) + c.get("xpassed", 0)
            failed = c.get("failed", 0) + c.get("error", 0)
            if rc not in (0, 1) and failed == 0:
                failed = 1  # interrupted, internal error, usage error
            return passed, failed, c.get("skipped", 0) + c.get("xfailed", 0)
    return None


def script(path):
    """How to run a suite script: directly if executable, else by its #!."""
    if os.access(path, os.X_OK):
        return [path]
    with open(path, "rb") as f:
        first = f.readline().decode(errors="replace")
    return first[2:].split() + [path] if first.startswith("#!") else ["bash", path]


def main():
    suites = [("unit", [os.path.join(ROOT, "build", "unit", "tests")], plain_counts)]
    for name in ("route", "fuzz"):
        path = os.path.join(ROOT, "tests", name, "run")
        if os.path.exists(path):
            suites.append((name, script(path), plain_counts))
    env = dict(os.environ, HAYATE_NO_BUILD="1")  # make test built the image already
    dirs = [d for d in (os.path.join("tests", "docs"), os.path.join("tests", "boot"),
                        os.path.join("tests", "e2e"))
            if os.path.isdir(os.path.join(ROOT, d))]
    suites.append(("qemu", [sys.executable, "-m", "pytest", "-q", "-rs", *dirs], pytest_counts))

    results = []
    for name, argv, parse in suites:
        t0 = time.monotonic()
        try:
            rc, out = run(argv, env)
            counts = parse(rc, out)
        except OSError as e:
            print(f"run_all: {name}: {e}", flush=True)
            counts = None
        if counts is None:
            print(f"run_all: {name}: ended without a summary: counted as 1 failure", flush=True)
            counts = (0, 1, 0)
        results.append((name, counts, time.monotonic() - t0))

    print("\n=== summary")
    total = [0, 0, 0]
    for name, (p, f, s), secs in results:
        print(f"  {name:<6} {p:5} passed {f:4} failed {s:4} skipped  {secs:6.1f}s")
        total = [total[0] + p, total[1] + f, total[2] + s]
    line = f"{total[0]} passed, {total[1]} failed"
    print(line + (f", {total[2]} skipped" if total[2] else ""), flush=True)
    return 1 if total[1] else 0


if __name__ == "__main__":
    sys.exit(main())
