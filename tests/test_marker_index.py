"""MarkerProvider's spatial index (issue 29, docs/design.md 7 Markers): markers are found through a grid of
where refresh() read them, with their kinds read then, not by reading every marker at each query.

Every expected answer comes from the test's own markers (the positions it placed them at), by a scan of
all of them: the nearest within the reach and the cone of `max_approach_deg` about the facing. The
assets take any distance and the warper any stretch, on open ground, so that marker is the answer."""
import dataclasses
import math
import random

import pytest
from panda3d.core import NodePath, Point3

from motionwarp import MarkerProvider, SceneProbe, WarpAsset, samples
from motionwarp.scene.markers import MARKER_TAG, NO_MARKER, SLACK

from .obstacles import box_profile, prism
from .test_providers import ANY_REACH

REACH, CONE, HIGH = 2.0, 50.0, 1.0   # the provider's reach (m) and cone (degrees); the levers' height (m)


@pytest.fixture(scope="module")
def lever():
    """The sample `use` asset, taken from any ground distance within the reach (its authored turn is 0)."""
    asset = WarpAsset.load(samples.folder() / "assets" / "use.warp.json")
    asset.traversal = dataclasses.replace(asset.traversal, distance=None)
    return asset


def provider_over(levers, asset, **more):
    """(a MarkerProvider over `levers`' markers on open ground, with REACH and CONE)."""
    ground = NodePath("ground")
    prism(ground, "ground", box_profile(200, 0.1), 200, pos=(0, 0, -0.1))
    return MarkerProvider(SceneProbe.from_geometry(ground), levers, [asset], warp_settings=ANY_REACH,
                          reach=REACH, max_approach_deg=CONE, **more)


def levers_at(places, h=0.0):
    """A root holding `use` markers at the (x, y) `places`, HIGH up, turned `h`: (root, [marker])."""
    root = NodePath("levers")
    markers = []
    for index, (x, y) in enumerate(places):
        node = root.attachNewNode(f"lever-{index}")
        node.setPos(x, y, HIGH)
        node.setH(h)
        node.setTag(MARKER_TAG, "use")
        markers.append(node)
    return root, markers


def expected(places, markers, pos, h):
    """The test's own scan: the marker nearest `pos` on the ground within REACH and within CONE of heading
    `h`, or None."""
    fx, fy = -math.sin(math.radians(h)), math.cos(math.radians(h))
    best = None
    for (x, y), node in zip(places, markers):
        dx, dy = x - pos[0], y - pos[1]
        ground = math.hypot(dx, dy)
        bearing = math.degrees(math.atan2(abs(fx * dy - fy * dx), fx * dx + fy * dy))
        if ground <= REACH and bearing <= CONE and (best is None or ground < best[0]):
            best = (ground, node)
    return None if best is None else best[1]


def answered(provider, pos, h):
    found = provider.find_at(Point3(*pos, 0.0), h)
    return found.node if found else None


def test_the_index_finds_what_a_scan_of_every_marker_finds(lever):
    rng = random.Random(29)
    places = [(rng.uniform(0, 30), rng.uniform(0, 30)) for _ in range(600)]
    root, markers = levers_at(places)
    provider = provider_over(root, lever)
    found_some = 0
    for _ in range(300):
        pos, h = (rng.uniform(-1, 31), rng.uniform(-1, 31)), rng.uniform(-180, 180)
        for node in markers:   # each lever faces the way the character does: approached from its front
            node.setH(h)
        want = expected(places, markers, pos, h)
        assert answered(provider, pos, h) == want, (pos, h)
        found_some += want is not None
    assert found_some > 100


@pytest.mark.parametrize("distance, found", [(REACH - 1e-3, True), (REACH + 1e-3, False)])
def test_a_marker_just_inside_the_reach_is_found_and_just_outside_is_not(lever, distance, found):
    places = [(0.0, distance)]
    root, markers = levers_at(places)
    want = expected(places, markers, (0.0, 0.0), 0.0)
    assert (want is not None) == found
    assert answered(provider_over(root, lever), (0.0, 0.0), 0.0) == want


@pytest.mark.parametrize("bearing, found", [(CONE - 0.05, True), (CONE + 0.05, False), (-CONE + 0.05, True),
                                            (-CONE - 0.05, False)])
def test_a_marker_just_inside_the_cone_is_found_and_just_outside_is_not(lever, bearing, found):
    places = [(-math.sin(math.radians(bearing)) * 1.5, math.cos(math.radians(bearing)) * 1.5)]
    root, markers = levers_at(places)
    want = expected(places, markers, (0.0, 0.0), 0.0)
    assert (want is not None) == found
    assert answered(provider_over(root, lever), (0.0, 0.0), 0.0) == want


@pytest.mark.parametrize("corner", [(0.0, 0.0), (REACH, 0.0), (REACH, REACH), (-REACH, 3 * REACH)])
@pytest.mark.parametrize("hair", [0.0, 1e-4, -1e-4])
def test_a_marker_on_a_cells_edge_or_corner_is_found_from_every_cell_around_it(lever, corner, hair):
    """The grid's cells are `reach` metres square: a marker on a corner of four cells (or a hair into one),
    asked for from 1.2 m away in each of the eight directions around it."""
    places = [(corner[0] + hair, corner[1] + hair)]
    root, markers = levers_at(places)
    provider = provider_over(root, lever)
    for step in range(8):
        h = step * 45.0 - 180.0   # facing the marker
        pos = (places[0][0] + math.sin(math.radians(h)) * 1.2, places[0][1] - math.cos(math.radians(h)) * 1.2)
        markers[0].setH(h)
        want = expected(places, markers, pos, h)
        assert want is not None and answered(provider, pos, h) == want, (corner, h)


def test_a_marker_added_is_found_after_refresh_and_one_removed_is_gone_at_once(lever):
    root, markers = levers_at([(5.0, 5.0)])
    provider = provider_over(root, lever)
    assert answered(provider, (0.0, 0.0), 0.0) is None
    added = root.attachNewNode("added")
    added.setPos(0.0, 1.2, HIGH)
    added.setTag(MARKER_TAG, "use")
    assert provider.find_at(Point3(0, 0, 0), 0.0).reason == NO_MARKER   # not searched for yet
    provider.refresh()
    assert answered(provider, (0.0, 0.0), 0.0) == added
    added.removeNode()
    assert provider.find_at(Point3(0, 0, 0), 0.0).reason == NO_MARKER   # removed: never offered
    provider.refresh()
    assert provider.markers == markers


def test_a_marker_nudged_within_the_slack_is_found_where_it_is_and_one_moved_farther_after_refresh(lever):
    places = [(0.0, 1.2)]
    root, markers = levers_at(places)
    provider = provider_over(root, lever)
    markers[0].setPos(0.0, 1.2 + 0.9 * SLACK, HIGH)     # out past the reach of where it was indexed, within SLACK
    assert answered(provider, (0.0, 0.9 * SLACK), 0.0) == markers[0]
    for bearing in (CONE + 5.0, CONE - 5.0):   # indexed outside the cone, nudged (0.26 m) into it
        markers[0].setPos(-math.sin(math.radians(bearing)) * 1.5, math.cos(math.radians(bearing)) * 1.5, HIGH)
        if bearing > CONE:
            provider.refresh()
    assert answered(provider, (0.0, 0.0), 0.0) == markers[0]
    markers[0].setPos(8.0, 1.2, HIGH)
    assert answered(provider, (8.0, 0.0), 0.0) is None
    provider.refresh()
    assert answered(provider, (8.0, 0.0), 0.0) == markers[0]


def test_a_marker_on_a_moving_node_is_found_wherever_the_node_went(lever):
    root, _ = levers_at([(5.0, 5.0)])
    cart = root.attachNewNode("cart")
    button = cart.attachNewNode("button")
    button.setPos(0.0, 1.2, HIGH)
    button.setTag(MARKER_TAG, "use")
    provider = provider_over(root, lever, moving=[cart])
    for x in (0.0, 10.0, -25.0):   # far beyond SLACK of where the search found it, no refresh()
        cart.setX(x)
        assert answered(provider, (x, 0.0), 0.0) == button


def test_a_markers_kind_is_read_at_refresh(lever):
    """An indexed marker's kind is read once, by refresh(): retagged, it answers as the kind it was until
    the next refresh(). (A marker on a moving node has its tag read at every query.)"""
    root, markers = levers_at([(0.0, 1.2)])
    provider = provider_over(root, lever)
    markers[0].setTag(MARKER_TAG, "sit")
    assert answered(provider, (0.0, 0.0), 0.0) == markers[0]
    provider.refresh()
    assert provider.find_at(Point3(0, 0, 0), 0.0).reason.startswith("no sit clip")
