# SPDX-License-Identifier: MIT
"""tests/e2e/test_ixgbe_model.py: the 82599 model of our QEMU build
(qemu/hw/net/ixgbe/) on its own, no guest: qemu/tests/strict_check.py (the
PF's strict checks and EEPROM) and qemu/tests/sriov_check.py (the SR-IOV
capability, the PF/VF mailbox, VF queues on their pool's PF queues, VFLR,
sriov=off), each driving registers over qtest. Skips until `make qemu`
has built build/qemu/qemu-system-x86_64. Needs no root."""
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tools"))
import qemu  # noqa: E402

pytestmark = pytest.mark.skipif(qemu.own_qemu_missing() is not None, reason=str(qemu.own_qemu_missing()))


@pytest.mark.parametrize("script", ["strict_check.py", "sriov_check.py"])
def test_model_qtest(script):
    r = subprocess.run([sys.executable, os.path.join(ROOT, "qemu", "tests", script), qemu.OWN_QEMU],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and "all passed" in r.stdout, r.stdout + r.stderr
