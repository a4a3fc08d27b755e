# SPDX-License-Identifier: MIT
"""`tools/rfc2544 --check-wiring --wires tap`: the RFC 2544 lab on taps and
bridges, the backend vhost-net needs (#34's hayate-against-Linux
comparison under KVM), checked under TCG with vhost off. The Linux
stand-in tester pings through each DUT, hayate and the Linux guest, and
no tap or bridge of the run is left behind. Skips without root or
Debian's kernel (as test_linux_guest.py)."""
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tools"))
import linux_guest as lg  # noqa: E402
import netlab  # noqa: E402


def links():
    return set(subprocess.run(["ip", "-o", "link"], capture_output=True, text=True, check=True).stdout.split("\n"))


@pytest.mark.skipif(netlab.unavailable() is not None, reason=str(netlab.unavailable()))
def test_tap_wires_carry_pings_through_both_duts(report):
    try:
        lg.fetch()
    except lg.Unavailable as e:
        pytest.skip(f"Debian's kernel package cannot be had: {e}")
    before = {line.split(":")[1].strip().split("@")[0] for line in links() if line}
    r = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "rfc2544"), "--check-wiring", "--wires", "tap",
                        "--out", os.path.join(ROOT, "build", "rfc2544-wiring")],
                       capture_output=True, text=True, timeout=600, env=dict(os.environ, HAYATE_ACCEL="tcg"))
    print(r.stdout, r.stderr)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "accel tcg, wires tap" in r.stdout
    assert "wiring: 2 of 2 DUTs forwarded the stand-in's pings" in r.stdout
    for dut in ("hayate", "linux"):
        assert f"{dut}: ping 198.18.0.2 -> 198.19.0.2 through the DUT: PASS" in r.stdout
    after = {line.split(":")[1].strip().split("@")[0] for line in links() if line}
    assert after <= before, after - before
    report("rfc2544 lab on taps and bridges (TCG, vhost off): the stand-in's pings crossed hayate and Linux")


def test_vhost_needs_tap_wires():
    r = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "rfc2544"), "--vhost"],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and "--vhost needs --wires tap" in r.stderr
