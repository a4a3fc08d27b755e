# SPDX-License-Identifier: MIT
"""tests/e2e/test_mlx5_encodings.py: hayate's mlx5 command encoders
(drivers/mlx5/mlx5_enc.c, run through build/unit/mlx5-encode) beside what
Linux's mlx5_core sent a real ConnectX-4 (../shared/data/mlx5, parsed by
tools/mlx5/trace.py). For every command of the trace that hayate issues
too, the parameters are taken from Linux's input (page addresses, the
UAR, sizes) and hayate's encoding must equal Linux's byte for byte, but
for the fields listed in DIFFERENCES, each with why hayate's value is
right. Bytes the log did not dump are not compared."""
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tools", "mlx5"))
import trace as mlx5_trace  # noqa: E402

TRACE = mlx5_trace.DEFAULT_TRACE
ENCODE = os.path.join(ROOT, "build", "unit", "mlx5-encode")

# (opcode, first byte, last byte + 1): where hayate differs from Linux, and why.
DIFFERENCES = {
    # CREATE_EQ's context: Linux names an MSI-X vector (intr) and a page
    # size for its multi-page buffer; hayate polls its one EQ (vector 0, no
    # interrupt enabled) and gives one 4 KB page (log_page_size 0).
    0x301: [(0x10 + 0x14, 0x10 + 0x18, "intr: hayate polls"),
            (0x10 + 0x18, 0x10 + 0x1c, "log_page_size: one 4 KB page")],
}


def args_for(c):
    """The encoder's command line for trace command c, or None when hayate
    does not issue that command as Linux did. SET_HCA_CAP is not compared:
    Linux sets capabilities of its own choosing; hayate sends the current
    ones back with only the command checksums off, and only when they are
    on (the recorded card had them off)."""
    i = c.inp
    simple = {0x104: "enable_hca", 0x10a: "query_issi", 0x102: "init_hca", 0x103: "teardown_hca",
              0x101: "query_adapter", 0x802: "alloc_uar", 0x203: "query_special_contexts", 0x800: "alloc_pd",
              0x816: "alloc_transport_domain", 0x754: "query_nic_vport_context", 0x750: "query_vport_state"}
    if c.opcode in simple:
        return [simple[c.opcode]]
    if c.opcode == 0x10b:
        return ["set_issi", str(int.from_bytes(i[0x0a:0x0c], "big"))]
    if c.opcode == 0x107:
        return ["query_pages", str(c.op_mod)]
    if c.opcode == 0x100:
        return ["query_hca_cap", str(c.op_mod >> 1), str(c.op_mod & 1)]
    if c.opcode == 0x108:
        n = int.from_bytes(i[0x0c:0x10], "big")
        pages = [int.from_bytes(i[0x10 + 8 * k:0x18 + 8 * k], "big") if len(i) >= 0x18 + 8 * k else 0
                 for k in range(n)]
        return ["manage_pages", str(c.op_mod)] + [hex(p) for p in pages]
    if c.opcode == 0x805:
        data = i[0x10:c.in_len].ljust(c.in_len - 0x10, b"\0")
        return ["access_reg", str(int.from_bytes(i[0x0a:0x0c], "big")), "1" if c.op_mod == 0 else "0", data.hex()]
    if c.opcode == 0x301:
        eqc = i[0x10:0x50]
        log_size = (eqc[0x0c] >> 0) & 0x1f
        uar = int.from_bytes(eqc[0x0d:0x10], "big")
        mask = int.from_bytes(i[0x58:0x60], "big")
        npas = (c.in_len - 0x110) // 8
        pas = [int.from_bytes(i[0x110 + 8 * k:0x118 + 8 * k], "big") for k in range(npas)]
        return ["create_eq", hex(uar), str(log_size), hex(mask)] + [hex(p) for p in pas]
    return None


@pytest.mark.skipif(not os.path.exists(TRACE), reason="../shared/data/mlx5's trace is absent")
def test_encodings_match_linux_on_a_real_connectx4(report):
    assert os.path.exists(ENCODE), "build/unit/mlx5-encode: make it (make test does)"
    compared, identical, documented, skipped_ops = 0, 0, 0, set()
    for c in mlx5_trace.parse(TRACE):
        argv = args_for(c)
        if argv is None:
            skipped_ops.add(c.opcode)
            continue
        r = subprocess.run([ENCODE, argv[0]], input=" ".join(argv[1:]), capture_output=True, text=True)
        assert r.returncode == 0, (c.index, c.name, r.stderr[-2000:])
        ours = bytes.fromhex(r.stdout)
        assert len(ours) == c.in_len, (c.name, hex(c.opcode), len(ours), c.in_len)
        theirs = c.inp[:c.in_len]
        allowed = DIFFERENCES.get(c.opcode, [])
        diff = [k for k in range(len(theirs)) if ours[k] != theirs[k]
                and not any(lo <= k < hi for lo, hi, _ in allowed)]
        assert not diff, (f"{c.index} {c.name}({c.opcode:#x}) differs at {[hex(k) for k in diff[:16]]}: "
                          f"hayate {ours[diff[0]:diff[0] + 32].hex()} linux {theirs[diff[0]:diff[0] + 32].hex()}")
        compared += 1
        if ours[:len(theirs)] == theirs:
            identical += 1
        else:
            documented += 1
    assert compared >= 40, compared
    report(f"mlx5 encodings vs Linux on a real ConnectX-4: {compared} commands compared, {identical} identical, "
           f"{documented} with documented differences; not compared: "
           f"{', '.join(hex(o) for o in sorted(skipped_ops))}")
