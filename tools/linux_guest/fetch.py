# SPDX-License-Identifier: MIT
"""tools/linux_guest/fetch.py: Debian's linux-image-6.1 and busybox-static,
downloaded and unpacked (never installed) under build/linux-guest/.

    k = fetch()            # a Kernel: the newest cached one, else downloads
    k.vmlinuz, k.version, k.modules_dir, k.busybox
    k.module_closure(["igb", "igbvf"])  # .ko paths, dependencies first

Layout of the cache (build/linux-guest/, or $HAYATE_LINUX_CACHE):
    build/linux-guest/debs/*.deb              what `apt-get download` fetched
    build/linux-guest/<VERSION>/root/         both packages, `dpkg -x`-ed,
                                              with modules.dep from depmod
    build/linux-guest/<VERSION>/ok            written last: the tree is whole
Raises Unavailable (with why) where a package cannot be fetched or unpacked.
"""
import glob
import os
import re
import shutil
import subprocess
from dataclasses import dataclass

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# HAYATE_LINUX_CACHE: another folder, e.g. one shared by several checkouts.
CACHE = os.environ.get("HAYATE_LINUX_CACHE") or os.path.join(ROOT, "build", "linux-guest")
# Debian bookworm's kernel: the ABI number N in linux-image-6.1.0-N-amd64
# moves with every security update, so the newest the apt lists know is taken.
KERNEL_RX = re.compile(r"^linux-image-(6\.1\.0-(\d+)-amd64)$")
BUSYBOX_PKG = "busybox-static"


class Unavailable(Exception):
    """The kernel or busybox package cannot be had here (why in str())."""


def _run(argv, cwd=None, timeout=300):
    try:
        r = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, timeout=timeout)
    except (OSError, subprocess.SubprocessError) as e:
        raise Unavailable(f"{' '.join(argv)}: {e}")
    if r.returncode:
        raise Unavailable(f"{' '.join(argv)}: status {r.returncode}: {r.stderr.strip()[-500:]}")
    return r.stdout


@dataclass
class Kernel:
    """One unpacked kernel package with busybox beside it."""
    root: str      # the dpkg -x tree
    version: str   # uname -r, e.g. 6.1.0-56-amd64

    @property
    def vmlinuz(self):
        return os.path.join(self.root, "boot", f"vmlinuz-{self.version}")

    @property
    def modules_dir(self):
        return os.path.join(self.root, "lib", "modules", self.version)

    @property
    def busybox(self):
        return os.path.join(self.root, "bin", "busybox")

    def module_deps(self):
        """{name: (relative .ko path, [names it needs])} from modules.dep.
        A module's name is its file name without .ko, '-' read as '_'."""
        out = {}
        with open(os.path.join(self.modules_dir, "modules.dep")) as f:
            for ln in f:
                path, _, deps = ln.strip().partition(":")
                out[_name(path)] = (path, [_name(d) for d in deps.split()])
        return out

    def module_closure(self, names):
        """The .ko paths (relative to modules_dir) to insmod, in an order
        where each module comes after everything it needs."""
        table = self.module_deps()
        order, seen = [], set()

        def visit(n):
            n = n.replace("-", "_")
            if n in seen:
                return
            if n not in table:
                raise KeyError(f"module {n} not in {self.version}'s modules.dep")
            seen.add(n)
            # modules.dep lists the whole closure, most basic last.
            for d in reversed(table[n][1]):
                visit(d)
            order.append(table[n][0])
        for n in names:
            visit(n)
        return order


def _name(path):
    return os.path.basename(path).split(".ko")[0].replace("-", "_")


def cached(cache=CACHE):
    """Kernels already unpacked whole, newest ABI first."""
    found = []
    for ok in glob.glob(os.path.join(cache, "*", "ok")):
        d = os.path.dirname(ok)
        version = os.path.basename(d)
        found.append(Kernel(os.path.join(d, "root"), version))
    return sorted(found, key=lambda k: int(k.version.split("-")[1]), reverse=True)


def newest_package():
    """linux-image-6.1.0-N-amd64 with the largest N the apt lists know."""
    out = _run(["apt-cache", "search", "--names-only", r"^linux-image-6\.1\.0-[0-9]+-amd64$"])
    best = None
    for ln in out.splitlines():
        m = KERNEL_RX.match(ln.split(" ")[0])
        if m and (best is None or int(m.group(2)) > int(best.group(2))):
            best = m
    if not best:
        raise Unavailable("apt knows no linux-image-6.1.0-N-amd64 (not Debian bookworm's lists?)")
    return best.group(0), best.group(1)


def _download(pkgs, debs):
    os.makedirs(debs, exist_ok=True)
    try:
        _run(["apt-get", "download", *pkgs], cwd=debs)
    except Unavailable:
        # Lists older than the archive name files that are gone: refresh once.
        if os.geteuid() != 0:
            raise
        _run(["apt-get", "update"], timeout=600)
        _run(["apt-get", "download", *pkgs], cwd=debs)


def fetch(cache=CACHE, update=False):
    """The newest cached kernel, or (none cached, or update) download and
    unpack the current one. Needs apt-get, dpkg and depmod (kmod)."""
    if not update:
        have = cached(cache)
        if have:
            return have[0]
    for tool in ("apt-get", "dpkg", "depmod"):
        if not shutil.which(tool) and not os.path.exists(f"/usr/sbin/{tool}") and not os.path.exists(f"/sbin/{tool}"):
            raise Unavailable(f"needs {tool} (tools/deps test)")
    pkg, version = newest_package()
    dest = os.path.join(cache, version)
    if os.path.exists(os.path.join(dest, "ok")):
        return Kernel(os.path.join(dest, "root"), version)
    debs = os.path.join(cache, "debs")
    want = [p for p in (pkg, BUSYBOX_PKG) if not glob.glob(os.path.join(debs, f"{p}_*.deb"))]
    if want:
        _download(want, debs)
    shutil.rmtree(dest, ignore_errors=True)
    root = os.path.join(dest, "root")
    os.makedirs(root)
    for pattern in (f"{pkg}_*.deb", f"{BUSYBOX_PKG}_*.deb"):
        found = sorted(glob.glob(os.path.join(debs, pattern)))
        if not found:
            raise Unavailable(f"apt-get download left no {pattern} in {debs}")
        _run(["dpkg", "-x", found[-1], root])
    # The package's own install runs depmod; ours is unpacked, so run it here.
    depmod = shutil.which("depmod") or "/usr/sbin/depmod"
    _run([depmod, "-b", root, version])
    k = Kernel(root, version)
    for need in (k.vmlinuz, k.busybox, os.path.join(k.modules_dir, "modules.dep")):
        if not os.path.exists(need):
            raise Unavailable(f"unpacked tree lacks {need}")
    with open(os.path.join(dest, "ok"), "w") as f:
        f.write(pkg + "\n")
    return k
