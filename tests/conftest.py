# SPDX-License-Identifier: MIT
"""tests/conftest.py: fixtures shared by the QEMU tests (boot/ and e2e/).

  iso      build/hayate.iso, brought up to date with `make iso` once a session
  mkiso    mkiso(config_text, files=()) -> a custom image (tools/mkiso)
  boot     boot(iso=None, ready=True, timeout=30, **Machine options) -> a running
           tools/qemu.py Machine, killed when the test ends
  report   report(line): a line for the "hayate" section of the summary
  record_ready  record_ready(machine): wait for ready, keep the boot time

Environment: HAYATE_ISO uses that image as is; HAYATE_NO_BUILD=1 skips
`make iso` (tests/run_all.py sets it: make test built everything first);
HAYATE_ACCEL=kvm|tcg (default tcg).
"""
import os
import re
import statistics
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tools"))
import qemu  # noqa: E402

_report_lines = []
_ready_times = []


def pytest_terminal_summary(terminalreporter):
    if _ready_times:
        t = sorted(_ready_times)
        _report_lines.insert(0, f"QEMU start to 'hayate: ready' ({qemu.accel_default()}): "
                             f"median {statistics.median(t):.2f}s, min {t[0]:.2f}s, "
                             f"max {t[-1]:.2f}s over {len(t)} boots")
    if _report_lines:
        terminalreporter.section("hayate")
        for ln in _report_lines:
            terminalreporter.write_line(ln)


@pytest.fixture(scope="session")
def report():
    return _report_lines.append


def _record_ready(m, timeout=qemu.BOOT_TIMEOUT):
    _ready_times.append(m.wait_ready(timeout))
    return m


@pytest.fixture(scope="session")
def record_ready():
    """record_ready(machine): wait for "hayate: ready", keep the boot time
    for the summary."""
    return _record_ready


@pytest.fixture(scope="session")
def iso():
    if os.environ.get("HAYATE_ISO"):
        return os.environ["HAYATE_ISO"]
    if not os.environ.get("HAYATE_NO_BUILD"):
        r = subprocess.run(["make", "-s", "iso"], cwd=ROOT, capture_output=True, text=True)
        if r.returncode:
            pytest.fail(f"make iso failed:\n{r.stdout}{r.stderr}", pytrace=False)
    if not os.path.exists(qemu.ISO):
        pytest.fail(f"{qemu.ISO} missing (make iso)", pytrace=False)
    return qemu.ISO


def log_name(request):
    """file-test[param], usable as a log file name."""
    mod = os.path.splitext(os.path.basename(request.node.fspath))[0]
    return re.sub(r"[^\w.-]", "_", f"{mod}-{request.node.name}")


@pytest.fixture
def mkiso(request, tmp_path, iso):
    """mkiso(config_text, files=(), name=...) -> path of a new image with
    that config (and those FILEs as modules), built from build/hayate.elf."""
    def build(config_text, files=(), name=None):
        name = name or log_name(request)
        conf = tmp_path / f"{name}.conf"
        conf.write_text(config_text)
        out = tmp_path / f"{name}.iso"
        r = subprocess.run([os.path.join(ROOT, "tools", "mkiso"), str(conf), str(out), *map(str, files)],
                           cwd=ROOT, capture_output=True, text=True, timeout=120)
        if r.returncode:
            pytest.fail(f"tools/mkiso failed:\n{r.stderr}", pytrace=False)
        return str(out)
    return build


@pytest.fixture
def boot(request, iso):
    machines = []

    def start(iso_path=None, ready=True, timeout=qemu.BOOT_TIMEOUT, **kw):
        name = kw.pop("name", None) or log_name(request) + (f"-{len(machines)}" if machines else "")
        m = qemu.Machine(iso_path or iso, name=name, **kw)
        machines.append(m)
        m.start()
        if ready:
            _record_ready(m, timeout)
        return m

    yield start
    for m in machines:
        m.kill()
