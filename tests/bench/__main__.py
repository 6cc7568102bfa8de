"""The motionwarp benchmark: what a character costs per frame, at scale, and to set up.

    python -m tests.bench [--quick] [--repeats 3] [--profile] [--prc "transform-cache 0"] [--suite]

Prints Markdown tables (the README's "Performance" section holds one run's). Every time is CPU
time of the thread (tests/bench/timing.py), gathered in several repeats: median and p90 of all
samples, and the spread of the repeats' medians. Ratios are to Panda3D's `actor.update()` of
the same run. No rendering. `--profile` adds where the warper task's time goes (cProfile);
`--prc` loads PRC lines first (game-wide Panda3D options, e.g. `transform-cache 0`); `--suite` also
times the test suite. It ends with issue 20's goals and every row of issue 29's table, each against
its number: met or not (the contact IK by limbs bent, tests/bench/bench_contact_ik.py; the demo's share,
each run in a process of its own, tests/bench/demo_share.py; markers, tests/bench/markers.py).
"""
import argparse

from .bench_contact_ik import bent, flat
from .bench_providers import traversal_find
from .bench_providers import walking_up_beside_update
from .characters import Vaulters, walkers
from .cold_start import first_use_ms
from .frame_costs import contact_ik, profiled, root_motion, vaulting
from .headless import windowless_base
from .machine import describe, load_line
from .report import print_report
from .demo_share import demo_share
from .goals import Issue29, print_goals, print_issue29
from .large_mesh import measure as large_mesh
from .markers import marker_find_us
from .scaling import growth, scaling
from .suite import run_suite
from .timing import CpuTimer, Summary

FULL = dict(characters=20, frames=300, walkers=20, ik_characters=20, obstacles=500, queries=1000,
            counts=(1, 10, 20, 100, 300, 500), scale_frames=40, cold_runs=3, growth_counts=(10, 100, 500),
            growth_frames=30, mesh_queries=100, ik_frames={1: 600, 20: 200, 100: 60}, flat_frames=200,
            demo_runs=3, demo_seconds=60.0, markers=10000, marker_queries=300)
QUICK = dict(characters=3, frames=120, walkers=3, ik_characters=3, obstacles=50, queries=50,
             counts=(1, 10), scale_frames=5, cold_runs=1, growth_counts=(1, 10), growth_frames=5, mesh_queries=0,
             ik_frames={1: 120}, flat_frames=20, demo_runs=1, demo_seconds=8.0, markers=1000, marker_queries=30)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a few seconds: few characters and frames")
    parser.add_argument("--repeats", type=int, default=None, help="repeats of each measurement (3; 2 with --quick)")
    parser.add_argument("--profile", action="store_true", help="profile the warper tasks of the per-frame pass")
    parser.add_argument("--prc", action="append", default=[], metavar="LINE",
                        help="a PRC line loaded before anything else, e.g. 'transform-cache 0' (repeatable)")
    parser.add_argument("--suite", action="store_true", help="also run the test suite (-n auto) once and time it")
    args = parser.parse_args(argv)
    size = QUICK if args.quick else FULL
    repeats = args.repeats or (2 if args.quick else 3)

    load_before = load_line()
    cold = first_use_ms(size["cold_runs"], args.prc)
    base, clock = windowless_base(prc=args.prc)
    timer = CpuTimer()
    herd = Vaulters(base, timer)
    vaulters = herd.add(size["characters"])
    per_frame = vaulting(clock, herd, vaulters, timer, size["frames"], repeats)
    # play() times of the per-frame run only: the scaling run's come from up to 500 characters
    first_plays, later_plays, again_plays = list(herd.first_play_us), list(herd.later_play_us), herd.again_play_us
    walking = walkers(base, size["walkers"])
    per_frame["root_motion"] = root_motion(clock, walking, timer, size["frames"], repeats)
    queries = traversal_find(size["obstacles"], size["queries"], repeats, timer)
    per_frame["find"], per_frame["find_open"], per_frame["walking_up"] = (queries.facing, queries.open_ground,
                                                                          queries.walking_up)
    per_frame["ik"] = contact_ik(base, clock, herd, vaulters[:size["ik_characters"]], timer, size["frames"], repeats)
    single, batched = scaling(clock, herd, size["counts"], timer, size["scale_frames"], repeats, base.taskMgr)
    grown = growth(clock, herd, size["growth_counts"], timer, size["growth_frames"])
    mesh = large_mesh(size["mesh_queries"], repeats, timer, [herd.asset] + _more_assets()) if size["mesh_queries"] else None
    table = Issue29(*_contact_ik(base, clock, herd, timer, size["ik_frames"], size["flat_frames"]),
                    demo_share(size["demo_runs"], size["demo_seconds"]), size["markers"],
                    marker_find_us(size["markers"], size["marker_queries"], timer=timer),
                    walking_up_beside_update(timer, clock, walking[0][0], size["obstacles"], size["queries"] // 40 + 1))
    once = {  # microseconds; the first load and MotionWarper() of this process are not "later" ones
        "warper_first": Summary([[run["warper_ms"] * 1e3] for run in cold]),
        "warper_later": Summary.chunked(herd.construct_us[1:], repeats),
        "play_first": Summary.chunked(first_plays, repeats),
        "play_later": Summary.chunked(later_plays, repeats),
        "play_again": Summary.chunked(again_plays, repeats),
        "load_cold": Summary([[run["load_actor_ms"] * 1e3] for run in cold]),
        "load_warm": Summary.chunked(herd.load_us[1:], repeats),
    }
    suite = run_suite() if args.suite else None
    print_report(describe(), args.prc, load_before, load_line(), timer.overhead_ns, size, repeats, per_frame,
                 single, batched, grown, once)
    print_goals(per_frame, single, batched, mesh, suite, size["obstacles"])
    print_issue29(per_frame, single, batched, table)
    if args.profile:
        print("\nWhere the whole warper task's time goes (cProfile after the timed runs; it inflates small calls):")
        profiled(clock, herd, vaulters, size["frames"]).sort_stats("tottime").print_stats(30)


def _contact_ik(base, clock, herd, timer, frames_by_count, flat_frames):
    """({characters: BentCosts} of the first characters of `herd` vaulting with a ContactIK each, for
    `frames_by_count` {count: frames}; FlatCosts of the most of them walking, which leaves them walking)."""
    from motionwarp import SceneProbe
    largest = max(frames_by_count)
    level = herd.level(largest)
    probe = SceneProbe.from_geometry(level)
    costs = {count: bent(base, clock, herd, herd.all[:count], probe, timer, frames)
             for count, frames in sorted(frames_by_count.items())}
    walking = flat(base, clock, herd.all[:largest], probe, timer, flat_frames, costs[largest].update_us)
    level.removeNode()
    return costs, walking


def _more_assets():
    """The mantle assets, so the large-mesh queries ask what the game asks (vault, else mantle)."""
    from motionwarp import WarpAsset
    from .characters import SAMPLES
    return [WarpAsset.load(SAMPLES / "assets" / f"{name}.warp.json") for name in ("mantle", "mantle_high")]


if __name__ == "__main__":
    main()
