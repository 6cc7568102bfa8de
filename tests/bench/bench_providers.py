"""Benchmark: one warp provider query, in a generated level of 500 obstacles, next to Panda3D's actor.update().

    python tests/bench/bench_providers.py [--obstacles 500] [--queries 2000]

The level holds boxes, lying logs and wedge-topped crates of random sizes and headings on a
ground plane, built into a static Bullet world with SceneProbe.from_geometry. Each query stands
a character 0.4 to 2 m in front of a random obstacle, facing it within 40 degrees (the costly
case: a face, a top scan, room checks), and times VaultProvider, MantleProvider and the
TraversalProvider that asks both on one measurement; "open ground" queries face nothing.
"""
import argparse
import math
import pathlib
import random
import statistics
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from panda3d.core import ClockObject, NodePath, Point3, Vec3, loadPrcFileData  # noqa: E402


def build_level(count, rng):
    from tests.obstacles import box_profile, circle_profile, prism
    root = NodePath("level")
    prism(root, "ground", box_profile(400, 0.1), 400, pos=(0, 0, -0.1))
    fronts = []
    side = math.ceil(math.sqrt(count))
    for index in range(count):
        height, depth = rng.uniform(0.5, 2.4), rng.uniform(0.3, 2.5)
        profile = rng.choice([box_profile(depth, height), circle_profile(height / 2, 24, height / 2),
                              [(-depth / 2, 0.0), (depth / 2, 0.0), (depth / 2, height), (-depth / 2, 0.8 * height)]])
        pos = ((index % side) * 8.0 + rng.uniform(-1, 1), (index // side) * 8.0 + rng.uniform(-1, 1), 0)
        node = prism(root, f"obstacle-{index}", profile, rng.uniform(1.0, 3.0), pos=pos, h=rng.uniform(0, 360))
        front = root.getRelativePoint(node, Point3(0, min(y for y, _ in profile), 0))
        fronts.append((front, root.getRelativeVector(node, Vec3(0, 1, 0))))
    return root, fronts


def timed(function, *args):
    t0 = time.perf_counter()
    function(*args)
    return (time.perf_counter() - t0) * 1e6


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--obstacles", type=int, default=500)
    parser.add_argument("--queries", type=int, default=2000)
    args = parser.parse_args()

    loadPrcFileData("bench", "window-type none\naudio-library-name null")
    from direct.showbase.ShowBase import ShowBase
    from motionwarp import MantleProvider, SceneProbe, TraversalProvider, VaultProvider, WarpAsset, load_actor

    base = ShowBase(windowType="none")
    ClockObject.getGlobalClock().setMode(ClockObject.MNonRealTime)
    rng = random.Random(1)
    t0 = time.perf_counter()
    root, fronts = build_level(args.obstacles, rng)
    probe = SceneProbe.from_geometry(root)
    build_ms = (time.perf_counter() - t0) * 1e3
    assets = [WarpAsset.load(ROOT / "assets" / f"{name}.warp.json") for name in ("vault", "mantle", "mantle_high")]
    providers = {"VaultProvider": VaultProvider(probe, assets), "MantleProvider": MantleProvider(probe, assets),
                 "TraversalProvider": TraversalProvider(probe, assets)}
    actor = load_actor(ROOT / "assets" / "mannequin.glb")
    actor.reparentTo(base.render)
    actor.loop("walk")

    queries = []
    for _ in range(args.queries):
        front, inward = rng.choice(fronts)
        h = math.degrees(math.atan2(-inward.x, inward.y)) + rng.uniform(-40, 40)
        forward = Vec3(-math.sin(math.radians(h)), math.cos(math.radians(h)), 0)
        start = front - forward * rng.uniform(0.4, 2.0)
        queries.append((Point3(start.x, start.y, 0), h))
    open_ground = [(Point3(-50 - i, -50, 0), rng.uniform(0, 360)) for i in range(args.queries // 4)]

    times = {name: [] for name in providers}
    outcomes = {}
    update_us = []
    for pos, h in queries:
        for name, provider in providers.items():
            times[name].append(timed(provider.find_at, pos, h))
        found = providers["TraversalProvider"].find_at(pos, h)
        key = found.kind if found else found.reason.split(" (")[0]
        outcomes[key] = outcomes.get(key, 0) + 1
        ClockObject.getGlobalClock().tick()
        update_us.append(timed(lambda: actor.update(force=True)))
    open_us = [timed(providers["TraversalProvider"].find_at, pos, h) for pos, h in open_ground]

    print(f"level: {args.obstacles} obstacles, static Bullet world built in {build_ms:.0f} ms; {args.queries} queries")
    print(f"Panda3D actor.update(force=True):       median {statistics.median(update_us):7.1f} us")
    for name, values in times.items():
        print(f"motionwarp {name + '.find_at()':31s} median {statistics.median(values):7.1f} us "
              f"(p90 {statistics.quantiles(values, n=10)[-1]:.1f} us) in front of an obstacle")
    print(f"motionwarp TraversalProvider, open ground:  median {statistics.median(open_us):7.1f} us")
    print("outcomes:", ", ".join(f"{k}: {v}" for k, v in sorted(outcomes.items(), key=lambda kv: -kv[1])))


if __name__ == "__main__":
    main()
