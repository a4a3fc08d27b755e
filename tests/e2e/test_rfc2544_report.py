# SPDX-License-Identifier: MIT
"""tests/e2e/test_rfc2544_report.py: the RFC 2544 report writer
(tools/rfc2544/report.py) on synthetic results, no QEMU: report.json has
exactly the issue's keys, the tables hold every row, and each PNG is an
image matplotlib reads back. Skips without matplotlib
(apt-get install python3-matplotlib)."""
import json
import os
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tools"))
from rfc2544 import report as rp  # noqa: E402

SIZES = [64, 128, 256, 512, 1024, 1280, 1518, "imix"]


def synthetic(name, scale):
    """A tester's JSON for one DUT, extra keys included (they must go)."""
    thr, lat, loss, b2b = [], [], [], []
    for i, s in enumerate(SIZES):
        pps = int(scale * 100000 / (i + 1))
        thr.append({"size": s, "ndr_pps": pps, "ndr_mbps": round(pps * 8 * 84 / 1e6, 3),
                    "pdr_pps": pps + 500, "trials": 7})
        for load in (10, 50, 90, 100):
            base = 20000 + 100 * load
            lat.append({"size": s, "load_pct": load, "min_ns": base, "p50_ns": base * 2,
                        "p90_ns": base * 3, "p99_ns": base * 5, "p999_ns": base * 8,
                        "max_ns": base * 20, "mean_ns": base * 2})
        for off in range(100, 0, -10):
            loss.append({"size": s, "offered_pct": off, "loss_pct": max(0.0, off - 60) / 2})
        b2b.append({"size": s, "frames": 1000 * (i + 1)})
    return {"state": "done", "name": name, "throughput": thr, "latency": lat,
            "frame_loss": loss, "back_to_back": b2b, "extra": 1}


@pytest.fixture(scope="module")
def plt():
    matplotlib = pytest.importorskip("matplotlib", reason="no matplotlib (apt-get install python3-matplotlib)")
    matplotlib.use("Agg")
    import matplotlib.pyplot
    return matplotlib.pyplot


def test_report_json_keys_and_rows(tmp_path, plt):
    r = rp.build([synthetic("hayate", 3), synthetic("linux", 1)], trial_s=0.5,
                 date="2025-01-01T00:00:00+00:00", commit="abc")
    paths = rp.write(r, str(tmp_path))
    got = json.loads((tmp_path / "report.json").read_text())
    assert set(got) == {"duts", "trial_s", "date", "commit"}
    assert (got["trial_s"], got["date"], got["commit"]) == (0.5, "2025-01-01T00:00:00+00:00", "abc")
    assert [d["name"] for d in got["duts"]] == ["hayate", "linux"]
    for d in got["duts"]:
        assert set(d) == {"name", "throughput", "latency", "frame_loss", "back_to_back"}
        assert {tuple(e) for e in d["throughput"]} == {("size", "ndr_pps", "ndr_mbps", "pdr_pps")}
        assert {tuple(e) for e in d["latency"]} == {
            ("size", "load_pct", "min_ns", "p50_ns", "p90_ns", "p99_ns", "p999_ns", "max_ns")}
        assert {tuple(e) for e in d["frame_loss"]} == {("size", "offered_pct", "loss_pct")}
        assert {tuple(e) for e in d["back_to_back"]} == {("size", "frames")}
        assert [e["size"] for e in d["throughput"]] == SIZES
        assert len(d["latency"]) == 4 * len(SIZES) and len(d["frame_loss"]) == 10 * len(SIZES)
    assert got["duts"][0]["throughput"][0]["ndr_pps"] == 300000
    names = sorted(os.path.basename(p) for p in paths)
    assert names == ["latency-hayate.png", "latency-linux.png", "loss.png",
                     "report.html", "report.json", "throughput.png"]
    page = (tmp_path / "report.html").read_text()
    for png in ("throughput.png", "loss.png", "latency-hayate.png", "latency-linux.png"):
        assert f'src="{png}"' in page
    assert page.count("<table>") == 8 and "imix" in page


def test_pngs_open(tmp_path, plt):
    r = rp.build([synthetic("hayate", 3), synthetic("linux", 1)], trial_s=0.5, commit="")
    rp.write(r, str(tmp_path))
    for png in ("throughput.png", "loss.png", "latency-hayate.png", "latency-linux.png"):
        img = plt.imread(str(tmp_path / png))
        h, w = img.shape[:2]
        assert h > 200 and w > 400, (png, img.shape)
        assert img.std() > 0.01, f"{png} is blank"


def test_missing_values_and_no_duts(tmp_path, plt):
    """A DUT whose tester left keys out, or gave no rows, still plots;
    missing values are null in the JSON."""
    partial = {"name": "x", "throughput": [{"size": 64, "ndr_pps": 10}], "latency": [],
               "frame_loss": [{"size": "imix", "offered_pct": 100}], "back_to_back": []}
    r = rp.build([partial], trial_s=1, commit="")
    rp.write(r, str(tmp_path))
    got = json.loads((tmp_path / "report.json").read_text())
    assert got["duts"][0]["throughput"] == [{"size": 64, "ndr_pps": 10, "ndr_mbps": None, "pdr_pps": None}]
    assert got["duts"][0]["frame_loss"] == [{"size": "imix", "offered_pct": 100, "loss_pct": None}]
    rp.write(rp.build([], trial_s=1, commit=""), str(tmp_path / "empty"))
    assert plt.imread(str(tmp_path / "empty" / "throughput.png")).shape[0] > 100
