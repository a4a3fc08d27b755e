# SPDX-License-Identifier: MIT
"""tools/linux_guest/initramfs.py: a busybox initramfs (cpio newc, gzip)
whose /init loads the chosen modules, runs a script and reports on the
serial console in lines a test parses (guest.py), then powers off.

    build_initramfs(kernel, ["igb", "igbvf"], script_text, "out.cpio.gz")

The archive is written here, in Python (no cpio, no root: device nodes
are just headers), with mtime 0, so the same inputs give the same bytes.

What the script (POSIX sh, busybox ash) may call, from /init:
    lg_report NAME PASS|FAIL [DETAIL]   one result line: LG-RESULT NAME PASS ...
    lg_check NAME CMD...                runs CMD; PASS if it exits 0, else FAIL
                                        with the tail of its output
    lg_value KEY VALUE                  LG-VALUE KEY VALUE (anything to hand back)
    lg_wait TAG                         prints LG-WAIT TAG, then blocks until
                                        the host types a line on the console;
                                        that line is left in $LG_REPLY; the line
                                        "abort" ends the run there (lg_finish)
    lg_ifaces DRIVER                    the net interfaces bound to DRIVER, one a
                                        line, in PCI address order
    lg_wait_carrier IFACE SECONDS       0 once IFACE's carrier is up
The console: LG-BOOT VERSION, an LG-RESULT per module loaded, the script's
lines, LG-DONE pass=N fail=M, the kernel log between LG-DMESG-BEGIN and
LG-DMESG-END, then the kernel powers off (QEMU exits 0).
"""
import gzip
import os
import stat
import subprocess

INIT_TEMPLATE = r"""#!/bin/sh
# /init, written by tools/linux_guest/initramfs.py: load modules, run the
# test script, report on the console, power off.
export PATH=/bin:/sbin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
LG_PASS=0
LG_FAIL=0
lg_report() {
    name=$1; status=$2; shift 2
    case $status in PASS) LG_PASS=$((LG_PASS + 1));; *) LG_FAIL=$((LG_FAIL + 1));; esac
    echo "LG-RESULT $name $status $*"
}
lg_check() {
    name=$1; shift
    if out=$("$@" 2>&1); then
        lg_report "$name" PASS
    else
        lg_report "$name" FAIL "status $?: $(echo "$out" | tail -n 3 | tr '\n' '|')"
    fi
}
lg_value() { echo "LG-VALUE $1 $2"; }
lg_finish() {
    echo "LG-DONE pass=$LG_PASS fail=$LG_FAIL uptime $(cut -d' ' -f1 /proc/uptime)"
    echo LG-DMESG-BEGIN
    dmesg
    echo LG-DMESG-END
    poweroff -f
}
lg_wait() {
    echo "LG-WAIT $1"
    read -r LG_REPLY </dev/console
    # The host gave up (its side of a step failed): end here, log and all.
    [ "$LG_REPLY" = abort ] && lg_report "$1" FAIL "aborted by the host" && lg_finish
}
lg_ifaces() {
    for d in /sys/class/net/*; do
        [ "$(basename "$(readlink "$d/device/driver" 2>/dev/null)")" = "$1" ] &&
            echo "$(basename "$(readlink "$d/device")") $(basename "$d")"
    done | sort | cut -d' ' -f2
}
lg_wait_carrier() {
    i=0
    while [ $i -lt $(($2 * 10)) ]; do
        [ "$(cat /sys/class/net/$1/carrier 2>/dev/null)" = 1 ] && return 0
        usleep 100000
        i=$((i + 1))
    done
    return 1
}
echo "LG-BOOT $(uname -r) uptime $(cut -d' ' -f1 /proc/uptime)"
for m in @MODULES@; do
    n=$(basename "$m" .ko)
    lg_check "insmod:$n" insmod "/lib/modules/$m" $(cat "/lg/params/$n" 2>/dev/null)
done
ip link set lo up
. /lg/script.sh
lg_finish
"""


class Cpio:
    """An in-memory cpio "newc" archive (the format the kernel unpacks)."""

    def __init__(self):
        self.out = bytearray()
        self.ino = 1

    def _entry(self, name, mode, data=b"", rdev=(0, 0)):
        name_b = name.encode() + b"\0"
        fields = (self.ino, mode, 0, 0, 1, 0, len(data), 0, 0, rdev[0], rdev[1], len(name_b), 0)
        self.ino += 1
        self.out += b"070701" + b"".join(b"%08X" % v for v in fields) + name_b
        self.out += b"\0" * (-len(self.out) % 4)
        self.out += data
        self.out += b"\0" * (-len(self.out) % 4)

    def dir(self, name):
        self._entry(name, stat.S_IFDIR | 0o755)

    def file(self, name, data, mode=0o644):
        self._entry(name, stat.S_IFREG | mode, data)

    def symlink(self, name, target):
        self._entry(name, stat.S_IFLNK | 0o777, target.encode())

    def chardev(self, name, major, minor):
        self._entry(name, stat.S_IFCHR | 0o600, rdev=(major, minor))

    def finish(self):
        self._entry("TRAILER!!!", 0)
        return bytes(self.out)


def _dirs_of(path, made, arc):
    parts = path.split("/")[:-1]
    for i in range(1, len(parts) + 1):
        d = "/".join(parts[:i])
        if d not in made:
            made.add(d)
            arc.dir(d)


def build_initramfs(kernel, modules, script, out, params=None):
    """Write out (a .cpio.gz) for kernel (fetch.Kernel): busybox with a link
    for each applet, the modules named and everything they need
    (modules.dep), their params ({"igb": "max_vfs=2"}), script (sh text)
    as /lg/script.sh sourced by /init. Returns the .ko paths in load order."""
    order = kernel.module_closure(modules)
    arc = Cpio()
    made = set()
    for d in ("bin", "sbin", "dev", "proc", "sys", "tmp", "lg", "lg/params", "lib", "lib/modules"):
        made.add(d)
        arc.dir(d)
    # /dev/console must exist before devtmpfs is mounted: the kernel opens
    # it as init's stdin, stdout and stderr.
    arc.chardev("dev/console", 5, 1)
    arc.chardev("dev/null", 1, 3)
    with open(kernel.busybox, "rb") as f:
        arc.file("bin/busybox", f.read(), 0o755)
    applets = subprocess.run([kernel.busybox, "--list"], capture_output=True, text=True,
                             check=True).stdout.split()
    for a in applets:
        if a != "busybox":
            arc.symlink(f"bin/{a}", "busybox")
    for rel in order:
        path = f"lib/modules/{rel}"
        _dirs_of(path, made, arc)
        with open(os.path.join(kernel.modules_dir, rel), "rb") as f:
            arc.file(path, f.read())
    for name, p in (params or {}).items():
        arc.file(f"lg/params/{name}", p.encode() + b"\n")
    arc.file("lg/script.sh", script.encode())
    arc.file("init", INIT_TEMPLATE.replace("@MODULES@", " ".join(order)).encode(), 0o755)
    tmp = out + ".tmp"
    with open(tmp, "wb") as f:
        f.write(gzip.compress(arc.finish(), compresslevel=6, mtime=0))
    os.replace(tmp, out)
    return order
