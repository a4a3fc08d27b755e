# SPDX-License-Identifier: MIT
"""tests/boot/test_smp.py: every core up, each in its own run loop, no
timer tick (issue 3). Booted with -smp 1, 2 and 4 under TCG and checked
through the console: `show cpus json`, the in-kernel self-tests (timers
fire in order and never early on every core; messages between every pair
of cores arrive once, in order; vector registers survive an interrupt),
zero interrupts under the default idle policy, and the `idle halt`
policy, xAPIC mode and a CPU without XSAVE in their own boots."""
import re
import time

import pytest

import qemu

SMP = [1, 2, 4]
SELFTEST_TIMEOUT = 120  # TCG, -smp 4 on a small, busy host


@pytest.fixture(scope="module", params=SMP, ids=[f"smp{n}" for n in SMP])
def m(request, iso, record_ready):
    with qemu.Machine(iso, name=f"test_smp-smp{request.param}", smp=request.param) as machine:
        record_ready(machine)
        machine.ncpus = request.param
        yield machine


def cpus(m):
    return m.json("show cpus json")


def test_every_core_up_and_in_its_loop(m):
    # The other cores enter their loops as core 0 reaches its own, just
    # after the prompt; on a busy host a virtual CPU may take a moment.
    deadline = time.monotonic() + 10
    a = cpus(m)
    while not all(c["running"] for c in a["per_cpu"]) and time.monotonic() < deadline:
        time.sleep(0.1)
        a = cpus(m)
    assert a["cpus"] == m.ncpus, m.tail()
    assert m.json("show version json")["cpus"] == m.ncpus
    per = a["per_cpu"]
    assert [c["cpu"] for c in per] == list(range(m.ncpus))
    assert len({c["apic_id"] for c in per}) == m.ncpus
    assert all(c["running"] for c in per)
    assert per[0]["pollers"] == ["cli"]
    time.sleep(0.2)
    b = cpus(m)
    for x, y in zip(per, b["per_cpu"]):
        assert y["loop_passes"] > x["loop_passes"], (x, y)


def test_start_up_reported(m, report):
    assert re.search(rf"smp: {m.ncpus} cores up in \d+ us", m.log), m.tail()
    ups = [int(u) for u in re.findall(r"smp: cpu \d+ \(apic \d+\) up in (\d+) us", m.log)]
    assert len(ups) == m.ncpus - 1
    total = int(re.search(r"smp: \d+ cores up in (\d+) us", m.log).group(1))
    report(f"smp={m.ncpus}: cores up in {total} us (per AP, STARTUP to C: {ups} us)")
    per = cpus(m)["per_cpu"]
    for c in per[1:]:
        assert c["start_ns"] > 0
        if c["tsc_skew_measured"]:  # TCG: all cores read one host clock
            assert c["tsc_skew_lo_ns"] <= 0 <= c["tsc_skew_hi_ns"], c


def test_idle_poll_takes_no_interrupts(m, report):
    a = cpus(m)
    assert a["idle"] == "poll"
    time.sleep(2.5)
    b = cpus(m)
    for c in b["per_cpu"]:
        assert c["timer_irqs"] == 0 and c["halts"] == 0, c
        # At most the one IPI that started the core's loop (core 0 takes none).
        assert c["irqs"] == c["wake_irqs"] <= (1 if c["cpu"] else 0), c
    rates = [c["passes_per_s"] for c in b["per_cpu"]]
    report(f"smp={m.ncpus}: idle loop passes/s per core (TCG): {rates}")


def test_show_cpus_text(m):
    out = m.cmd("show cpus")
    lines = out.splitlines()
    assert lines[0].split()[:2] == ["cpu", "apic"], out
    assert [ln.split()[0] for ln in lines[1:1 + m.ncpus]] == [str(i) for i in range(m.ncpus)], out
    assert "idle poll" in out


def test_timers_fire_in_order_never_early(m):
    r = m.json("debug selftest timers", timeout=SELFTEST_TIMEOUT)
    assert r["ok"] and r["finished"], r
    assert len(r["per_cpu"]) == m.ncpus
    for c in r["per_cpu"]:
        assert c["armed"] == r["timers_per_cpu"]
        assert c["fired"] == c["expected"] == c["armed"] - c["cancelled"] > 0, c
        assert c["early"] == 0 and c["out_of_order"] == 0, c
        assert c["repeated"] == 0 and c["fired_cancelled"] == 0, c


def test_messages_between_every_pair(m):
    for _ in range(2):  # a second run reuses the rings and records
        r = m.json("debug selftest messages", timeout=SELFTEST_TIMEOUT)
        assert r["ok"] and r["finished"], r
        n = m.ncpus * r["per_pair"]
        for c in r["per_cpu"]:
            assert c["sent"] == c["received"] == c["expected"] == n, c
            assert c["bad"] == 0 and c["call_ok"], c
        assert r["quiescent"], r  # loop_wait_quiescent: every core passed one


def test_still_no_interrupts_after_selftests(m):
    per = cpus(m)["per_cpu"]
    assert all(c["irqs"] == c["wake_irqs"] <= 1 and c["timer_irqs"] == 0 for c in per), per
    assert sum(c["msgs_handled"] for c in per) >= 2 * m.ncpus * m.ncpus * 2000
    assert all(c["timers_fired"] > 0 for c in per), per


def test_vector_state_survives_interrupts(m):
    """Last in the module: it takes one (self-IPI) interrupt per core."""
    r = m.json("debug selftest vector", timeout=SELFTEST_TIMEOUT)
    assert r["ok"] and len(r["per_cpu"]) == m.ncpus, r
    assert "avx" in r["state"] and "xsave" in r["state"], r  # -cpu max under TCG
    per = cpus(m)["per_cpu"]
    assert all(c["irqs"] - c["wake_irqs"] == 1 and c["timer_irqs"] == 0 for c in per), per


def test_idle_halt_sleeps_and_wakes(boot, mkiso):
    """`idle halt`: an idle core arms its one-shot timer and halts; messages
    still get through (a wake-up IPI) and timers still fire."""
    m = boot(mkiso("hostname hayate\nidle halt\n"), smp=2)
    time.sleep(1.5)
    r = cpus(m)
    assert r["idle"] == "halt"
    for c in r["per_cpu"]:
        assert c["halts"] > 100 and c["timer_irqs"] > 0, c
    assert m.json("debug selftest timers", timeout=SELFTEST_TIMEOUT)["ok"]
    assert m.json("debug selftest messages", timeout=SELFTEST_TIMEOUT)["ok"]
    m.shutdown()


def test_idle_bad_value_reported(boot, mkiso):
    m = boot(mkiso("hostname hayate\nidle sometimes\n"))
    assert re.search(r"config: line 2: usage: idle poll\|halt", m.log), m.tail()
    assert cpus(m)["idle"] == "poll"


def test_xapic_mode(boot):
    """Without x2APIC the local APIC is driven through its MMIO page."""
    m = boot(smp=2, extra=["-cpu", "max,-x2apic"])
    r = cpus(m)
    assert r["apic_mode"] == "xapic" and r["cpus"] == 2, r
    assert m.json("debug selftest messages", timeout=SELFTEST_TIMEOUT)["ok"]
    assert m.json("debug selftest vector", timeout=SELFTEST_TIMEOUT)["ok"]
    m.shutdown()


def test_cpu_without_xsave(boot):
    """qemu64 has neither XSAVE nor x2APIC: interrupts save state with
    FXSAVE, and the cores still come up."""
    m = boot(smp=2, extra=["-cpu", "qemu64"])
    r = cpus(m)
    assert r["cpus"] == 2 and r["vector_state"] == "x87 sse (fxsave)", r
    v = m.json("debug selftest vector", timeout=SELFTEST_TIMEOUT)
    assert v["ok"], v
    assert m.json("debug selftest timers", timeout=SELFTEST_TIMEOUT)["ok"]
    m.shutdown()
