# SPDX-License-Identifier: MIT
"""tests/e2e/test_mlx5_model.py: the ConnectX-4 model of our QEMU build
(qemu/hw/net/mlx5/, -device mlx5).

test_mlx5_model_qtest: qemu/tests/mlx5_check.py, no guest: the real card's
trace replayed through the model, every reply compared byte for byte, each
strict rule broken once, the page-request hook, a frame sent and received.

test_mlx5_model_vf_qtest: qemu/tests/mlx5_vf_check.py, the VF mode (vf=on):
its device ID, page counts and caps, port registers refused, promisc
refused unless trusted=on, the multicast allowed list filtering frames.

test_mlx5_model_linux: Debian's Linux 6.1 (tools/linux_guest, when its
kernel is cached) with its own mlx5_core as an independent driver, on the
PF and on the VF mode (untrusted and trusted): probe, link, ping the slirp
gateway, 1 MiB of TCP each way with the host (through slirp, SHA-256
checked), and no strict rule broken (-d guest_errors).

Skip until `make qemu` has built build/qemu/qemu-system-x86_64. No root."""
import hashlib
import os
import socket
import subprocess
import sys
import tempfile
import threading

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tools"))
import qemu  # noqa: E402

TRACE = os.environ.get("MLX5_TRACE", os.path.join(os.path.dirname(ROOT), "shared", "data", "mlx5",
                                                  "trace-mlx5_core-cx4-fw14.12.1220.txt.gz"))

pytestmark = pytest.mark.skipif(qemu.own_qemu_missing() is not None, reason=str(qemu.own_qemu_missing()))

GUEST_SCRIPT = r"""
PF=$(lg_ifaces mlx5_core | head -n 1)
if [ -n "$PF" ]; then lg_report pf-probe PASS "$PF"; else lg_report pf-probe FAIL "no mlx5_core interface"; fi
ip addr add 10.0.2.15/24 dev "$PF"
ip link set "$PF" up
if lg_wait_carrier "$PF" 30; then
    lg_report pf-link PASS "$(cat /sys/class/net/$PF/speed 2>/dev/null)Mb/s"
else
    lg_report pf-link FAIL "no carrier"
fi
lg_check pf-ping-gw ping -c 3 -W 3 10.0.2.2
lg_check pf-ping-gw-1400 ping -c 2 -W 3 -s 1400 10.0.2.2
# TCP through slirp to the host's loopback: 1 MiB each way, SHA-256 kept
nc -w 10 10.0.2.2 $TX_PORT < /dev/null > /tmp/rx
lg_value pf-rx "$(wc -c < /tmp/rx) $(sha256sum /tmp/rx | cut -d' ' -f1)"
head -c 1048576 /dev/urandom > /tmp/tx
lg_value pf-tx "$(wc -c < /tmp/tx) $(sha256sum /tmp/tx | cut -d' ' -f1)"
lg_check pf-tcp-to-host nc -w 10 10.0.2.2 $RX_PORT < /tmp/tx
sleep 1
"""


@pytest.mark.skipif(not os.path.exists(TRACE), reason=f"no mlx5 trace at {TRACE}")
def test_mlx5_model_qtest():
    r = subprocess.run([sys.executable, os.path.join(ROOT, "qemu", "tests", "mlx5_check.py"), qemu.OWN_QEMU],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0 and "all passed" in r.stdout, r.stdout + r.stderr


def test_mlx5_model_vf_qtest():
    """qemu/tests/mlx5_vf_check.py: -device mlx5,vf=on (and trusted=on)."""
    r = subprocess.run([sys.executable, os.path.join(ROOT, "qemu", "tests", "mlx5_vf_check.py"), qemu.OWN_QEMU],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0 and "all passed" in r.stdout, r.stdout + r.stderr


def _tcp_peers():
    """Two listeners on the host's loopback (the guest's 10.0.2.2): one sends
    1 MiB, one hashes what it gets. Returns (tx_port, rx_port, sent, got)."""
    data = os.urandom(1 << 20)
    got = {}
    tx, rx = socket.socket(), socket.socket()
    for s in (tx, rx):
        s.bind(("127.0.0.1", 0))
        s.listen(1)
        s.settimeout(200)

    def send():
        c, _ = tx.accept()
        c.sendall(data)
        c.close()

    def recv():
        c, _ = rx.accept()
        h, n = hashlib.sha256(), 0
        while True:
            b = c.recv(65536)
            if not b:
                break
            h.update(b)
            n += len(b)
        got["rx"] = f"{n} {h.hexdigest()}"
    for f in (send, recv):
        threading.Thread(target=f, daemon=True).start()
    return tx.getsockname()[1], rx.getsockname()[1], f"{len(data)} {hashlib.sha256(data).hexdigest()}", got


@pytest.mark.parametrize("mode", ["", ",vf=on", ",vf=on,trusted=on"])
def test_mlx5_model_linux(mode):
    import linux_guest as lg
    kernels = lg.cached()
    if not kernels:
        pytest.skip("no Linux guest kernel cached (python3 tools/linux_guest fetch)")
    tx_port, rx_port, sent, got = _tcp_peers()
    script = f"TX_PORT={tx_port}\nRX_PORT={rx_port}\n" + GUEST_SCRIPT
    with tempfile.TemporaryDirectory() as d:
        initrd = os.path.join(d, "initrd.cpio.gz")
        log = os.path.join(d, "guest-errors.log")
        lg.build_initramfs(kernels[0], ["mlx5_core"], script, initrd)
        argv = lg.qemu_args(kernels[0], initrd, (), qemu_bin=qemu.OWN_QEMU) + [
            "-device", "pcie-root-port,id=rp1,slot=1,chassis=1",
            "-netdev", "user,id=n1",
            "-device", "mlx5,id=nic0,bus=rp1,addr=0,romfile=,netdev=n1,mac=52:54:00:12:34:56" + mode,
            "-d", "guest_errors", "-D", log]
        r = subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=240)
        results, values, done = lg.parse(r.stdout)
        errors = open(log).read() if os.path.exists(log) else ""
    bad = {n: v for n, v in results.items() if v[0] != "PASS"}
    assert done and not bad and {"pf-probe", "pf-link", "pf-ping-gw"} <= set(results), \
        f"{bad}\n{lg.dmesg(r.stdout)[-4000:]}"
    assert "mlx5 nic0" not in errors, errors
    assert values.get("pf-rx") == sent, (values, sent)
    assert got.get("rx") == values.get("pf-tx"), (got, values)
