"""Benchmark: a 200,000-triangle obstacle in the probe (build time, provider queries), next to its
12-triangle twin (the same box), so a query's dependence on tessellation shows.

    python tests/bench/large_mesh.py

The obstacle is a 2.0 x 1.0 x 1.0 m crate whose 12 triangles are each cut into a 129 x 129 grid of
its own edges (199,692 triangles, indexed); the character stands 0.4 to 1.2 m in front, facing it
within 25 degrees. Times are CPU time of the thread (tests/bench/timing.py).
"""
import pathlib
import random
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from panda3d.core import Point3  # noqa: E402

from tests.bench.timing import CpuTimer, Summary  # noqa: E402

CUTS = 129   # 12 * 129 ** 2 = 199,692 triangles
SIZE = (2.0, 1.0, 1.0)


def crate(cuts):
    """(level root, crate NodePath): the crate's triangles each cut `cuts` x `cuts`, on a ground."""
    from tests.obstacles import box_profile, level, mesh_node, prism, prism_triangles, subdivided
    root = level()
    prism(root, "ground", box_profile(40.0, 0.1), 40.0, pos=(0, 0, -0.1))
    triangles = prism_triangles(box_profile(SIZE[1], SIZE[2]), SIZE[0])
    return root, mesh_node(root, "crate", subdivided(triangles, cuts) if cuts > 1 else triangles, pos=(0.0, 2.0, 0.0))


def queries(count, rng):
    """[(feet, heading)] 0.4 to 1.2 m in front of the crate's near face (y = 1.5), facing it within 25 degrees."""
    return [(Point3(rng.uniform(-0.6, 0.6), 1.5 - rng.uniform(0.4, 1.2), 0.0), rng.uniform(-25, 25)) for _ in range(count)]


def measure(queries_per_repeat, repeats, timer, assets):
    """{"build_s": Summary (seconds), "fine_us", "coarse_us": Summary of a TraversalProvider query, "triangles": n}."""
    from motionwarp import SceneProbe, TraversalProvider
    out = {}
    for cuts, key in ((CUTS, "fine_us"), (1, "coarse_us")):
        root, node = crate(cuts)
        t0 = timer.start()
        probe = SceneProbe.from_geometry(root)
        build = timer.since(t0) / 1e6
        if cuts > 1:
            out["build_s"] = Summary([[build]])
            out["triangles"] = node.node().getGeom(0).getPrimitive(0).getNumPrimitives()
        provider = TraversalProvider(probe, assets)
        rng = random.Random(3)
        repeated = []
        for _ in range(repeats):
            repeated.append([timer.us(provider.find_at, pos, h)[0] for pos, h in queries(queries_per_repeat, rng)])
        out[key] = Summary(repeated)
    return out


def main():
    from tests.bench.bench_providers import providers
    from motionwarp import SceneProbe
    timer = CpuTimer()
    assets = providers(SceneProbe.from_geometry(crate(1)[0]))["TraversalProvider"]._given
    got = measure(50, 3, timer, assets)
    print(f"{got['triangles']} triangles built in {got['build_s'].median:.2f} s; query {got['fine_us'].median:.0f} us "
          f"(12-triangle twin {got['coarse_us'].median:.0f} us)")


if __name__ == "__main__":
    main()
