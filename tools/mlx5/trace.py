# SPDX-License-Identifier: MIT
"""tools/mlx5/trace.py: a parser of the kernel log of Linux's mlx5_core
bringing up a real ConnectX-4 (firmware 14.12.1220), with every command's
64-byte command-queue entry and mailbox blocks dumped as hex
(../shared/data/mlx5/README.md, beside the repository).

parse(path) -> [Command], in the trace's order. A Command's `inp` is the
16 inline input bytes of the queue entry followed by the data bytes (512
a block) of the input mailbox blocks as dumped; `out` likewise for the
output. The log leaves out short mailbox chains (ACCESS_REG's 16-byte
ones, MANAGE_PAGES' 48-byte one): `in_blocks`/`out_blocks` hold the raw
576-byte blocks seen, and `inp`/`out` may be shorter than in_len/out_len.
`name` is as the log names it ("unknown command opcode" for 0x10a and
0x10b, QUERY_ISSI and SET_ISSI). Layout of the entry: PRM (ConnectX-4,
Rev 0.40) "Command Queue Entry"; `delivery_status` is its status field.

    python3 tools/mlx5/trace.py [PATH]   # one line a command
"""
import dataclasses
import gzip
import os
import re
import sys

_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DEFAULT_TRACE = os.environ.get(
    "MLX5_TRACE", os.path.join(os.path.dirname(_ROOT), "shared", "data", "mlx5",
                               "trace-mlx5_core-cx4-fw14.12.1220.txt.gz"))

BLOCK_DATA = 512      # PRM "Command Mailbox": 512 data bytes a block
BLOCK_SIZE = 0x240    # 576 bytes with next pointer, block number, token, signatures

_DUMP = re.compile(r"dump command (.*)\((0x[0-9a-f]+)\) (INPUT|OUTPUT)")
_HEX = re.compile(r"\]\s+([0-9a-f]+): ((?:[0-9a-f]{8} ?){4})\s*$")


@dataclasses.dataclass
class Command:
    index: int
    name: str            # as the log names it ("QUERY_HCA_CAP", "unknown command opcode")
    opcode: int
    op_mod: int
    entry_in: bytes      # the 64-byte queue entry as the driver posted it
    entry_out: bytes     # the same entry as the firmware gave it back
    inp: bytes           # 16 inline input bytes + input mailbox data
    out: bytes           # 16 inline output bytes + output mailbox data
    in_blocks: list      # raw 576-byte input mailbox blocks as dumped
    out_blocks: list     # raw 576-byte output mailbox blocks as dumped
    status: int          # the command's status (first output byte)
    syndrome: int
    delivery_status: int  # the entry's status field (bits 7:1 of byte 0x3f)
    in_len: int
    out_len: int
    token: int

    @property
    def raw(self):
        return self.entry_in

    def __str__(self):
        return (f"{self.index:3d} {self.name}({self.opcode:#x}) op_mod {self.op_mod:#x} "
                f"in {self.in_len:#x} ({len(self.in_blocks)} blk) out {self.out_len:#x} "
                f"({len(self.out_blocks)} blk) status {self.status:#x} syndrome "
                f"{self.syndrome:#x} delivery {self.delivery_status:#x}")


def _dumps(lines):
    """Yield (name, opcode, direction, entry bytes, [block bytes])."""
    cur = None
    for line in lines:
        m = _DUMP.search(line)
        if m:
            if cur:
                yield cur
            cur = [m.group(1), int(m.group(2), 16), m.group(3), bytearray(), []]
            continue
        if cur is None:
            continue
        if "command block:" in line:
            cur[4].append(bytearray())
            continue
        h = _HEX.search(line)
        if h:
            data = bytes.fromhex(h.group(2).replace(" ", ""))
            (cur[4][-1] if cur[4] else cur[3]).extend(data)
        elif line.startswith("[") and "mlx5_core" in line:
            yield cur
            cur = None
    if cur:
        yield cur


def _name(raw):
    if raw.startswith("MLX5_CMD_OP_"):
        return raw[len("MLX5_CMD_OP_"):]
    return raw


def parse(path=DEFAULT_TRACE):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", errors="replace") as f:
        lines = f.read().splitlines()
    cmds = []
    pending = None
    for name, op, d, entry, blocks in _dumps(lines):
        entry = bytes(entry)
        assert len(entry) == 64, (name, len(entry))
        blocks = [bytes(b) for b in blocks]
        for b in blocks:
            assert len(b) == BLOCK_SIZE, (name, len(b))
        data = entry[0x10:0x20] if d == "INPUT" else entry[0x20:0x30]
        data += b"".join(b[:BLOCK_DATA] for b in blocks)
        if d == "INPUT":
            pending = (name, op, entry, data, blocks)
            continue
        assert pending and pending[1] == op, (name, op)
        iname, _, ein, inp, iblk = pending
        pending = None
        cmds.append(Command(
            index=len(cmds), name=_name(iname), opcode=op,
            op_mod=int.from_bytes(inp[6:8], "big"),
            entry_in=ein, entry_out=entry, inp=inp, out=data,
            in_blocks=iblk, out_blocks=blocks,
            status=data[0], syndrome=int.from_bytes(data[4:8], "big"),
            delivery_status=entry[0x3f] >> 1,
            in_len=int.from_bytes(ein[4:8], "big"),
            out_len=int.from_bytes(ein[0x38:0x3c], "big"),
            token=ein[0x3c]))
    return cmds


if __name__ == "__main__":
    for c in parse(sys.argv[1] if len(sys.argv) > 1 else DEFAULT_TRACE):
        print(c)
