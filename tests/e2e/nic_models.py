# SPDX-License-Identifier: MIT
"""tests/e2e/nic_models.py: the NIC models an end-to-end test runs on, as
pytest parameters: Debian QEMU's virtio-net, and the 82599 (`ixgbe`) of
our own QEMU build (make qemu), skipped where that build is missing.

    @pytest.fixture(params=nic_models.PARAMS)
    def model(request): return request.param

What differs between them for a test: RSS_ON, the QEMU arguments that
give the device RSS (virtio-net's is off by default; the 82599 has it)."""
import pytest

from netlab import qemu

VIRTIO, IXGBE = "virtio-net-pci", "ixgbe"
PARAMS = [pytest.param(VIRTIO, id="virtio"),
          pytest.param(IXGBE, id="ixgbe",
                       marks=pytest.mark.skipif(qemu.own_qemu_missing() is not None,
                                                reason=str(qemu.own_qemu_missing())))]
RSS_ON = {VIRTIO: ["-global", "virtio-net-pci.rss=on"], IXGBE: []}
