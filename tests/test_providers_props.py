"""Providers and the probe on the cases issue 18 found untested: expected answers from the test's
own geometry (turned crates, raised landings, an Actor standing in the probed tree)."""
import math

import pytest
from panda3d.core import Point3, Vec3

from motionwarp import Interaction, ProviderSettings, Refusal, SceneProbe, TraversalProvider, VaultProvider, load_actor

from .conftest import MANNEQUIN
from .obstacles import box_profile, level, prism


@pytest.fixture(scope="module")
def assets(warp_assets):
    return list(warp_assets.values())


def forward(h):
    return Vec3(-math.sin(math.radians(h)), math.cos(math.radians(h)), 0)


def crate_at(root, name, h, distance, height=1.0, depth=0.6, width=1.2):
    """A crate whose near face is `distance` ahead of the origin along heading `h`, facing back at it."""
    return prism(root, name, box_profile(depth, height), width, pos=forward(h) * (distance + depth / 2), h=h)


@pytest.mark.parametrize("order", [(30.0, 200.0, 30.0, 110.0), (200.0, 30.0, 110.0, 200.0)])
def test_kept_answers_follow_the_heading(assets, order):
    """Asked from one spot between two turned crates (1.0 m tall, 1.0 m away along heading 30; 1.3 m
    tall, 0.7 m away along heading 200), a static probe's provider answers each heading with its
    own crate, never the answer it kept for the last heading; heading 110 faces nothing."""
    root = level()
    prism(root, "ground", box_profile(40, 0.1), 40, pos=(0, 0, -0.1))
    crate_at(root, "north", 30.0, 1.0, height=1.0)
    crate_at(root, "south", 200.0, 0.7, height=1.3)
    provider = TraversalProvider(SceneProbe.from_geometry(root), assets)
    expected = {30.0: ("north", 1.0, 1.0), 200.0: ("south", 0.7, 1.3)}
    for h in order:
        found = provider.find_at(Point3(0, 0, 0), h)
        if h not in expected:
            assert isinstance(found, Refusal) and found.node is None, found
            continue
        name, distance, height = expected[h]
        assert isinstance(found, Interaction) and found.node.getName() == name, found
        assert found.distance == pytest.approx(distance, abs=0.01)
        assert found.height == pytest.approx(height, abs=0.01)
        assert tuple(found.close_edge.getXy()) == pytest.approx(tuple(forward(h).getXy() * distance), abs=0.01)


@pytest.mark.parametrize("landing", [0.4, 0.7])
def test_a_vault_lands_on_a_raised_landing(assets, landing):
    """A 0.8 m crate with a platform 0.3 m behind it, `landing` m high: the vault lands on the
    platform's top, as the geometry says, never on the ground under it nor inside it."""
    root = level()
    prism(root, "ground", box_profile(40, 0.1), 40, pos=(0, 0, -0.1))
    crate_at(root, "crate", 0.0, 1.0, height=0.8, depth=0.5)
    prism(root, "platform", box_profile(3.0, landing), 3.0, pos=(0, 1.8 + 1.5, 0))
    found = VaultProvider(SceneProbe.from_geometry(root), assets).find_at(Point3(0, 0, 0), 0.0)
    assert isinstance(found, Interaction), found
    assert found.landing.z == pytest.approx(landing, abs=0.005)
    assert found.targets[-1].pos.z == pytest.approx(landing, abs=0.005)


def test_an_actor_in_the_probed_tree_is_not_level_geometry(base, assets):
    """A character (an Actor) standing 0.5 m in front, under the root the probe is built from: the
    provider measures the crate behind it (1.2 m away), and a ray where the Actor stands finds
    the ground, not its body."""
    root = base.render.attachNewNode("level")
    prism(root, "ground", box_profile(40, 0.1), 40, pos=(0, 0, -0.1))
    crate_at(root, "crate", 0.0, 1.2)
    actor = load_actor(MANNEQUIN)
    try:
        actor.reparentTo(root)
        actor.setPos(0, 0.5, 0)
        probe = SceneProbe.from_geometry(root)
        found = TraversalProvider(probe, assets).find_at(Point3(0, 0, 0), 0.0)
        assert isinstance(found, Interaction) and found.node.getName() == "crate", found
        assert found.distance == pytest.approx(1.2, abs=0.01)
        hit = probe.ray(Point3(0, 0.5, 2.5), Point3(0, 0.5, -0.5))
        assert hit is not None and hit.pos.z == pytest.approx(0.0, abs=1e-4)
    finally:
        actor.cleanup()
        actor.removeNode()
        root.removeNode()


@pytest.mark.parametrize("height", [1.8, 2.0])
@pytest.mark.parametrize("jut", [0.15, 0.25])
@pytest.mark.parametrize("h", [0.0, 75.0, 200.0])
def test_a_crate_with_a_jutting_lid_frame_is_a_mantle(assets, height, jut, h):
    """A crate `height` m tall whose 5 cm lid juts `jut` m out of every face (less than the capsule's
    radius): the lid is its top, not a ceiling over it; the mantle's target is on the lid's top."""
    root = level()
    prism(root, "ground", box_profile(40, 0.1), 40, pos=(0, 0, -0.1))
    body = crate_at(root, "crate", h, 0.5 + jut, height=height - 0.05, depth=0.8)
    prism(body, "lid", box_profile(0.8 + 2 * jut, 0.05), 1.2 + 2 * jut, pos=(0, 0, height - 0.05))
    found = TraversalProvider(SceneProbe.from_geometry(root), assets).find_at(Point3(0, 0, 0), h)
    assert isinstance(found, Interaction) and found.kind == "mantle", found
    assert found.height == pytest.approx(height, abs=0.01)
    assert found.targets[0].pos.z == pytest.approx(height, abs=0.01)


def test_a_jutting_lid_under_a_ceiling_still_has_the_ceiling_over_it(assets):
    """The same 1.8 m crate (lid jutting 0.2 m) under a ceiling 2.4 m up: the lid is the top and
    the ceiling still stands over it: no head room to stand (0.6 m), measured 1.8 m high."""
    root = level()
    prism(root, "ground", box_profile(40, 0.1), 40, pos=(0, 0, -0.1))
    body = crate_at(root, "crate", 0.0, 0.7, height=1.75, depth=0.8)
    prism(body, "lid", box_profile(1.2, 0.05), 1.6, pos=(0, 0, 1.75))
    prism(root, "ceiling", box_profile(6.0, 0.2), 6.0, pos=(0, 1.0, 2.4))
    found = TraversalProvider(SceneProbe.from_geometry(root), assets).find_at(Point3(0, 0, 0), 0.0)
    assert isinstance(found, Refusal) and "no head room on top (0.60 m" in found.reason, found
    assert found.numbers["height"] == pytest.approx(1.8, abs=0.01)


def test_a_balcony_over_a_ledge_is_a_ceiling_not_a_lid(assets):
    """A slab 2.2 m up reaching 1 m out over a 1.5 m ledge's face: a ceiling (it reaches further out
    than a capsule's radius), so the top is the ledge's, with 0.7 m of head room."""
    root = level()
    prism(root, "ground", box_profile(40, 0.1), 40, pos=(0, 0, -0.1))
    prism(root, "ledge", box_profile(2.0, 1.5), 3.0, pos=(0, 2.0, 0))
    prism(root, "balcony", box_profile(3.0, 0.2), 3.0, pos=(0, 1.5, 2.2))
    found = TraversalProvider(SceneProbe.from_geometry(root), assets).find_at(Point3(0, 0, 0), 0.0)
    assert isinstance(found, Refusal) and "no head room on top (0.70 m" in found.reason, found
    assert found.numbers["height"] == pytest.approx(1.5, abs=0.01)


@pytest.mark.parametrize("h, start", [(0.0, 0.05), (120.0, 0.2), (250.0, 0.05)])
@pytest.mark.parametrize("side", [1.0, -1.0])
def test_a_top_stepped_across_the_way_is_as_high_as_its_higher_step(assets, h, start, side):
    """A crate whose top is 0.95 m on the character's line and 1.1 m from `start` m to one side: it
    is vaulted as 1.1 m high (the body must clear the higher step; it was refused for 'no head
    room'), the targets on the higher step's height."""
    root = level()
    prism(root, "ground", box_profile(40, 0.1), 40, pos=(0, 0, -0.1))
    low = crate_at(root, "low", h, 1.0, height=0.95, depth=0.6, width=1.2)
    prism(low, "high", box_profile(0.6, 1.1), 0.6 - start, pos=(side * (start + (0.6 - start) / 2), 0, 0))
    found = VaultProvider(SceneProbe.from_geometry(root), assets).find_at(Point3(0, 0, 0), h)
    assert isinstance(found, Interaction), found
    assert found.height == pytest.approx(1.1, abs=0.005)
    assert found.close_edge.z == pytest.approx(1.1, abs=0.005) and found.far_edge.z == pytest.approx(1.1, abs=0.005)
    assert found.depth == pytest.approx(0.6, abs=0.01)


@pytest.mark.parametrize("rise, start", [(0.02, 0.05), (0.15, 0.25), (0.03, 0.25)])
@pytest.mark.parametrize("side", [1.0, -1.0])
@pytest.mark.parametrize("h", [0.0, 90.0])
def test_a_step_just_higher_or_off_the_line_is_still_found(assets, rise, start, side, h):
    """A step `rise` m over a 0.95 m crate's top from `start` m to one side (a body of its own, so the
    probe's bounds grid decides whether the rays across the width are cast): a few centimetres higher
    (less than the grid's padding over the top) or starting a capsule radius off the line (outside the
    line's own padded box), it is still the height to clear, as the rays across the width find it."""
    root = level()
    prism(root, "ground", box_profile(40, 0.1), 40, pos=(0, 0, -0.1))
    low = crate_at(root, "low", h, 1.0, height=0.95, depth=0.6, width=1.2)
    beside = root.getRelativePoint(low, Point3(side * (start + (0.6 - start) / 2), 0, 0))
    prism(root, "high", box_profile(0.6, 0.95 + rise), 0.6 - start, pos=beside, h=low.getH(root))
    found = VaultProvider(SceneProbe.from_geometry(root), assets).find_at(Point3(0, 0, 0), h)
    assert isinstance(found, Interaction), found
    assert found.height == pytest.approx(0.95 + rise, abs=0.003)
    assert found.close_edge.z == pytest.approx(0.95 + rise, abs=0.003)


def test_a_wall_beside_a_crate_is_not_its_top(assets):
    """A 1.0 m crate with a 2.5 m wall right beside the character's line: the crate's top is 1.0 m
    (only a surface at most a probe step above the top counts across the width), and the wall is
    in the way of the vault's flight: the flight's sphere (design 7: a capsule radius plus the
    clearance above the top) meets the wall's upright face level with its centre, so the head
    room reported is that height."""
    root = level()
    prism(root, "ground", box_profile(40, 0.1), 40, pos=(0, 0, -0.1))
    crate_at(root, "crate", 0.0, 1.0, height=1.0, depth=0.6, width=0.5)
    prism(root, "wall", box_profile(0.6, 2.5), 1.0, pos=(0.75, 1.3, 0))
    found = VaultProvider(SceneProbe.from_geometry(root), assets).find_at(Point3(0, 0, 0), 0.0)
    flight = ProviderSettings().capsule_radius + ProviderSettings().clearance
    assert isinstance(found, Refusal) and found.reason == f"no head room over the top ({flight:.2f} m)", found
    assert found.numbers["height"] == pytest.approx(1.0, abs=0.005)


@pytest.mark.parametrize("h", [0.0, 45.0])
@pytest.mark.parametrize("beside", [0.15, 0.3])
def test_a_cup_on_a_table_is_not_its_top(assets, h, beside):
    """A 0.76 m table with a cup (8 cm across, 10 cm high) `beside` m off the character's line, over the
    middle of the top: the table's top is 0.76 m (a cup is no top for hands or feet, design 7), where a
    block 0.4 m across in the same place is (the top stepped across the way)."""
    for size, expected in ((0.08, 0.76), (0.4, 0.86)):
        root = level()
        prism(root, "ground", box_profile(40, 0.1), 40, pos=(0, 0, -0.1))
        table = crate_at(root, "table", h, 1.0, height=0.76, depth=0.6, width=1.2)
        on_top = root.getRelativePoint(table, Point3(beside, 0, 0.76))
        prism(root, "cup", box_profile(size, 0.1), size, pos=on_top, h=h)
        found = VaultProvider(SceneProbe.from_geometry(root), assets).find_at(Point3(0, 0, 0), h)
        height = found.height if found else found.numbers["height"]
        assert height == pytest.approx(expected, abs=0.005), (size, found)
        root.removeNode()
