"""Benchmark: one warp provider query, in a generated level of 500 obstacles, next to Panda3D's actor.update().

    python tests/bench/bench_providers.py [--obstacles 500] [--queries 2000]

The level holds boxes, lying logs and wedge-topped crates of random sizes and headings on a
ground plane, built into a static Bullet world with SceneProbe.from_geometry. Each query stands
a character 0.4 to 2 m in front of a random obstacle, facing it within 40 degrees (the costly
case: a face, a top scan, room checks), and times VaultProvider, MantleProvider and the
TraversalProvider that asks both on one measurement, then the TraversalProvider's time by what it
answered; "open ground" queries face nothing, "standing still" asks again from the same place
(the kept answer of a static probe). Each provider asks through a probe of its own over the same
world, so none is handed what another measured along the same line. "Walking up" times every frame
of characters walking at 1.4 m/s (60 fps) toward random obstacles until their capsule meets the
face (the measurement kept along their line), each frame beside Panda3D's update of a walking
actor in that frame (the median of the per-frame ratios); the yard's chooser (traversal, jumps,
markers) is timed in front of its bench, fresh and walking up. "Markers" times
`MarkerProvider.find(actor)` among 10,000 markers (a 100 x 100 grid 1 m apart), the actor placed
somewhere new each frame, beside Panda3D's update in the same frame.
Times are CPU time of the thread (tests/bench/timing.py). `python -m tests.bench` reports
the TraversalProvider's figure with the others.
"""
import argparse
import dataclasses
import math
import pathlib
import random
import re
import statistics
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
from motionwarp import samples  # noqa: E402

SAMPLES = samples.folder()

from panda3d.core import NodePath, Point3, Vec3  # noqa: E402

from tests.bench.goals import FIND_FACING_US, FIND_MARKERS_US, FIND_OPEN_US, WALKING_UP_RATIO  # noqa: E402
from tests.bench.timing import CpuTimer, Summary, p90  # noqa: E402


def build_level(count, rng):
    """(level root, [(front point, inward direction)] of every obstacle), `count` random obstacles on a grid."""
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


def facing_queries(fronts, count, rng):
    """[(feet position, heading)] 0.4 to 2 m in front of a random obstacle, facing it within 40 degrees."""
    queries = []
    for _ in range(count):
        front, inward = rng.choice(fronts)
        h = math.degrees(math.atan2(-inward.x, inward.y)) + rng.uniform(-40, 40)
        forward = Vec3(-math.sin(math.radians(h)), math.cos(math.radians(h)), 0)
        start = front - forward * rng.uniform(0.4, 2.0)
        queries.append((Point3(start.x, start.y, 0), h))
    return queries


def providers(probe):
    """The three providers, each over a probe of its own on `probe`'s world (no measurement shared)."""
    from motionwarp import MantleProvider, SceneProbe, TraversalProvider, VaultProvider, WarpAsset
    assets = [WarpAsset.load(SAMPLES / "assets" / f"{name}.warp.json") for name in ("vault", "mantle", "mantle_high")]
    return {name: kind(SceneProbe(probe.world, probe.mask, static=probe.static), assets)
            for name, kind in (("VaultProvider", VaultProvider), ("MantleProvider", MantleProvider),
                               ("TraversalProvider", TraversalProvider))}


#: Walking speed (m/s) and frame rate of the "walking up" figures.
WALK, FPS = 1.4, 60


def walking_up(starts, frames):
    """[(pos, h)] of every frame of characters walking from `starts` (pos, h) along their facing."""
    step = WALK / FPS
    return [(Point3(pos + Vec3(-math.sin(math.radians(h)), math.cos(math.radians(h)), 0) * (step * frame)), h)
            for pos, h in starts for frame in range(frames)]


def walks(fronts, count, rng, radius):
    """[[(feet position, heading)] of each frame of a walk]: `count` characters starting 0.4 to 2 m before a
    random obstacle's front, facing it within 40 degrees, walking at WALK m/s (FPS frames a second) up
    to where their capsule (`radius`) meets the plane of that face (`distance` m ahead along the facing,
    where the line from the start meets it)."""
    step, walked = WALK / FPS, []
    for _ in range(count):
        front, inward = rng.choice(fronts)
        h = math.degrees(math.atan2(-inward.x, inward.y)) + rng.uniform(-40, 40)
        forward = Vec3(-math.sin(math.radians(h)), math.cos(math.radians(h)), 0)
        distance = rng.uniform(0.4, 2.0)
        start = front - forward * distance
        start.z = 0
        walked.append([(Point3(start + forward * (step * frame)), h)
                       for frame in range(int((distance - radius) / step) + 1)])
    return walked


def beside_update(timer, clock, actor, find, asked):
    """(microseconds of `find(*question)`, of Panda3D's update of `actor`, their per-frame ratios) for each
    question of `asked`, one frame each: the clock ticks, Panda3D updates the actor, `find` answers."""
    from tests.bench.frame_costs import panda_update
    found, updates, ratios = [], [], []
    for question in asked:
        clock.tick()
        update = timer.us(panda_update, actor)[0]
        us = timer.us(find, *question)[0]
        found.append(us)
        updates.append(update)
        ratios.append(us / update)
    return found, updates, ratios


@dataclasses.dataclass
class WalkingUp:
    """Every frame of characters walking up to an obstacle, each beside Panda3D's update of a walking actor in
    that frame: the TraversalProvider's microseconds, the update's, and their ratios (issue 29's row is the
    median of the ratios: the same frames, whatever the machine's speed does between them)."""
    us: list
    update_us: list
    ratios: list

    @property
    def ratio(self):
        return statistics.median(self.ratios)


def walking_up_beside_update(timer, clock, actor, obstacles, walks_count, seed=1):
    """The WalkingUp of `walks_count` characters walking up to random obstacles of a level of `obstacles`."""
    from motionwarp import SceneProbe
    rng = random.Random(seed)
    root, fronts = build_level(obstacles, rng)
    traversal = providers(SceneProbe.from_geometry(root))["TraversalProvider"]
    frames = [frame for walk in walks(fronts, walks_count, rng, traversal.settings.capsule_radius) for frame in walk]
    return WalkingUp(*beside_update(timer, clock, actor, traversal.find_at, frames))


def many_markers(base, rng, queries, side=100):
    """(a MarkerProvider over `side` x `side` markers 1 m apart on open ground, alternately seats 0.45 m
    high and levers 1 m high, facing +Y; a character node; [(feet position, heading)] to ask from, inside
    the grid, facing within 30 degrees of +Y)."""
    from motionwarp import MarkerProvider, SceneProbe, WarpAsset
    from tests.obstacles import box_profile, prism
    root = base.render.attachNewNode("markers")
    for i in range(side):
        for j in range(side):
            kind = "use" if (i + j) % 2 else "sit"
            marker = root.attachNewNode(f"marker-{i}-{j}")
            marker.setPos(i * 1.0, j * 1.0, 1.0 if kind == "use" else 0.45)
            marker.setTag("motionwarp-interaction", kind)
    assets = [WarpAsset.load(SAMPLES / "assets" / f"{name}.warp.json") for name in ("sit", "use")]
    ground = NodePath("ground")
    prism(ground, "ground", box_profile(400, 0.1), 400, pos=(50, 50, -0.1))
    provider = MarkerProvider(SceneProbe.from_geometry(ground), root, assets)
    character = base.render.attachNewNode("marker-character")
    places = [(Point3(rng.uniform(5, side - 5), rng.uniform(5, side - 5), 0), rng.uniform(-30, 30))
              for _ in range(queries)]
    return provider, character, places


def yard_chooser(timer, rng, queries):
    """(fresh, walking up) microseconds of the demo's chooser in the yard (scenes/yard.json), in
    front of its bench: fresh from a random place 0.6 to 1.6 m before it, and every frame of walking
    up from 1.8 m to 0.4 m before it."""
    from direct.showbase.Loader import Loader
    from motionwarp_demo.app.app import _providers
    from motionwarp_demo.level.scene import Scene
    from motionwarp import MotionWarpSettings, SceneProbe, WarpAsset
    root = NodePath("yard")
    scene = Scene.load(SAMPLES / "scenes" / "yard.json")
    scene.build(root, Loader(None))
    bench_y = next(o.pos[1] for o in scene.obstacles if o.name == "bench")
    assets = {path.name: WarpAsset.load(path) for path in sorted((SAMPLES / "assets").glob("*.warp.json"))}
    chooser = _providers(SceneProbe.from_geometry(root), assets, root, MotionWarpSettings())
    fresh = [(Point3(rng.uniform(-0.3, 0.3), bench_y - rng.uniform(0.6, 1.6), 0), rng.uniform(-20, 20))
             for _ in range(queries)]
    starts = [(Point3(rng.uniform(-0.3, 0.3), bench_y - 1.8, 0), rng.uniform(-10, 10)) for _ in range(queries // 60 + 1)]
    return ([timer.us(chooser.find_at, pos, h)[0] for pos, h in fresh],
            [timer.us(chooser.find_at, pos, h)[0] for pos, h in walking_up(starts, 60)])


@dataclasses.dataclass
class Queries:
    """Summaries of TraversalProvider query times (microseconds per query): in front of an obstacle (fresh),
    on open ground, and every frame of characters walking up to an obstacle (the kept measurement)."""
    facing: object
    open_ground: object
    walking_up: object


def traversal_find(obstacles, queries, repeats, timer, seed=1):
    """Queries of TraversalProvider.find(character) in front of an obstacle, on open ground, and walking up
    (about `queries` frames of characters walking up to an obstacle's face, `walks`)."""
    from motionwarp import SceneProbe
    rng = random.Random(seed)
    root, fronts = build_level(obstacles, rng)
    provider = providers(SceneProbe.from_geometry(root))["TraversalProvider"]
    character = root.attachNewNode("character")
    facing, open_ground, walking = [], [], []
    for _ in range(repeats):
        for times, asked in ((facing, facing_queries(fronts, queries, rng)),
                             (open_ground, [(Point3(-50 - i, -50, 0), rng.uniform(0, 360)) for i in range(queries)]),
                             (walking, [frame for walk in walks(fronts, queries // 40 + 1, rng,
                                                                 provider.settings.capsule_radius)
                                        for frame in walk])):
            times.append([])
            for pos, h in asked:
                character.setPosHpr(pos, (h, 0, 0))
                times[-1].append(timer.us(provider.find, character)[0])
    return Queries(Summary(facing), Summary(open_ground), Summary(walking))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--obstacles", type=int, default=500)
    parser.add_argument("--queries", type=int, default=2000)
    args = parser.parse_args()

    from tests.bench.characters import MANNEQUIN
    from tests.bench.frame_costs import panda_update
    from tests.bench.headless import windowless_base
    base, clock = windowless_base()
    from motionwarp import SceneProbe, load_actor

    timer = CpuTimer()
    rng = random.Random(1)
    t0 = timer.start()
    root, fronts = build_level(args.obstacles, rng)
    probe = SceneProbe.from_geometry(root)
    build_ms = timer.since(t0) / 1e3
    asked = providers(probe)
    actor = load_actor(MANNEQUIN)
    actor.reparentTo(base.render)
    actor.loop("walk")

    times = {name: [] for name in asked}
    by_outcome = {}  # TraversalProvider's times by what it answered
    update_us = []
    traversal = asked["TraversalProvider"]
    for pos, h in facing_queries(fronts, args.queries, rng):
        for name, provider in asked.items():
            us, found = timer.us(provider.find_at, pos, h)
            times[name].append(us)
        key = found.kind if found else "refused: " + re.split(r" \(| [\d.]+ m", found.reason)[0]
        by_outcome.setdefault(key, []).append(us)
        clock.tick()
        update_us.append(timer.us(panda_update, actor)[0])
    walking = walking_up_beside_update(timer, clock, actor, args.obstacles, args.queries // 40 + 1, seed=2)
    walking_us, walking_update = walking.us, walking.update_us
    open_ground = [(Point3(-50 - i, -50, 0), rng.uniform(0, 360)) for i in range(args.queries // 4)]
    open_us = [timer.us(traversal.find_at, pos, h)[0] for pos, h in open_ground]
    # Standing still in front of an obstacle: asked every frame from the same place, the kept answer.
    still_us = [timer.us(traversal.find_at, pos, h)[0] for pos, h in facing_queries(fronts, 50, rng) for _ in range(5)]

    update = statistics.median(update_us)
    print(f"level: {args.obstacles} obstacles, static Bullet world built in {build_ms:.0f} ms; {args.queries} queries")
    print(f"Panda3D actor.update(force=True):       median {update:7.1f} us")
    for name, values in times.items():
        print(f"motionwarp {name + '.find_at()':31s} median {statistics.median(values):7.1f} us "
              f"(p90 {p90(values):.1f} us, {statistics.median(values) / update:.1f}x update) in front of an obstacle")
    yard_fresh, yard_walking = yard_chooser(timer, rng, args.queries // 4)
    for label, values in [("open ground", open_us), ("standing still (kept answer)", still_us),
                          (f"walking up, per frame ({WALK} m/s, {FPS} fps)", walking_us)] + sorted(
            by_outcome.items(), key=lambda kv: -len(kv[1])):
        print(f"  TraversalProvider, {label + ':':38s} median {statistics.median(values):7.1f} us "
              f"({statistics.median(values) / update:.2f}x update, {len(values)} queries)")
    for label, values in (("fresh", yard_fresh), ("walking up, per frame", yard_walking)):
        print(f"  the yard's InteractionChooser in front of its bench, {label + ':':26s} median "
              f"{statistics.median(values):7.1f} us ({statistics.median(values) / update:.2f}x update, "
              f"{len(values)} queries)")
    for label, values, goal in (("in front of an obstacle", times["TraversalProvider"], FIND_FACING_US),
                                ("walking up to an obstacle (per frame)", walking_us, FIND_FACING_US),
                                ("on open ground", open_us, FIND_OPEN_US)):
        median = statistics.median(values)
        print(f"goal (issue 20): TraversalProvider {label} at most {goal:g} us: {median:.1f} us "
              f"({median / update:.2f}x update): {'met' if median <= goal else 'NOT met'}")
    ratio = walking.ratio
    print(f"goal (issue 29): TraversalProvider walking up, per frame, at most {WALKING_UP_RATIO:g}x update: "
          f"{ratio:.2f}x ({statistics.median(walking_us):.1f} us beside {statistics.median(walking_update):.1f} us, "
          f"the median of {len(walking.ratios)} frames' ratios): {'met' if ratio <= WALKING_UP_RATIO else 'NOT met'}")
    markers, character, places = many_markers(base, rng, args.queries // 4)

    def find_markers(pos, h):
        character.setPosHpr(pos, (h, 0, 0))
        return markers.find(character)
    marker_us, marker_update, marker_ratio = beside_update(timer, clock, actor, find_markers, places)
    median = statistics.median(marker_us)
    print(f"goal (issue 29): MarkerProvider.find() among {len(markers.markers):,} markers under {FIND_MARKERS_US:g} us: "
          f"{median:.1f} us ({statistics.median(marker_ratio):.2f}x update, {len(marker_us)} queries): "
          f"{'met' if median < FIND_MARKERS_US else 'NOT met'}")


if __name__ == "__main__":
    main()
