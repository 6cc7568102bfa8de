"""Big meshes in the probe (docs/design.md 7): a finely tessellated obstacle is measured as its coarse
twin (the same surface in a few triangles), and any triangle list builds, indexed or not, without normals.

The oracle is the test's own geometry: the twin's triangles are split along a grid of their own edges,
so both are the same surface; the edges are also checked against the profile (tests/obstacles.py).
Timings live in `python -m tests.bench` (the large-mesh rows), not here.
"""
import math

import pytest
from panda3d.core import Geom, GeomNode, GeomTristrips, GeomVertexData, GeomVertexFormat, GeomVertexWriter, Point3

from motionwarp import Interaction, SceneProbe, TraversalProvider

from .test_providers import ANY_REACH
from .obstacles import (box_profile, circle_profile, distance_to_edge_line, level, mesh_node, prism, prism_triangles,
                        subdivided, walkable_run)

MAX_INCLINE = 35.0
PROFILES = {
    "crate": (box_profile(0.7, 1.1), 2.0),
    "log": (circle_profile(0.4, 24, 0.4), 2.4),
    "wedge": ([(-0.4, 0.0), (0.4, 0.0), (0.4, 1.1), (-0.4, 0.9)], 1.6),
    "ledge": ([(-1.2, 0.0), (1.2, 0.0), (1.2, 1.6), (-1.05, 1.6), (-1.2, 1.45)], 3.0),
}
#: Where the character stands and faces, in the obstacle's frame: (x across its width, distance before
#: its front face, heading turned from straight at it).
APPROACHES = [(0.0, 0.9, 0.0), (0.3, 0.6, 20.0), (-0.4, 1.4, -35.0)]


@pytest.fixture(scope="module")
def assets(warp_assets):
    return list(warp_assets.values())


def _scene(name, cuts, indexed, h):
    """A level with a ground and obstacle `name` turned by `h`, its triangles each cut in cuts * cuts."""
    profile, width = PROFILES[name]
    root = level()
    prism(root, "ground", box_profile(40.0, 0.1), 40.0, pos=(0, 0, -0.1))
    triangles = prism_triangles(profile, width)
    path = mesh_node(root, name, subdivided(triangles, cuts) if cuts > 1 else triangles, pos=(1.0, 4.0, 0.0), h=h,
                     indexed=indexed)
    return root, path


def _ask(root, path, assets):
    """The TraversalProvider's answers from each of APPROACHES."""
    profile, _ = PROFILES[path.getName()]
    # what is measured, whether or not the warper then plays it from there (test_providers_reach.py)
    provider = TraversalProvider(SceneProbe.from_geometry(root), assets, warp_settings=ANY_REACH)
    front = min(y for y, _ in profile)
    answers = []
    for x, distance, turn in APPROACHES:
        start = root.getRelativePoint(path, Point3(x, front - distance, 0))
        answers.append(provider.find_at(Point3(start.x, start.y, 0.0), path.getH() + turn))
    return answers


def _same(a, b, metres=2e-3):
    return (a is None and b is None) or (a is not None and b is not None and (a - b).length() < metres)


@pytest.mark.parametrize("indexed", [True, False], ids=["indexed", "no indices"])
@pytest.mark.parametrize("name", sorted(PROFILES))
def test_a_finely_tessellated_obstacle_is_measured_as_its_coarse_twin(assets, name, indexed):
    h = 25.0
    coarse = _ask(*_scene(name, 1, True, h), assets)
    fine_root, fine_path = _scene(name, 12, indexed, h)
    assert fine_path.node().getGeom(0).getPrimitive(0).getNumPrimitives() == 144 * len(
        prism_triangles(*PROFILES[name]))
    fine = _ask(fine_root, fine_path, assets)
    close, far = walkable_run(PROFILES[name][0], MAX_INCLINE)
    for twin, found in zip(coarse, fine):
        assert type(found) is type(twin) and bool(found) == bool(twin), (found, twin)
        if not isinstance(twin, Interaction):
            assert found.reason == twin.reason
            continue
        assert found.kind == twin.kind and found.asset is twin.asset
        assert _same(found.close_edge, twin.close_edge) and _same(found.far_edge, twin.far_edge)
        assert _same(found.landing, twin.landing, 5e-3)   # 1.5 m along the normal: 2.6 mm per 0.1 degree
        # Where the capsule meets the log on a ridge between two facets, the contact normal is any between
        # theirs: Bullet's GJK settles on one numerically, which moves with the triangles by a tenth of a degree.
        assert math.degrees(found.normal.angleRad(twin.normal)) < 0.2
        assert found.height == pytest.approx(twin.height, abs=1e-3)
        assert found.depth == pytest.approx(twin.depth, abs=2e-3)
        assert found.distance == pytest.approx(twin.distance, abs=2e-3)
        # and both on the profile's own edges
        assert distance_to_edge_line(fine_path, found.close_edge, close) < 0.01
        if found.far_edge is not None:
            assert distance_to_edge_line(fine_path, found.far_edge, far) < 0.01
    assert any(isinstance(found, Interaction) for found in fine)


def test_strips_without_indices_or_normals_build_and_are_hit():
    """A wall of one triangle strip, its vertices not indexed and without normals."""
    data = GeomVertexData("wall", GeomVertexFormat.getV3(), Geom.UH_static)
    vertex = GeomVertexWriter(data, "vertex")
    columns = 2000
    for i in range(columns + 1):     # a 4 m wide, 1 m high wall in the plane y = 3
        vertex.addData3(-2.0 + 4.0 * i / columns, 3.0, 0.0)
        vertex.addData3(-2.0 + 4.0 * i / columns, 3.0, 1.0)
    strip = GeomTristrips(Geom.UH_static)
    strip.addConsecutiveVertices(0, 2 * (columns + 1))
    strip.closePrimitive()
    geom = Geom(data)
    geom.addPrimitive(strip)
    node = GeomNode("wall")
    node.addGeom(geom)
    root = level()
    wall = root.attachNewNode(node)
    probe = SceneProbe.from_geometry(root)
    for x in (-1.9, -0.3337, 0.0, 1.25):
        hit = probe.ray(Point3(x, 0, 0.5), Point3(x, 5, 0.5))
        assert hit is not None and hit.node == wall
        assert tuple(hit.pos) == pytest.approx((x, 3.0, 0.5), abs=1e-5)
        assert abs(abs(hit.normal.y) - 1.0) < 1e-6
    assert probe.ray(Point3(0, 0, 1.2), Point3(0, 5, 1.2)) is None     # above its top edge


def test_a_mesh_without_triangles_is_left_out():
    """Lines and points have no surface: the node adds no body (and no error)."""
    root = level()
    mesh_node(root, "crate", prism_triangles(*PROFILES["crate"]))
    data = GeomVertexData("line", GeomVertexFormat.getV3(), Geom.UH_static)
    GeomVertexWriter(data, "vertex").addData3(0, 0, 0)
    from panda3d.core import GeomPoints
    points = GeomPoints(Geom.UH_static)
    points.addVertex(0)
    geom = Geom(data)
    geom.addPrimitive(points)
    node = GeomNode("points")
    node.addGeom(geom)
    root.attachNewNode(node)
    assert SceneProbe.from_geometry(root).world.getNumRigidBodies() == 1


def test_near_says_whether_any_bounds_meet_a_box():
    """A crate 1.2 x 0.6 x 1.0 m at (3, 4), unturned: boxes touching it are near, boxes 10 cm clear of
    its bounds (and Bullet's margins) are not; a probe that is not static always says near."""
    root = level()
    prism(root, "crate", box_profile(0.6, 1.0), 1.2, pos=(3.0, 4.0, 0.0))
    probe = SceneProbe.from_geometry(root)
    assert probe.near((3.5, 4.2, 0.9), (4.0, 5.0, 2.0))          # over its corner
    assert probe.near((2.0, 3.0, -1.0), (6.0, 6.0, 3.0))         # around it
    assert not probe.near((3.0, 4.0, 1.1), (3.1, 4.1, 2.0))      # 10 cm above its top
    assert not probe.near((3.7, 3.0, 0.0), (5.0, 5.0, 1.0))      # 10 cm beside its side
    assert not probe.near((-50.0, -50.0, 0.0), (-40.0, -40.0, 1.0))
    assert SceneProbe(probe.world).near((-50.0, -50.0, 0.0), (-40.0, -40.0, 1.0))


def test_a_nodes_bounds_leave_out_its_children():
    """A crate 1.2 x 0.6 x 1.0 m at (3, 4) with a child 2 m tall on it: a hidden one (not level geometry)
    or one in another collide mask is nothing in the probe, and neither is it in the crate's bounds,
    so a box over the crate's top, 10 cm clear of it, is not near; a shown child is a body of its own."""
    from panda3d.core import BitMask32
    for hide in ("hidden", "masked", None):
        root = level()
        crate = prism(root, "crate", box_profile(0.6, 1.0), 1.2, pos=(3.0, 4.0, 0.0))
        chimney = prism(crate, "chimney", box_profile(0.2, 3.0), 0.2, pos=(0.0, 0.0, 0.0))
        if hide == "hidden":
            chimney.hide()
        elif hide == "masked":
            chimney.node().setIntoCollideMask(BitMask32.bit(5))
        probe = SceneProbe.from_geometry(root, mask=BitMask32.bit(0) | BitMask32.bit(20))
        assert probe.near((2.0, 3.0, -1.0), (6.0, 6.0, 3.0))
        assert probe.near((2.9, 3.9, 1.1), (3.1, 4.1, 2.0)) == (hide is None), hide


def test_the_early_out_changes_no_answer(assets):
    """Queries all over a level of 40 obstacles: a static probe (which skips what nothing is near) answers
    exactly as a probe of the same world that does not skip."""
    import random

    from tests.bench.bench_providers import build_level, facing_queries
    rng = random.Random(4)
    root, fronts = build_level(40, rng)
    static = SceneProbe.from_geometry(root)
    plain = SceneProbe(static.world)
    queries = facing_queries(fronts, 60, rng) + [(Point3(rng.uniform(-5, 60), rng.uniform(-5, 60), 0.0),
                                                   rng.uniform(0, 360)) for _ in range(60)]
    skipped = TraversalProvider(static, assets)
    full = TraversalProvider(plain, assets)
    nothing = 0
    for pos, h in queries:
        one, two = skipped.find_at(pos, h), full.find_at(pos, h)
        assert repr(one) == repr(two), (pos, h)
        nothing += not one and one.node is None
    assert 10 < nothing < len(queries) - 10   # both kinds of query were asked


def test_a_body_without_finite_bounds_is_near_everything():
    """A game's own static world with an endless plane (a sea floor 5 m down): every box is near it."""
    from panda3d.bullet import BulletPlaneShape, BulletRigidBodyNode, BulletWorld
    from panda3d.core import Vec3
    world = BulletWorld()
    floor = BulletRigidBodyNode("sea floor")
    floor.addShape(BulletPlaneShape(Vec3(0, 0, 1), -5.0))
    world.attachRigidBody(floor)
    probe = SceneProbe(world, static=True)
    assert probe.near((1000.0, -2000.0, 50.0), (1001.0, -1999.0, 51.0))


def test_an_overlap_names_the_body_it_goes_into_not_one_it_only_touches():
    """A capsule resting on a ledge (touching it) with its side in a crate: the crate, however Bullet
    lists them (Panda3D 1.10 hands every contact of one test the last manifold point)."""
    root = level()
    prism(root, "ledge", box_profile(3.0, 1.5), 3.0, pos=(0, 2, 0))
    prism(root, "small crate", box_profile(1.0, 0.5), 0.2, pos=(0.3, 1.1, 1.5))
    probe = SceneProbe.from_geometry(root)
    assert probe.capsule_overlaps(0.3, 1.8, Point3(0, 1.0, 1.5 + 0.04 + 0.9)).getName() == "small crate"
    assert probe.capsule_overlaps(0.3, 1.8, Point3(-0.5, 1.0, 1.5 + 0.04 + 0.9)) is None   # on the ledge alone
    assert probe.capsule_overlaps(0.3, 1.8, Point3(-0.5, 1.0, 1.5 - 0.1 + 0.9)).getName() == "ledge"   # sunk in
