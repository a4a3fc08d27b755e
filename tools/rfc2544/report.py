# SPDX-License-Identifier: MIT
"""tools/rfc2544/report.py: report.json, report.html and the PNG plots of
an RFC 2544 run, from each DUT's results.

    r = build([{"name": "hayate", **tester_json}, ...], trial_s=0.5)
    paths = write(r, "build/rfc2544")

report.json has exactly the keys below (REPORT_KEYS, ENTRY_KEYS): what a
tester sends beyond them is dropped, what it leaves out is null.

    {"duts": [{"name",
               "throughput":   [{"size", "ndr_pps", "ndr_mbps", "pdr_pps"}],
               "latency":      [{"size", "load_pct", "min_ns", "p50_ns",
                                 "p90_ns", "p99_ns", "p999_ns", "max_ns"}],
               "frame_loss":   [{"size", "offered_pct", "loss_pct"}],
               "back_to_back": [{"size", "frames"}]}],
     "trial_s", "date", "commit"}

Plots (matplotlib, Agg): throughput.png (NDR against frame size, one line
a DUT, in Mbit/s and in frames a second with PDR beside), latency-NAME.png
(a DUT's latency percentiles against load, a panel a frame size),
loss.png (loss against offered load, a panel a DUT, a line a size).

Command line (draws again from a report.json): python3 tools/rfc2544/report.py
report.json OUT_DIR
"""
import datetime
import html
import json
import os
import re
import subprocess
import sys

REPORT_KEYS = ("duts", "trial_s", "date", "commit")
DUT_KEYS = ("name", "throughput", "latency", "frame_loss", "back_to_back")
ENTRY_KEYS = {
    "throughput": ("size", "ndr_pps", "ndr_mbps", "pdr_pps"),
    "latency": ("size", "load_pct", "min_ns", "p50_ns", "p90_ns", "p99_ns", "p999_ns", "max_ns"),
    "frame_loss": ("size", "offered_pct", "loss_pct"),
    "back_to_back": ("size", "frames"),
}
PERCENTILES = (("min_ns", "min"), ("p50_ns", "P50"), ("p90_ns", "P90"), ("p99_ns", "P99"),
               ("p999_ns", "P99.9"), ("max_ns", "max"))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def commit_id(root=ROOT):
    """The checkout's commit (short), "-dirty" when it has changes; "" without git."""
    try:
        c = subprocess.run(["git", "describe", "--always", "--dirty", "--abbrev=12"], cwd=root,
                           capture_output=True, text=True, timeout=30)
        return c.stdout.strip() if c.returncode == 0 else ""
    except (OSError, subprocess.SubprocessError):
        return ""


def size_key(size):
    """Frame sizes in order: numbers ascending, then the mixes (imix)."""
    s = str(size)
    return (0, int(s), "") if s.isdigit() else (1, 0, s)


def _entries(kind, rows):
    """rows reduced to ENTRY_KEYS[kind], by size, then by load (latency)
    or from the highest offered load down (frame_loss)."""
    keys = ENTRY_KEYS[kind]
    out = [{k: row.get(k) for k in keys} for row in rows or ()]

    def order(e):
        then = {"latency": e.get("load_pct"), "frame_loss": -(e.get("offered_pct") or 0)}.get(kind)
        return size_key(e["size"]), then or 0
    return sorted(out, key=order)


def build(duts, trial_s, date=None, commit=None):
    """The report dict from [{"name", "throughput", ...}] (a tester's JSON
    with a name; "state" and other keys are dropped)."""
    return {
        "duts": [{"name": d["name"], **{k: _entries(k, d.get(k)) for k in DUT_KEYS[1:]}}
                 for d in duts],
        "trial_s": trial_s,
        "date": date or datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "commit": commit if commit is not None else commit_id(),
    }


# --- plots ---------------------------------------------------------------------

def _plt():
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


def _legend(ax, **kw):
    if ax.get_legend_handles_labels()[0]:
        ax.legend(**kw)


def _slug(name):
    return re.sub(r"[^\w.-]", "_", name)


def _sizes(rows):
    return sorted({str(r["size"]) for r in rows}, key=size_key)


def plot_throughput(report, path):
    plt = _plt()
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(12, 4.5))
    sizes = sorted({str(r["size"]) for d in report["duts"] for r in d["throughput"]}, key=size_key)
    x = {s: i for i, s in enumerate(sizes)}
    for d in report["duts"]:
        rows = [r for r in d["throughput"] if r["ndr_pps"] is not None]
        xs = [x[str(r["size"])] for r in rows]
        ax1.plot(xs, [r["ndr_mbps"] or 0 for r in rows], "o-", label=d["name"])
        line, = ax2.plot(xs, [r["ndr_pps"] for r in rows], "o-", label=f"{d['name']} NDR")
        pdr = [(xx, r["pdr_pps"]) for xx, r in zip(xs, rows) if r["pdr_pps"] is not None]
        if pdr:
            ax2.plot(*zip(*pdr), "s--", color=line.get_color(), alpha=0.6, label=f"{d['name']} PDR")
    for ax, what in ((ax1, "NDR (Mbit/s)"), (ax2, "frames/s")):
        ax.set_xticks(range(len(sizes)), sizes)
        ax.set_xlabel("frame size (bytes)")
        ax.set_ylabel(what)
        ax.grid(True, alpha=0.3)
        _legend(ax)
    ax1.set_title("Throughput (NDR) against frame size")
    ax2.set_title("Throughput in frames/s (NDR, PDR)")
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)


def plot_latency(dut, path):
    plt = _plt()
    sizes = _sizes(dut["latency"]) or ["-"]
    cols = min(4, len(sizes))
    rows_n = (len(sizes) + cols - 1) // cols
    fig, axes = plt.subplots(rows_n, cols, figsize=(3.6 * cols + 1, 3.2 * rows_n + 0.8),
                             squeeze=False)
    for ax, size in zip(axes.flat, sizes):
        rows = sorted((r for r in dut["latency"] if str(r["size"]) == size),
                      key=lambda r: r["load_pct"] or 0)
        for key, label in PERCENTILES:
            # 0: no frame came back at that load (nothing to draw on a log axis)
            pts = [(r["load_pct"], r[key] / 1000) for r in rows
                   if r[key] and r["load_pct"] is not None]
            if pts:
                ax.plot(*zip(*pts), "o-", label=label, markersize=3)
        ax.set_title(f"{size} bytes" if size.isdigit() else size)
        ax.set_xlabel("load (% of NDR)")
        ax.set_ylabel("latency (µs)")
        if any(r[k] for r in rows for k, _ in PERCENTILES):
            ax.set_yscale("log")
        ax.grid(True, alpha=0.3)
    for ax in list(axes.flat)[len(sizes):]:
        ax.axis("off")
    _legend(axes.flat[0], fontsize="small")
    fig.suptitle(f"{dut['name']}: latency percentiles against load")
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)


def plot_loss(report, path):
    plt = _plt()
    duts = report["duts"] or [{"name": "-", "frame_loss": []}]
    fig, axes = plt.subplots(1, len(duts), figsize=(6 * len(duts), 4.5), squeeze=False)
    for ax, d in zip(axes.flat, duts):
        for size in _sizes(d["frame_loss"]):
            pts = sorted((r["offered_pct"], r["loss_pct"]) for r in d["frame_loss"]
                         if str(r["size"]) == size and r["offered_pct"] is not None
                         and r["loss_pct"] is not None)
            if pts:
                ax.plot(*zip(*pts), "o-", label=f"{size} B", markersize=3)
        ax.set_title(f"{d['name']}: frame loss against offered load")
        ax.set_xlabel("offered load (% of line rate)")
        ax.set_ylabel("loss (%)")
        ax.grid(True, alpha=0.3)
        _legend(ax, fontsize="small")
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)


# --- HTML ----------------------------------------------------------------------

def _fmt(v):
    if v is None:
        return "-"
    if isinstance(v, float):
        return f"{v:,.3f}".rstrip("0").rstrip(".") if abs(v) < 1000 else f"{v:,.0f}"
    if isinstance(v, int):
        return f"{v:,}"
    return str(v)


def _table(title, keys, rows):
    head = "".join(f"<th>{html.escape(k)}</th>" for k in keys)
    body = "".join("<tr>" + "".join(f"<td>{html.escape(_fmt(r[k]))}</td>" for k in keys) + "</tr>\n"
                   for r in rows)
    return f"<h3>{html.escape(title)}</h3>\n<table>\n<tr>{head}</tr>\n{body}</table>\n"


def render_html(report, images):
    e = html.escape
    out = ["<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">",
           "<title>RFC 2544 report</title>",
           "<style>body{font-family:sans-serif;margin:2em}table{border-collapse:collapse;"
           "margin-bottom:1em}td,th{border:1px solid #999;padding:2px 8px;text-align:right}"
           "img{max-width:100%}</style></head><body>",
           "<h1>RFC 2544 report</h1>",
           f"<p>Date {e(report['date'])}, commit {e(report['commit'] or '-')}, "
           f"trials of {e(_fmt(report['trial_s']))} s. DUTs: "
           f"{e(', '.join(d['name'] for d in report['duts']))}.</p>"]
    for name, alt in images.get("", ()):
        out.append(f"<p><img src=\"{e(name)}\" alt=\"{e(alt)}\"></p>")
    for d in report["duts"]:
        out.append(f"<h2>{e(d['name'])}</h2>")
        for kind, title in (("throughput", "Throughput (RFC 2544 26.1; NDR and PDR)"),
                            ("latency", "Latency (26.2)"),
                            ("frame_loss", "Frame loss rate (26.3)"),
                            ("back_to_back", "Back-to-back frames (26.4)")):
            out.append(_table(title, ENTRY_KEYS[kind], d[kind]))
        for name, alt in images.get(d["name"], ()):
            out.append(f"<p><img src=\"{e(name)}\" alt=\"{e(alt)}\"></p>")
    out.append("</body></html>\n")
    return "\n".join(out)


def write(report, out_dir):
    """report.json, the PNGs and report.html into out_dir; their paths."""
    os.makedirs(out_dir, exist_ok=True)
    paths = []

    def at(name):
        p = os.path.join(out_dir, name)
        paths.append(p)
        return p
    with open(at("report.json"), "w") as f:
        json.dump(report, f, indent=1)
        f.write("\n")
    images = {"": [("throughput.png", "throughput against frame size"),
                   ("loss.png", "frame loss against offered load")]}
    plot_throughput(report, at("throughput.png"))
    plot_loss(report, at("loss.png"))
    for d in report["duts"]:
        name = f"latency-{_slug(d['name'])}.png"
        plot_latency(d, at(name))
        images[d["name"]] = [(name, f"{d['name']}: latency percentiles against load")]
    with open(at("report.html"), "w") as f:
        f.write(render_html(report, images))
    return paths


def main(argv):
    if len(argv) != 3:
        print(__doc__.strip().splitlines()[-2:], file=sys.stderr)
        return 2
    with open(argv[1]) as f:
        r = json.load(f)
    for p in write(r, argv[2]):
        print(p)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
