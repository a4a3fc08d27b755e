# SPDX-License-Identifier: MIT
"""tests/e2e/nic_models.py: the NIC models an end-to-end test runs on, as
pytest parameters: Debian QEMU's virtio-net, and the 82599 (`ixgbe`) and
the ConnectX-4 (`mlx5`, and one of its VFs as a guest sees it, trusted by
its host so that it may be promiscuous) of our own QEMU build (make qemu),
skipped where that build is missing. A model is the -device's name and
its options; driver() gives the name alone.

    @pytest.fixture(params=nic_models.PARAMS)
    def model(request): return request.param

What differs between them for a test: RSS_ON, the QEMU arguments that
give the device RSS (virtio-net's is off by default; the 82599 and the
ConnectX have it)."""
import pytest

from netlab import qemu

VIRTIO, IXGBE, MLX5, MLX5_VF = "virtio-net-pci", "ixgbe", "mlx5", "mlx5,vf=on,trusted=on"
_OWN = pytest.mark.skipif(qemu.own_qemu_missing() is not None, reason=str(qemu.own_qemu_missing()))
PARAMS = [pytest.param(VIRTIO, id="virtio"), pytest.param(IXGBE, id="ixgbe", marks=_OWN),
          pytest.param(MLX5, id="mlx5", marks=_OWN), pytest.param(MLX5_VF, id="mlx5vf", marks=_OWN)]
RSS_ON = {VIRTIO: ["-global", "virtio-net-pci.rss=on"], IXGBE: [], MLX5: [], MLX5_VF: []}


def driver(model):
    """The device's name: what `debug NAME-reset` and `show NAME` say."""
    return model.split(",")[0]
