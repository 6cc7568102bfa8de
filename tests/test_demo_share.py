"""The demo benchmark's ledger (tests/bench/demo_share.py) counts each category's own time, on a clock the test
moves: a call timed as another owner's counts there, a call into the owner already running is not split
off, a split call is, and each interval gives back the clock reading's cost."""
from tests.bench import demo_share


def ledger_on(monkeypatch, overhead_ns=0):
    """(a Ledger reading a clock the test moves, a function moving it by `ns`)."""
    now = [0]
    monkeypatch.setattr(demo_share, "_now", lambda: now[0])

    def spend(ns):
        now[0] += ns
    return demo_share.Ledger(overhead_ns), spend


def test_each_category_counts_its_own_time(monkeypatch):
    ledger, spend = ledger_on(monkeypatch)
    timed = ledger.timed
    probe = timed("motionwarp: probe", lambda: spend(5_000))
    provider = timed("motionwarp: chooser, Provider", lambda: spend(30_000), split=True)
    pose = timed("Panda3D: pose update", lambda: spend(7_000))

    def chooser():
        spend(100_000)
        probe()         # motionwarp inside motionwarp: the chooser's
        provider()      # split: its own line
    ask = timed("motionwarp: chooser", chooser)

    def hud():
        spend(10_000)
        ask()
        spend(1_000)
    timed("demo: hud task", hud)()
    timed("motionwarp: warper task", lambda: (spend(20_000), pose()))()
    spent, reads = ledger.take()
    assert spent == {"demo: hud task": 11.0, "motionwarp: chooser": 105.0, "motionwarp: chooser, Provider": 30.0,
                     "motionwarp: warper task": 20.0, "Panda3D: pose update": 7.0}
    assert reads == 10   # two per call timed as a category of its own: the hud, the chooser, the provider, ...
    assert ledger.take() == ({}, 0)


def test_each_interval_gives_back_one_clock_reading(monkeypatch):
    ledger, spend = ledger_on(monkeypatch, overhead_ns=500)
    inner = ledger.timed("motionwarp: chooser", lambda: spend(4_000))
    ledger.timed("demo: hud task", lambda: (spend(2_000), inner(), spend(3_000)))()
    spent, _ = ledger.take()
    assert spent == {"demo: hud task": 4.0, "motionwarp: chooser": 3.5}


def test_frame_costs_add_up_by_owner():
    frame = demo_share.FrameCost("walking", 100.0, {"motionwarp: chooser": 30.0, "motionwarp: probe": 5.0,
                                                    "demo: hud task": 40.0, "Panda3D: igLoop task": 25.0})
    assert (frame.owner_us("motionwarp"), frame.owner_us("demo"), frame.owner_us("Panda3D")) == (35.0, 40.0, 25.0)
