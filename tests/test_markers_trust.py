"""Markers against hostile and odd levels (issue 28, docs/design.md 7 Markers): mistyped kinds are
reported, removed nodes answer refusals, 10,000 markers stay cheap, markers on moving nodes are
followed, and a marker turned in place is seen at once. Expected values come from the test's own
nodes (their transforms, read from Panda3D after the step) and the contract's sentences."""
import statistics
import time

import pytest
from panda3d.core import Point3

from motionwarp import InteractionChooser, MarkerProvider, SceneProbe, TraversalProvider
from motionwarp.scene.markers import MARKER_TAG, NO_MARKER

from .marker_rigs import read_at_phase_ends, write_rigs
from .obstacles import box_profile, level, prism
from .test_markers import marker, place


@pytest.fixture(scope="module")
def rigs(tmp_path_factory):
    folder = tmp_path_factory.mktemp("marker_rigs")
    return folder, write_rigs(folder)


def test_a_mistyped_kind_is_reported_with_its_node_and_tag_not_dropped(base, rigs):
    """"Sit " (a trailing space) and 5 (a number from a glTF extra) are listed in `problems` after the
    search, and the one in front is refused with the same sentence."""
    _, assets = rigs
    root = base.render.attachNewNode("markers")
    marker(root, "Sit ", (0, 1.2, 0.45), h=180.0, name="bench_seat")
    marker(root, "5", (4, 1.2, 1.0), name="crate_grab")
    marker(root, "use", (8, 1.2, 1.0), name="lever")
    provider = MarkerProvider(SceneProbe.from_geometry(level()), root, list(assets.values()))
    seat = f"marker bench_seat has {MARKER_TAG}='Sit ' (did you mean 'sit'?): expected one of sit, pick_up, use"
    assert sorted(provider.problems) == [seat, f"marker crate_grab has {MARKER_TAG}='5': expected one of sit, pick_up, use"]
    found = provider.find_at(Point3(0, 0, 0), 0.0)
    assert not found and found.reason == seat and found.node.getName() == "bench_seat"
    assert provider.find_at(Point3(8, 0, 0), 0.0).kind == "use"


def test_removed_levels_props_and_actors_answer_refusals(base, rigs):
    """After `level.removeNode()` no provider, chooser or refresh() raises; a removed prop's marker is
    never offered, even before refresh(); a removed actor is refused as `MotionWarper.play` refuses it."""
    folder, assets = rigs
    given = list(assets.values())
    world = level()
    world.reparentTo(base.render)
    prism(world, "ground", box_profile(12.0, 1.0), 12.0, pos=(0, 0, -1.0))
    props = world.attachNewNode("props")
    table = props.attachNewNode("table")
    prism(table, "top", box_profile(0.6, 0.1), 1.0, pos=(0, 2.0, 0.7))
    marker(table, "use", (0, 1.6, 1.0), name="cup")
    actor = place(base, folder / "reach.glb", Point3(0, 0, 0), 0.0)
    probe = SceneProbe.from_geometry(world)
    markers = MarkerProvider(probe, props, given)
    chooser = InteractionChooser([TraversalProvider(probe, list(base_assets(base))), markers])
    assert markers.find(actor).node.getName() == "cup"
    table.removeNode()                                         # the prop goes, the search is not run again
    assert markers.find(actor).reason == NO_MARKER
    world.removeNode()                                         # the whole level
    assert markers.find(actor).reason == NO_MARKER
    chooser.find(actor)      # no assertion raised (the static probe still holds the level's copy: probe's own)
    markers.refresh()
    assert markers.markers == [] and markers.problems == [] and markers.find(actor).reason == NO_MARKER
    actor.cleanup()
    actor.removeNode()
    for asked in (markers, chooser, chooser.providers[0]):
        found = asked.find(actor)
        assert not found and found.reason == "the actor was removed"


def base_assets(base):
    """The mannequin's traversal assets (a TraversalProvider needs one of its kinds)."""
    from motionwarp import WarpAsset, samples
    return [WarpAsset.load(samples.path("vault.warp.json"))]


def test_ten_thousand_markers_cost_a_query_under_a_millisecond(base, rigs):
    """A 100 x 100 grid of markers 1 m apart (a marker kind read once, on refresh): a query, asked from
    a new place each time (no kept answer), reads only the markers near it."""
    _, assets = rigs
    root = base.render.attachNewNode("many")
    for i in range(100):
        for j in range(100):
            marker(root, "use" if (i + j) % 2 else "sit", (i * 1.0, j * 1.0, 1.0), h=0.0, name=f"m{i}_{j}")
    started = time.perf_counter()
    provider = MarkerProvider(SceneProbe.from_geometry(level()), root, list(assets.values()))
    refresh_s = time.perf_counter() - started
    costs = []
    for k in range(200):
        pos = Point3(10.0 + (k % 80) + 0.37, 10.0 + (k // 4) % 80 + 0.21, 0.0)
        started = time.perf_counter()
        found = provider.find_at(pos, 0.0)
        costs.append(time.perf_counter() - started)
        assert found.node is not None and (found.node.getPos(root) - pos).getXy().length() <= 2.0
    # reach 2 m plus the 0.5 m slack: the cells (2 m square) a 2.5 m circle touches hold at most 6 x 6
    assert len(provider._grid.near(Point3(50.5, 50.5, 0), 2.5)) <= 36
    assert statistics.median(costs) < 1e-3, (statistics.median(costs), refresh_s)


def test_a_marker_on_a_moving_cart_is_followed_to_the_button(base, rigs):
    """A cart moving 0.5 m/s along +Y carries a button; named among `moving`, the marker is found where
    the cart is now and its target rides the cart: the hand ends within 1 cm of the button. Not named,
    the target stays where the button was when asked (the warp's clip lasts long enough to miss it)."""
    folder, assets = rigs
    misses = {}
    for follow in (True, False):
        cart = base.render.attachNewNode("cart")
        button = marker(cart, "use", (0, 1.6, 1.2), name="button")
        provider = MarkerProvider(SceneProbe.from_geometry(level()), base.render, list(assets.values()),
                                  moving=[cart] if follow else ())
        cart.setY(0.3)                       # moved since the search: found where it is now
        actor = place(base, folder / "reach.glb", Point3(0, 0.2, 0), 0.0)
        found = provider.find(actor)
        assert found and found.node == button
        assert found.targets[0].follow == (button if follow else None)
        task = base.taskMgr.add(lambda task: cart.setY(cart.getY() + 0.5 * base.clock.getDt()) or task.cont,
                                "cart", sort=10)
        bone = actor.exposeJoint(None, "modelRoot", "bone")
        try:
            seen = read_at_phase_ends(base, actor, found.asset, found.targets, 60,
                                      lambda: (bone.getPos(base.render) - button.getPos(base.render)).length())
        finally:
            base.taskMgr.remove(task)
            actor.cleanup()
            actor.removeNode()
            cart.removeNode()
        misses[follow] = seen["hand"]
    assert misses[True] < 0.01 and misses[False] > 0.05, misses


def test_a_marker_turned_in_place_on_a_static_probe_gives_its_new_heading(base, rigs):
    """The kept answer (a static probe, the character where it asked) does not keep the old heading:
    the target faces the marker's new heading, read from the node."""
    folder, assets = rigs
    lever = marker(base.render, "use", (0, 1.6, 1.2), h=0.0, name="lever")
    probe = SceneProbe.from_geometry(level())
    assert probe.static
    provider = MarkerProvider(probe, base.render, list(assets.values()))
    first = provider.find_at(Point3(0, 0, 0), 0.0)
    assert first and first.targets[0].h == pytest.approx(0.0, abs=1e-4)
    assert provider.find_at(Point3(0, 0, 0), 0.0) is first          # kept while nothing changed
    lever.setH(20.0)
    turned = provider.find_at(Point3(0, 0, 0), 0.0)
    assert turned is not first and turned.targets[0].h == pytest.approx(lever.getH(base.render), abs=1e-4)


def test_a_marker_moved_beyond_the_slack_is_found_where_it_went_after_refresh(base, rigs):
    """Indexed where it was at the search: nudged 0.4 m (within SLACK) it is followed at once; moved
    10 m (off to x = 10, in front of a character standing there) it is found there once searched again."""
    from motionwarp.scene.markers import SLACK
    _, assets = rigs
    lever = marker(base.render, "use", (0, 1.6, 1.2), h=0.0, name="lever")
    provider = MarkerProvider(SceneProbe.from_geometry(level()), base.render, list(assets.values()))
    lever.setX(0.4)
    assert 0.4 < SLACK
    nudged = provider.find_at(Point3(0.4, 0, 0), 0.0)
    assert nudged.node == lever and nudged.targets[0].pos == lever.getPos(base.render)
    lever.setX(10.0)
    assert provider.find_at(Point3(10.0, 0, 0), 0.0).reason == NO_MARKER
    provider.refresh()
    assert provider.find_at(Point3(10.0, 0, 0), 0.0).node == lever


def test_moving_must_be_nodepaths(base, rigs):
    from motionwarp import UsageError
    from panda3d.core import NodePath
    _, assets = rigs
    probe = SceneProbe.from_geometry(level())
    for bad in (["cart"], [NodePath()]):
        with pytest.raises(UsageError, match="MarkerProvider moving: expected NodePaths"):
            MarkerProvider(probe, base.render, list(assets.values()), moving=bad)


def test_a_gltf_extra_typed_5_or_with_a_space_is_reported(base, rigs, tmp_path):
    """Blender custom properties as a level designer types them, read through panda3d-gltf (extras become
    tags: 5 reads '5'): both named in `problems`, the well-typed one found."""
    from authoring.gltf_writer import GltfBuilder
    _, assets = rigs
    builder = GltfBuilder("markers")
    builder.add_empty("seat", (0, 1.2, 0.45), extras={MARKER_TAG: "Sit "})
    builder.add_empty("grab", (3, 1.2, 1.0), extras={MARKER_TAG: 5})
    builder.add_empty("lever", (6, 1.5, 1.2), extras={MARKER_TAG: "use"})
    builder.write_glb(tmp_path / "markers.glb")
    model = base.loader.loadModel(str(tmp_path / "markers.glb"), noCache=True)
    model.reparentTo(base.render)
    provider = MarkerProvider(SceneProbe.from_geometry(level()), model, list(assets.values()))
    assert sorted(provider.problems) == [
        f"marker grab has {MARKER_TAG}='5': expected one of sit, pick_up, use",
        f"marker seat has {MARKER_TAG}='Sit ' (did you mean 'sit'?): expected one of sit, pick_up, use"]
    assert provider.find_at(Point3(6, 0, 0), 0.0).node.getName() == "lever"


def test_a_removed_marker_root_has_no_markers_after_refresh(base, rigs):
    """The root given as `markers` itself removed: refresh() leaves no markers and no problems, and a
    question is answered 'nothing to interact with' (design 7, Markers)."""
    _, assets = rigs
    root = base.render.attachNewNode("props")
    marker(root, "use", (0, 1.6, 1.2), name="lever")
    provider = MarkerProvider(SceneProbe.from_geometry(level()), root, list(assets.values()))
    assert provider.find_at(Point3(0, 0, 0), 0.0).node.getName() == "lever"
    root.removeNode()
    provider.refresh()
    assert provider.markers == [] and provider.problems == []
    assert provider.find_at(Point3(0, 0, 0), 0.0).reason == NO_MARKER


def test_a_marker_named_in_moving_itself_is_read_where_it_is_without_refresh(base, rigs):
    _, assets = rigs
    lever = marker(base.render, "use", (0, 1.6, 1.2), h=0.0, name="lever")
    try:
        provider = MarkerProvider(SceneProbe.from_geometry(level()), base.render, list(assets.values()),
                                  moving=[lever])
        lever.setX(10.0)                                       # far past the slack: no refresh()
        found = provider.find_at(Point3(10.0, 0, 0), 0.0)
        assert found.node == lever and found.targets[0].follow == lever
    finally:
        lever.removeNode()
