# SPDX-License-Identifier: MIT
"""tools/qemu.py: boot a hayate image in QEMU and talk to its serial console.

Used by the boot and end-to-end tests and by `make run`:

    with Machine("build/hayate.iso", name="smoke", smp=2) as m:
        m.wait_ready()                      # banner .. "hayate: ready" .. prompt
        print(m.cmd("show version"))        # text between the echo and the prompt
        info = m.json("show version json")  # the one JSON line, parsed
        m.shutdown()                        # "hayate: powering off", QEMU exits

The console is QEMU's stdio, read by a thread into a buffer; every wait is
bounded and says what it saw when it gives up. Everything the console
printed goes to build/test-logs/NAME.log as it arrives, so a hung or
crashed guest leaves its story behind. QEMU is always killed on close.
"""
import codecs
import ctypes
import json as jsonlib
import os
import re
import shlex
import signal
import subprocess
import threading
import time
from dataclasses import dataclass

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ISO = os.path.join(ROOT, "build", "hayate.iso")
LOG_DIR = os.path.join(ROOT, "build", "test-logs")
READY = "hayate: ready"
POWER_OFF = "hayate: powering off"
BOOT_TIMEOUT = 30.0  # TCG: a boot takes a second or two; leave room for a busy host
DEBUG_EXIT_PORT = 0xF4  # the kernel's fallback when ACPI S5 fails


class QemuError(Exception):
    """QEMU exited, or the console did not say what was expected in time."""


@dataclass
class Nic:
    """One guest port: a NIC in the guest on a host tap device."""
    tap: str
    queues: int = 1
    model: str = "virtio-net-pci"  # or "igb"
    mac: str = ""  # default: 52:54:00:68:79:<index> ("hy")
    # Another QEMU netdev backend in place of the tap, without its id, e.g.
    # "dgram,local.type=unix,local.path=A,remote.type=unix,remote.path=B"
    # (a port wired to another guest's: tools/rfc2544); tap is then unused.
    netdev: str = ""


# Our own QEMU build (make qemu), for the NIC models Debian's lacks.
OWN_QEMU = os.path.join(ROOT, "build", "qemu", "qemu-system-x86_64")
OWN_MODELS = ("ixgbe", "mlx5")


def own_qemu_missing():
    """Why the models of our QEMU build cannot run here, or None."""
    if not os.access(OWN_QEMU, os.X_OK):
        return f"{OWN_QEMU} is not built (make qemu)"
    return None


def accel_default():
    # TCG unless asked: nested KVM on these hosts boots ~60x slower.
    return os.environ.get("HAYATE_ACCEL", "tcg")


# Where the NICs sit on the q35 PCI Express hierarchy:
#   "flat":      on the root bus (bus 0) beside the host bridge, as QEMU
#                puts them by default;
#   "root-port": each behind a PCIe root port of its own (rp1, rp2, ...),
#                as on real servers: its VFs on the port's bus, their BARs
#                routed only through the port's windows, which SeaBIOS
#                sizes for the PF's BARs alone.
#   "switch":    each behind a PCIe switch (upstream port up<i+1> on root
#                port rp<i+1>, downstream port dp<i+1>): three bridges, so
#                three windows, above the NIC.
TOPOLOGIES = ("flat", "root-port", "switch")
# Debian's firmware for a QEMU built from source (HAYATE_QEMU), which does
# not find it by itself; Debian's own binary does.
FIRMWARE_DIRS = ("/usr/share/seabios", "/usr/share/qemu", "/usr/lib/ipxe/qemu")


def nic_args(i, nic, topology="flat"):
    """The -netdev/-device pair for port i (and its root port)."""
    if topology not in TOPOLOGIES:
        raise ValueError(f"topology {topology!r}: one of {TOPOLOGIES}")
    if not nic.mac:
        nic.mac = "52:54:00:68:79:%02x" % i
    netdev = f"tap,id=n{i},ifname={nic.tap},script=no,downscript=no,vhost=off"
    if nic.netdev:
        netdev = f"{nic.netdev},id=n{i}"
    # romfile= : no iPXE option ROM (we boot from CD; it only costs time).
    dev = f"{nic.model},id=nic{i},netdev=n{i},mac={nic.mac},romfile="
    port = []
    if topology in ("root-port", "switch"):
        # Slot and chassis: unique per port (PCIe slot numbering, hotplug).
        port = ["-device", f"pcie-root-port,id=rp{i + 1},slot={i + 1},chassis={i + 1}"]
        parent = f"rp{i + 1}"
        if topology == "switch":
            port += ["-device", f"x3130-upstream,id=up{i + 1},bus=rp{i + 1}",
                     "-device", f"xio3130-downstream,id=dp{i + 1},bus=up{i + 1},slot={i + 101},chassis={i + 101}"]
            parent = f"dp{i + 1}"
        dev += f",bus={parent},addr=0"
    elif nic.model == "igb":
        # An 82576 reserves the functions of its 8 SR-IOV VFs 16 and 17
        # slots above its own: PFs two slots apart keep those from colliding.
        dev += f",addr={3 + 2 * i:#x}"
    if nic.queues > 1:
        netdev += f",queues={nic.queues}"
        if nic.model == "virtio-net-pci":
            # One MSI-X vector per RX and TX queue, plus config and control.
            dev += f",mq=on,vectors={2 * nic.queues + 2}"
    return port + ["-netdev", netdev, "-device", dev]


def command(iso=ISO, smp=1, memory="512M", nics=(), extra=(), accel=None, topology="flat"):
    """The QEMU command line, serial console on stdio; topology: where the
    NICs sit (TOPOLOGIES)."""
    accel = accel or accel_default()
    binary = "qemu-system-x86_64"
    if any(n.model.split(",")[0] in OWN_MODELS for n in nics):  # "mlx5,vf=on": the model's name, its options
        binary = OWN_QEMU
        if topology == "flat":
            topology = "root-port"  # the topology for the models we check from outside
    cmd = [os.environ.get("HAYATE_QEMU", binary),
           "-machine", "q35", "-accel", accel,
           "-cpu", "host" if accel == "kvm" else "max",
           "-m", str(memory), "-smp", str(smp),
           "-display", "none", "-serial", "stdio", "-monitor", "none",
           "-no-reboot",  # a triple fault ends the run instead of looping
           "-device", f"isa-debug-exit,iobase={DEBUG_EXIT_PORT:#x},iosize=0x04",
           "-cdrom", iso, "-boot", "d"]
    if os.environ.get("HAYATE_QEMU"):
        for d in FIRMWARE_DIRS:
            if os.path.isdir(d):
                cmd += ["-L", d]
    if not nics:
        cmd += ["-nic", "none"]  # else q35 adds an e1000e of its own
    for i, nic in enumerate(nics):
        cmd += nic_args(i, nic, topology)
    return cmd + list(extra)


def _die_with_parent():
    # A test run killed hard must not leave QEMU spinning (TCG eats a core):
    # PR_SET_PDEATHSIG, SIGKILL.
    try:
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)
    except (OSError, AttributeError):
        pass


def clean_exit(rc):
    """Power-off statuses: 0 from ACPI S5, (val << 1) | 1 from isa-debug-exit."""
    return rc == 0 or (rc is not None and rc > 0 and rc & 1 == 1)


class Machine:
    """One QEMU running hayate, and its console."""

    def __init__(self, iso=ISO, name="hayate", smp=1, memory="512M", nics=(),
                 extra=(), accel=None, log_dir=LOG_DIR, on_output=None, topology="flat"):
        self.nics = list(nics)
        self.argv = command(iso, smp, memory, self.nics, extra, accel, topology)
        self.name = re.sub(r"[^\w.-]", "_", name)
        self.log_path = os.path.join(log_dir, self.name + ".log")
        self.on_output = on_output  # called with each chunk of console bytes
        self.prompt = "hayate> "
        self.proc = None
        self.t0 = None
        self.ready_s = None  # seconds from QEMU start to "hayate: ready"
        self.pos = 0  # the console text before pos has been matched
        self._text = ""
        self._stderr = ""
        self._cv = threading.Condition()
        self._threads = []
        self._log = None

    # --- life cycle ---------------------------------------------------------
    def start(self):
        os.makedirs(os.path.dirname(self.log_path), exist_ok=True)
        self._log = open(self.log_path, "w", encoding="utf-8", errors="replace")
        self._log.write("# " + shlex.join(self.argv) + "\n")
        self.t0 = time.monotonic()
        self.proc = subprocess.Popen(self.argv, stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     preexec_fn=_die_with_parent)
        for f, console in ((self.proc.stdout, True), (self.proc.stderr, False)):
            t = threading.Thread(target=self._reader, args=(f, console), daemon=True)
            t.start()
            self._threads.append(t)
        return self

    def _reader(self, f, console):
        dec = codecs.getincrementaldecoder("utf-8")(errors="replace")
        fd = f.fileno()
        while True:
            try:
                data = os.read(fd, 4096)
            except OSError:
                data = b""
            if console and data and self.on_output:
                self.on_output(data)
            text = dec.decode(data, final=not data)
            with self._cv:
                if console:
                    self._text += text
                    self._write_log(text)
                else:
                    self._stderr += text
                    self._write_log("".join("[qemu] " + ln + "\n" for ln in text.splitlines()))
                self._cv.notify_all()
            if not data:
                return

    def _write_log(self, text):
        if self._log and text:
            self._log.write(text)
            self._log.flush()

    def running(self):
        return self.proc is not None and self.proc.poll() is None

    def wait_exit(self, timeout):
        """QEMU's exit status, or None if it is still running after timeout."""
        try:
            return self.proc.wait(timeout=max(0, timeout))
        except subprocess.TimeoutExpired:
            return None

    def kill(self):
        """Stop QEMU now (idempotent) and close the log."""
        if self.proc is None:
            return
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()
        for t in self._threads:
            t.join(timeout=5)
        with self._cv:
            if self._log:
                self._log.write(f"\n# qemu exit status {self.proc.returncode}"
                                f" after {time.monotonic() - self.t0:.1f}s\n")
                self._log.close()
                self._log = None
        for f in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            try:
                f.close()
            except OSError:
                pass

    close = kill

    def __enter__(self):
        if self.proc is None:
            self.start()
        return self

    def __exit__(self, *exc):
        self.kill()

    # --- console ------------------------------------------------------------
    @property
    def log(self):
        """Everything the console printed so far."""
        with self._cv:
            return self._text

    @property
    def stderr(self):
        with self._cv:
            return self._stderr

    def tail(self, n=20):
        lines = self.log.replace("\r", "").splitlines()[-n:]
        err = self.stderr.strip()
        return "\n".join(["--- console (last lines) ---", *lines] +
                         (["--- qemu stderr ---", err] if err else []))

    def send(self, text):
        """Type text on the console (bytes or str; no newline added)."""
        data = text.encode() if isinstance(text, str) else text
        try:
            self.proc.stdin.write(data)
            self.proc.stdin.flush()
        except (BrokenPipeError, ValueError) as e:
            raise QemuError(f"{self.name}: QEMU is gone ({e})\n{self.tail()}")

    def wait_for(self, pattern, timeout=10.0):
        """Wait for pattern (regex) in the console after the last match;
        returns the match and moves past it."""
        rx = re.compile(pattern) if isinstance(pattern, str) else pattern
        deadline = time.monotonic() + timeout
        with self._cv:
            while True:
                m = rx.search(self._text, self.pos)
                if m:
                    self.pos = m.end()
                    return m
                left = deadline - time.monotonic()
                done = all(not t.is_alive() for t in self._threads)
                if left <= 0 or done:
                    break
                self._cv.wait(min(left, 0.5))
        why = "QEMU exited (status %s)" % self.proc.poll() if done else f"no match in {timeout:g}s"
        raise QemuError(f"{self.name}: waiting for {rx.pattern!r}: {why}\n{self.tail()}")

    def wait_ready(self, timeout=BOOT_TIMEOUT):
        """Wait for "hayate: ready" and the prompt after it; learns the prompt
        (the hostname may come from the config). Returns seconds since start."""
        self.wait_for(re.escape(READY) + r"\r?\n", timeout)
        self.ready_s = time.monotonic() - self.t0
        m = self.wait_for(r"(?m)^(\S+> )", 10)
        self.prompt = m.group(1)
        return self.ready_s

    def _prompt_rx(self):
        return re.compile(r"(?m)^" + re.escape(self.prompt))

    def cmd(self, line, timeout=10.0):
        """Run one console command: the output between the echoed line and the
        next prompt, with \\r\\n turned into \\n and the last newline dropped."""
        start = self.pos
        self.send(line + "\r")
        m = self.wait_for(self._prompt_rx(), timeout)
        out = self.log[start:m.start()].replace("\r\n", "\n").replace("\r", "")
        _, _, out = out.partition("\n")  # drop the echo, editing keys and all
        return out.rstrip("\n")

    def json(self, line, timeout=10.0):
        """Run a `show ... json` command and parse its one JSON line."""
        out = self.cmd(line, timeout)
        for ln in out.splitlines():
            if ln.lstrip().startswith(("{", "[")):
                try:
                    return jsonlib.loads(ln)
                except ValueError as e:
                    raise QemuError(f"{self.name}: {line!r}: bad JSON ({e}): {ln!r}")
        raise QemuError(f"{self.name}: {line!r}: no JSON line in:\n{out}")

    def shutdown(self, timeout=10.0):
        """`shutdown`, then wait for QEMU to exit; returns its exit status.
        Raises unless the kernel said it was powering off and QEMU exited
        cleanly (0 from ACPI, odd from the isa-debug-exit fallback)."""
        deadline = time.monotonic() + timeout
        self.send("shutdown\r")
        self.wait_for(re.escape(POWER_OFF), timeout)
        rc = self.wait_exit(deadline - time.monotonic())
        if rc is None:
            raise QemuError(f"{self.name}: still running {timeout:g}s after shutdown\n{self.tail()}")
        if not clean_exit(rc):
            raise QemuError(f"{self.name}: QEMU exit status {rc} after shutdown\n{self.tail()}")
        self.kill()
        return rc
