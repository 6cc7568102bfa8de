"""Measurements kept along a character's line on a static probe (docs/design.md 7, "Kept measurements").

What a probe measured is answered again only where every ray and sweep would meet what they met.
Oracles: the test's own crates and bars (their faces, tops and names), and a probe that keeps
nothing (`SceneProbe(world)` over the same world) asked the same; the probe's calls are counted to
see whether a measurement was kept or made afresh.
"""
import math

import pytest
from panda3d.core import NodePath, Point3

from motionwarp import ProviderSettings, SceneProbe, TraversalProvider
from motionwarp.scene.chooser import InteractionChooser
from motionwarp.scene.jumps import JumpProvider
from motionwarp.scene.measure import facing, measure

from .obstacles import box_profile, circle_profile, level, prism

SETTINGS = ProviderSettings()
STEP = 1.4 / 60   # one frame of walking at 1.4 m/s


class CountingProbe(SceneProbe):
    """A static probe counting its capsule sweeps (each measurement made afresh sweeps for the face) and
    sphere sweeps (a vault's room over the top, checked when it is judged)."""

    sweeps = spheres = 0

    def sweep_capsule(self, *args):
        self.sweeps += 1
        return super().sweep_capsule(*args)

    def sweep_sphere(self, *args):
        self.spheres += 1
        return super().sweep_sphere(*args)


def world_of(*shapes):
    """(root, static counting probe, probe keeping nothing) over prisms (name, profile, width, pos)."""
    root = level()
    prism(root, "ground", box_profile(40, 0.1), 40, pos=(0, 0, -0.1))
    for name, profile, width, pos in shapes:
        prism(root, name, profile, width, pos=pos)
    static = SceneProbe.from_geometry(root)
    counting = CountingProbe(static.world, static.mask, static=True)
    return root, counting, SceneProbe(static.world, static.mask)


CRATE = ("crate", box_profile(0.6, 1.0), 2.0, (0, 2.0, 0))   # its face at y = 1.7, its top at 1.0


def same(a, b):
    """Two measurements agree to 0.1 mm (the same rays met the same points; float32 rounding apart)."""
    assert a.node == b.node
    for name in ("distance", "top", "depth", "approach_deg", "incline_deg", "taller_than", "too_tall"):
        x, y = getattr(a, name), getattr(b, name)
        assert (x is None) == (y is None) and (x is None or x == pytest.approx(y, abs=1e-4)), name
    for name in ("close_edge", "far_edge"):
        x, y = getattr(a, name), getattr(b, name)
        assert (x is None) == (y is None) and (x is None or (x - y).length() < 1e-4), name


def test_walking_up_to_a_box_is_measured_once_and_answered_from_where_the_character_is():
    root, probe, fresh = world_of(CRATE)
    start, h = Point3(0.2, 0.0, 0.0), 0.0
    for frame in range(40):
        pos = start + facing(h) * (STEP * frame)
        found = measure(probe, SETTINGS, pos, h, 2.3)
        assert found.distance == pytest.approx(1.7 - pos.y, abs=1e-4)
        assert tuple(found.close_edge) == pytest.approx((0.2, 1.7, 1.0), abs=2e-3)
        same(found, measure(fresh, SETTINGS, pos, h, 2.3))
    assert probe.sweeps == 1


def test_a_turn_a_step_aside_or_back_is_measured_afresh():
    """Another heading or another line meets the face elsewhere; a step back may pass what lay behind."""
    bar = ("bar", box_profile(0.05, 0.6), 2.0, (0, 0.5, 0))   # knee high, between y = 0.475 and 0.525
    root, probe, fresh = world_of(CRATE, bar)
    first = measure(probe, SETTINGS, Point3(0, 1.0, 0), 0.0, 2.3)
    assert first.node.getName() == "crate" and first.close_edge.x == pytest.approx(0.0, abs=2e-3)
    turned = measure(probe, SETTINGS, Point3(0, 1.0, 0), 10.0, 2.3)
    # On the line turned 10 degrees, the face (y = 1.7) is met 0.7 m ahead at x = -0.7 tan(10°).
    assert turned.close_edge.x == pytest.approx(-0.7 * math.tan(math.radians(10.0)), abs=3e-3)
    assert turned.distance == pytest.approx(0.7 / math.cos(math.radians(10.0)), abs=1e-3)
    aside = measure(probe, SETTINGS, Point3(0.3, 1.0, 0), 0.0, 2.3)
    assert aside.close_edge.x == pytest.approx(0.3, abs=2e-3)
    back = measure(probe, SETTINGS, Point3(0, 0.2, 0), 0.0, 2.3)   # the bar now stands between
    assert back.node.getName() == "bar" and back.distance == pytest.approx(0.475 - 0.2, abs=2e-3)
    for found, pos, h in ((turned, (0, 1.0, 0), 10.0), (aside, (0.3, 1.0, 0), 0.0), (back, (0, 0.2, 0), 0.0)):
        same(found, measure(fresh, SETTINGS, Point3(*pos), h, 2.3))
    assert probe.sweeps == 5   # the bar, lower than the sweep's axis, met by the sweep and swept again


def test_a_face_a_sweep_met_is_swept_again_from_a_mark_of_the_line():
    """A log's curved face is met by the sweep, not by the ray standing in. Bullet places a sweep's
    contact anew from every start, so the contact is swept again from a fixed mark of the line
    (every 1 cm, at least 5 cm before it): every start up to that mark meets it the same, the walk is
    measured once (two sweeps), and each step answers what a probe keeping nothing answers."""
    log = ("log", circle_profile(0.4, 24, 0.4), 2.0, (0, 2.0, 0))   # its face nearest y = 1.6 at z = 0.4
    root, probe, fresh = world_of(log)
    for frame in range(30):
        pos = Point3(0, STEP * frame, 0)
        found = measure(probe, SETTINGS, pos, 0.0, 2.3)
        assert found.node.getName() == "log" and 1.6 <= pos.y + found.distance <= 2.0   # between front and axis
        same(found, measure(fresh, SETTINGS, pos, 0.0, 2.3))
    assert probe.sweeps == 2
    # Closer to the contact than a mark 5 cm before it: measured (once) where it stands.
    close = Point3(0, 1.6 - SETTINGS.face_radius - 0.03, 0)
    same(measure(probe, SETTINGS, close, 0.0, 2.3), measure(fresh, SETTINGS, close, 0.0, 2.3))
    measure(probe, SETTINGS, close + Point3(0, 0.005, 0), 0.0, 2.3)
    assert probe.sweeps == 4


def test_a_search_for_a_lower_top_or_a_longer_reach_shares_what_it_would_meet_the_same():
    """A jump onto (lower max_height, longer reach) is handed the traversal's measurement of a low
    crate; of a crate taller than its own search, and for a reach that meets something farther first,
    it measures afresh, with the answer a probe keeping nothing gives."""
    tall = ("tall", box_profile(0.6, 2.0), 2.0, (3.0, 2.0, 0))   # its top 2.0 m: above a 0.9 m search + 0.5
    root, probe, fresh = world_of(CRATE, tall)
    low = measure(probe, SETTINGS, Point3(0, 0.5, 0), 0.0, 2.3)
    longer = ProviderSettings(reach=3.5)
    shared = measure(probe, longer, Point3(0, 0.5, 0), 0.0, 0.9)
    assert probe.sweeps == 1 and shared.top == pytest.approx(1.0, abs=1e-3)
    same(shared, low)
    same(shared, measure(fresh, longer, Point3(0, 0.5, 0), 0.0, 0.9))
    high = measure(probe, SETTINGS, Point3(3.0, 0.5, 0), 0.0, 2.3)
    assert high.top == pytest.approx(2.0, abs=1e-3) and high.taller_than is None
    onto = measure(probe, longer, Point3(3.0, 0.5, 0), 0.0, 0.9)
    assert onto.taller_than == pytest.approx(0.9 + 0.5, abs=1e-6)   # its own search ends there
    assert probe.sweeps == 3
    # From 2.5 m back the crate's face (4.2 m off) lies beyond the 2 m reach; 3.5 m still does not reach
    # it, 4 m does: each reach answers what it alone would.
    assert measure(probe, SETTINGS, Point3(0, -2.5, 0), 0.0, 2.3) is None
    assert measure(probe, longer, Point3(0, -2.5, 0), 0.0, 2.3) is None
    farther = ProviderSettings(reach=4.5)
    assert measure(probe, farther, Point3(0, -2.5, 0), 0.0, 2.3).distance == pytest.approx(4.2, abs=1e-3)


def test_a_kept_measurement_is_forgotten_when_the_probe_is_told_the_world_changed():
    root, probe, fresh = world_of(CRATE)
    assert measure(probe, SETTINGS, Point3(0, 0.5, 0), 0.0, 2.3).distance == pytest.approx(1.2, abs=1e-4)
    crate = next(body for body in probe.world.getRigidBodies() if body.getName() == "crate")
    NodePath(crate).setY(0.3)   # its face now at y = 2.0
    probe.changed()
    assert measure(probe, SETTINGS, Point3(0, 0.6, 0), 0.0, 2.3).distance == pytest.approx(1.4, abs=1e-4)


def test_a_probe_that_is_not_static_keeps_nothing():
    root, probe, fresh = world_of(CRATE)
    counting = CountingProbe(probe.world, probe.mask)
    for frame in range(3):
        measure(counting, SETTINGS, Point3(0, STEP * frame, 0), 0.0, 2.3)
    assert counting.sweeps == 3


def test_the_chooser_measures_the_face_once_for_traversal_and_jumps(warp_assets, tmp_path):
    from .marker_rigs import write_jump
    root, probe, fresh = world_of(CRATE)
    traversal = TraversalProvider(probe, list(warp_assets.values()))
    jumps = JumpProvider(probe, list(write_jump(tmp_path).values()), reach=3.5)
    chooser = InteractionChooser([traversal, jumps])
    chooser.find_at(Point3(0, 0.3, 0), 0.0)
    assert probe.sweeps == 1
    alone = [TraversalProvider(fresh, list(warp_assets.values())),
             JumpProvider(fresh, list(write_jump(tmp_path).values()), reach=3.5)]
    for answer, other in zip(chooser.answers, alone):
        expected = other.find_at(Point3(0, 0.3, 0), 0.0)
        assert (bool(answer), answer.kind, answer.distance) == (bool(expected), expected.kind,
                                                                 pytest.approx(expected.distance, abs=1e-4))


def test_walking_up_the_answers_follow_the_character(warp_assets, tmp_path):
    """Kept with the measurement, a vault's targets stay and its distance is the character's; the warper's
    refusal (stretch) and a jump onto's take-off (which must lie ahead) are judged afresh every frame:
    every frame answers what a probe keeping nothing answers."""
    from .marker_rigs import write_jump
    low = ("crate", box_profile(1.0, 1.0), 2.0, (0, 3.0, 0))   # its face at y = 2.5, the axis ray meets it
    root, probe, fresh = world_of(low)
    jumps = list(write_jump(tmp_path).values())
    kept = InteractionChooser([TraversalProvider(probe, list(warp_assets.values())), JumpProvider(probe, jumps)])
    alone = InteractionChooser([TraversalProvider(fresh, list(warp_assets.values())), JumpProvider(fresh, jumps)])
    seen = set()
    for frame in range(0, 70, 3):   # up to 0.3 m before the face
        pos = Point3(0, 0.6 + STEP * frame, 0)
        answers = [kept.find_at(pos, 0.0)] + kept.answers
        expected = [alone.find_at(pos, 0.0)] + alone.answers
        for answer, other in zip(answers, expected):
            assert (bool(answer), answer.kind, getattr(answer, "reason", None)) == \
                (bool(other), other.kind, getattr(other, "reason", None))
            assert answer.distance == pytest.approx(other.distance, abs=1e-4)
            if answer:
                for target, twin in zip(answer.targets, other.targets):
                    assert (target.pos - twin.pos).length() < 1e-4
        assert answers[1].distance == pytest.approx(2.5 - pos.y, abs=1e-4)
        seen.add((bool(answers[1]), bool(answers[2])))
    assert probe.sweeps == 1 and probe.spheres == 2   # measured once; the vault's room (over the top, down) once
    assert len(seen) > 1   # the answers changed on the way (the warper's stretch, the jump's take-off)


def test_a_step_off_the_heading_the_line_or_the_feet_height_is_measured_afresh():
    """Within a heading's hundredth of a degree and a line's millimetre (the same file) but past SAME_H
    and SAME_POS, or with the feet higher, the probe measures again."""
    root, probe, fresh = world_of(CRATE)
    measure(probe, SETTINGS, Point3(0, 0.5, 0), 0.0, 2.3)
    measure(probe, SETTINGS, Point3(0, 0.5, 0), 0.004, 2.3)
    measure(probe, SETTINGS, Point3(0.0004, 0.5, 0), 0.0, 2.3)
    assert probe.sweeps == 3
    raised = measure(probe, SETTINGS, Point3(0, 0.5, 0.05), 0.0, 2.3)   # feet 5 cm up: the crate 0.95 m high
    assert raised.height == pytest.approx(0.95, abs=1e-3) and probe.sweeps == 4


def test_a_measurement_is_shared_only_with_reaches_that_meet_the_same():
    root, probe, fresh = world_of(CRATE)
    far = measure(probe, ProviderSettings(reach=3.9), Point3(0, -0.5, 0), 0.0, 2.3)   # the face 2.2 m ahead
    assert far.distance == pytest.approx(2.2, abs=1e-4)
    assert measure(probe, SETTINGS, Point3(0, -0.5, 0), 0.0, 2.3) is None   # beyond a 2 m reach
    near = measure(probe, SETTINGS, Point3(0, 0.5, 0), 0.0, 2.3)
    sweeps = probe.sweeps
    again = measure(probe, ProviderSettings(reach=5.0), Point3(0, 0.5, 0), 0.0, 2.3)   # a longer sweep: afresh
    assert probe.sweeps == sweeps + 1
    same(again, near)


def test_a_lower_search_first_is_not_handed_to_a_higher_one():
    """Measured for a 0.9 m search, a 2 m crate is "taller than" 1.4 m: a 2.3 m search must find its top."""
    tall = ("tall", box_profile(0.6, 2.0), 2.0, (0, 2.0, 0))
    root, probe, fresh = world_of(tall)
    assert measure(probe, SETTINGS, Point3(0, 0.5, 0), 0.0, 0.9).taller_than == pytest.approx(1.4, abs=1e-6)
    found = measure(probe, SETTINGS, Point3(0, 0.5, 0), 0.0, 2.3)
    assert found.taller_than is None and found.top == pytest.approx(2.0, abs=1e-3)


def test_walking_right_up_to_a_face_measures_again_where_the_short_sweep_would_not_be_made():
    root, probe, fresh = world_of(CRATE)
    for frame in range(0, 67, 2):   # from 1.7 m to 0.16 m before the face
        pos = Point3(0, STEP * frame, 0)
        same(measure(probe, SETTINGS, pos, 0.0, 2.3), measure(fresh, SETTINGS, pos, 0.0, 2.3))
    assert probe.sweeps > 1


def test_a_post_beside_the_way_is_kept_for_that_place_and_reach_only():
    """A post narrower than the character, 0.2 m beside its line (the face sweep passes it, the body
    would not): measured in line with its near side, for that place and reach alone."""
    post = ("post", box_profile(0.1, 1.2), 0.1, (0.25, 2.0, 0))   # x from 0.2 to 0.3, its face at y = 1.95
    root, probe, fresh = world_of(post)
    for frame in range(3):
        pos = Point3(0, 1.0 + STEP * frame, 0)
        found = measure(probe, SETTINGS, pos, 0.0, 2.3)
        assert found.node.getName() == "post" and found.distance == pytest.approx(1.95 - pos.y, abs=1e-3)
        same(found, measure(fresh, SETTINGS, pos, 0.0, 2.3))
    sweeps = probe.sweeps
    # The body (0.3 m radius) would meet the post's corner (0.2, 1.95) after 0.68 m: not within 0.6 m.
    assert measure(probe, ProviderSettings(reach=0.6), Point3(0, 1.0 + 2 * STEP, 0), 0.0, 2.3) is None
    assert sweeps >= 3 * 2


def test_a_post_whose_corner_the_sweep_meets_is_measured_afresh_at_every_step():
    """The face sweep meets a post's corner 0.06 m beside the line and the rays in line find no top: the
    post is measured in line with the corner, from beside the line, so at every step again."""
    post = ("post", box_profile(0.1, 1.2), 0.1, (0.11, 2.0, 0))   # x from 0.06 to 0.16, its face at y = 1.95
    root, probe, fresh = world_of(post)
    for frame in range(3):
        pos = Point3(0, 1.0 + STEP * frame, 0)
        found = measure(probe, SETTINGS, pos, 0.0, 2.3)
        assert found.node.getName() == "post" and found.close_edge.x == pytest.approx(0.07, abs=2e-3)
        same(found, measure(fresh, SETTINGS, pos, 0.0, 2.3))
        sweeps = probe.sweeps
    assert sweeps >= 3 * 2


def test_a_search_cut_short_is_not_handed_to_a_higher_one():
    """Rays started at a 0.6 m search's start (ground + 1.1 m) pass under a slab hanging 1.15 m up over
    the crate's top; a 2.3 m search's start above it meets the slab: the higher search measures afresh."""
    slab = ("slab", [(-0.225, 1.15), (0.225, 1.15), (0.225, 1.2), (-0.225, 1.2)], 2.0, (0, 2.075, 0))
    root, probe, fresh = world_of(CRATE, slab)
    assert measure(probe, SETTINGS, Point3(0, 0.5, 0), 0.0, 0.6) is not None
    high = measure(probe, SETTINGS, Point3(0, 0.5, 0), 0.0, 2.3)
    same(high, measure(fresh, SETTINGS, Point3(0, 0.5, 0), 0.0, 2.3))
    low = measure(fresh, SETTINGS, Point3(0, 0.5, 0), 0.0, 0.6)
    assert (low.top, low.depth) != pytest.approx((high.top, high.depth), abs=1e-3)   # the search's start matters here


def judged_kinds(traversal):
    """[kind] each time one of `traversal`'s kinds judges a measurement (wrapping its providers' `_judge`)."""
    judged = []
    for provider in traversal.providers:
        def counted(found, assets, judge=provider._judge, kind=provider.kind):
            judged.append(kind)
            return judge(found, assets)
        provider._judge = counted
    return judged


def test_a_kind_is_judged_only_when_every_kind_before_it_is_refused(warp_assets):
    """Design 7: the first kind the warper would play answers; a vault it would refuse gives way to a mantle.
    In front of the 1 m crate the vault plays, so the mantle is never judged (its capsule tests against a
    200,000-triangle crate were 1.9 ms of a 2.2 ms query when every kind was judged first); before the
    1.8 m wall, too high to vault, the vault's refusal gives way to the mantle, which is judged then, once
    for the measurement, however often the character asks along it."""
    root, probe, _ = world_of(CRATE, ("wall", box_profile(2.0, 1.8), 2.0, (6.0, 2.0, 0)))
    try:
        traversal = TraversalProvider(probe, list(warp_assets.values()))
        judged = judged_kinds(traversal)
        found = traversal.find_at(Point3(0, 0.7, 0), 0.0)
        assert found and found.kind == "vault" and judged == ["vault"], (found, judged)
        judged.clear()
        for step in range(3):
            found = traversal.find_at(Point3(6.0, 0.5 + step * STEP, 0), 0.0)
            assert found and found.kind == "mantle", found
        assert judged == ["vault", "mantle"], judged
    finally:
        root.removeNode()


@pytest.mark.parametrize("ahead", [1.0, 2.5, 3.9, 4.5, 8.0])
def test_open_ground_casts_nothing_and_a_crate_beyond_reach_is_still_too_far(warp_assets, ahead):
    """A crate `ahead` metres in front (its face): a static probe answers as one that keeps nothing (and asks
    Bullet every time), the offer, "too far to vault" within the 4 m looked beyond the 2 m reach, or nothing in
    front; where nothing lies within that look's box, not one sweep is made."""
    root, probe, fresh = world_of(("crate", box_profile(0.6, 1.0), 2.0, (0, ahead + 0.3, 0)))
    try:
        answers = [TraversalProvider(each, list(warp_assets.values())).find_at(Point3(0, 0, 0), 0.0)
                   for each in (probe, fresh)]
        (kept, alone), sweeps = answers, probe.sweeps
    finally:
        root.removeNode()
    assert bool(kept) == bool(alone) and getattr(kept, "kind", None) == getattr(alone, "kind", None)
    assert getattr(kept, "reason", None) == getattr(alone, "reason", None), (kept, alone)
    if ahead >= 4.5:
        assert not kept and kept.reason.startswith("nothing to vault") and sweeps == 0, (kept, sweeps)


def test_the_look_beyond_reach_follows_its_settings_edited_or_replaced(warp_assets):
    """The look past the reach for what is too far yet is made with the provider's settings as they are at
    each query: with the face sweep's band above a crate 3 m ahead nothing is in front; with it lowered in
    place (an edit) or given as a new settings object, the crate is too far to vault; a probe that keeps
    nothing and looks every time answers the same each time."""
    root, probe, fresh = world_of(("crate", box_profile(0.6, 1.0), 2.0, (0, 3.3, 0)))
    try:
        providers = [TraversalProvider(each, list(warp_assets.values()), face_low=1.2, face_high=1.6)
                     for each in (probe, fresh)]

        def reason_at(y):   # each query from a new place: no answer kept from the last
            kept, alone = (provider.find_at(Point3(0, y, 0), 0.0).reason for provider in providers)
            assert kept == alone, (y, kept, alone)
            return kept

        assert reason_at(0.0).startswith("nothing to vault")
        for provider in providers:
            provider.settings.face_low = SETTINGS.face_low
        assert reason_at(0.01).startswith("too far to vault")
        for provider in providers:
            provider.settings.face_low = 1.2
        assert reason_at(0.02).startswith("nothing to vault")
        for provider in providers:
            provider.settings = ProviderSettings()
        assert reason_at(0.03).startswith("too far to vault")
    finally:
        root.removeNode()


def test_an_asset_edited_between_frames_is_judged_as_edited_along_the_kept_line(warp_assets):
    """Walking up to the 1 m crate the vault is offered along the kept measurement; once the vault's
    height range is edited in place to stop below the crate's top, the next frame along the same line
    says it is too high to vault, as a probe that keeps nothing answers (what the kinds ask of the assets is made
    again after any edit)."""
    root, probe, fresh = world_of(CRATE)
    try:
        providers = [TraversalProvider(each, list(warp_assets.values())) for each in (probe, fresh)]

        def answers_at(frame):
            kept, alone = (provider.find_at(Point3(0, 0.7 + STEP * frame, 0), 0.0) for provider in providers)
            assert (bool(kept), kept.kind, getattr(kept, "reason", None)) == \
                (bool(alone), alone.kind, getattr(alone, "reason", None)), (frame, kept, alone)
            return kept

        assert answers_at(0).kind == "vault" and answers_at(1).kind == "vault"
        vault = warp_assets["vault"].traversal
        vault.height = (vault.height[0], 0.9)
        assert answers_at(2).reason.startswith("too high to vault (1.00 m > 0.90 m)")
    finally:
        root.removeNode()
