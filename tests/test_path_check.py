"""Collision-checked warps (issue 30; docs/design.md 4 and 7): a warp whose path runs the body into
the test's own beam is refused naming the beam and the time; one the beam does not block plays.

Oracle: the vault played without the check, the actor's real root each frame with the clock's time
since play(), and the test's own capsule and beam: the first frame whose capsule (segment and
radius, computed here) comes within its radius of the beam's box is when the path hits it."""
import math
import re

import numpy as np
import pytest
from panda3d.core import ClockObject, Point3

from motionwarp import PathCheck, SceneProbe, UsageError, WarpRefused

from .conftest import step
from .obstacles import box_profile, level, prism
from .warp_helpers import vault_targets

RADIUS, HEIGHT, LIFT = 0.25, 1.8, 0.4
BOX = (1.0, 0.6, 1.0)           # height, depth, distance to the near face
BEAM_Y, BEAM_DEPTH, BEAM_THICK, BEAM_WIDTH = 1.6, 0.1, 0.1, 3.0   # across the path over the far edge


def scene(beam_bottom):
    """The vault's box, and a beam across the path whose underside is `beam_bottom` high (None: no beam)."""
    root = level()
    height, depth, distance = BOX
    prism(root, "crate", box_profile(depth, height), 2.0, pos=(0, distance + depth / 2, 0))
    if beam_bottom is not None:
        prism(root, "beam", box_profile(BEAM_DEPTH, BEAM_THICK), BEAM_WIDTH, pos=(0, BEAM_Y, beam_bottom))
    return root


def capsule_meets_beam(root, beam_bottom):
    """Whether the test's capsule over `root` (the feet) comes within RADIUS of the beam's box."""
    low = np.array([-BEAM_WIDTH / 2, BEAM_Y - BEAM_DEPTH / 2, beam_bottom])
    high = np.array([BEAM_WIDTH / 2, BEAM_Y + BEAM_DEPTH / 2, beam_bottom + BEAM_THICK])
    for z in np.linspace(root[2] + LIFT + RADIUS, root[2] + HEIGHT - RADIUS, 60):
        point = np.array([root[0], root[1], z])
        if np.linalg.norm(point - np.clip(point, low, high)) < RADIUS:
            return True
    return False


def played_path(base, rig, asset, targets, fps=60):
    """[(seconds since play(), actor position)] of the vault played without any check."""
    actor, warper = rig
    clock = ClockObject.getGlobalClock()
    seen = []

    def record(task):
        seen.append((clock.getFrameTime() - started, np.array(actor.getPos())))
        return task.cont
    base.taskMgr.add(record, "record-path", sort=49)   # after the warper (45), before igLoop ticks the clock (50)
    started = clock.getFrameTime()
    warper.play(asset, targets)
    try:
        while warper.is_warping and len(seen) < 10 * fps:
            step(base, 1.0 / fps)
    finally:
        base.taskMgr.remove("record-path")
    return seen


@pytest.fixture
def vault(warp_assets):
    return warp_assets["vault"]


def test_a_beam_in_the_vaults_path_refuses_it_naming_the_beam_and_when(base, rig, vault):
    actor, warper = rig
    beam_bottom = 2.3
    targets = vault_targets(*BOX)
    blocked = [t for t, pos in played_path(base, rig, vault, targets) if capsule_meets_beam(pos, beam_bottom)]
    assert blocked, "the beam does not cross the vault's path: the test proves nothing"
    actor.setPos(0, 0, 0)
    actor.setHpr(0, 0, 0)
    root = scene(beam_bottom)
    check = PathCheck(SceneProbe.from_geometry(root), RADIUS, HEIGHT, LIFT, ignore=(root.find("crate"),))
    with pytest.raises(WarpRefused) as refused:
        warper.play(vault, targets, path_check=check)
    match = re.fullmatch(r"the path through the vault hits 'beam' at (\d+\.\d\d) s", refused.value.reason)
    assert match, refused.value.reason
    assert abs(float(match.group(1)) - blocked[0]) <= 0.05, (match.group(1), blocked[0])
    assert not warper.is_warping


def test_a_beam_above_the_path_lets_the_vault_play(base, rig, vault):
    actor, warper = rig
    beam_bottom = 3.3
    targets = vault_targets(*BOX)
    assert not any(capsule_meets_beam(pos, beam_bottom) for _, pos in played_path(base, rig, vault, targets))
    actor.setPos(0, 0, 0)
    actor.setHpr(0, 0, 0)
    root = scene(beam_bottom)
    check = PathCheck(SceneProbe.from_geometry(root), RADIUS, HEIGHT, LIFT, ignore=(root.find("crate"),))
    assert warper.check(vault, targets, path_check=check)
    warp = warper.play(vault, targets, path_check=check)
    for _ in range(240):
        step(base, 1.0 / 60)
    assert len(warp.results) == 3


def test_the_traversed_obstacle_blocks_unless_it_is_left_out(base, rig, vault):
    """The crate itself meets a capsule reaching down to the feet: `ignore` leaves it out."""
    _, warper = rig
    root = scene(None)
    probe = SceneProbe.from_geometry(root)
    with pytest.raises(WarpRefused, match=r"the path through the vault hits 'crate' at \d+\.\d\d s"):
        warper.check(vault, vault_targets(*BOX), path_check=PathCheck(probe, RADIUS, HEIGHT))
    warper.check(vault, vault_targets(*BOX), path_check=PathCheck(probe, RADIUS, HEIGHT, ignore=(root,)))


def test_the_planned_path_is_the_played_one(base, rig, vault):
    """Warp.planned_path foresees where the root will be (the oracle: the actor's own positions), to
    within a frame's travel: a frame that crosses a phase's end plays its rest at the old rate."""
    actor, warper = rig
    targets = vault_targets(1.2, 0.4, 1.3, h=20.0)
    from motionwarp.warp.warper import Warp
    warp = Warp(warper, vault, targets, 1.0, 0.0, 0.0, announce=warper._announce)
    planned = warp.planned_path()
    played = played_path(base, rig, vault, targets)
    times = np.array([t for t, _ in planned])
    points = np.array([tuple(p) for _, p in planned])
    worst = 0.0
    for seconds, pos in played[:-1]:
        if seconds > times[-1]:
            break
        expected = np.array([np.interp(seconds, times, points[:, axis]) for axis in range(3)])
        worst = max(worst, float(np.linalg.norm(expected - pos)))
    assert worst < 0.02, worst


@pytest.mark.parametrize("radius, height, lift", [(0.0, 1.8, 0.0), (0.3, 1.8, 1.5), (0.3, 1.8, -0.1)])
def test_a_bad_body_is_named(radius, height, lift):
    with pytest.raises(UsageError, match=r"PathCheck: expected 0 < radius and 0 <= lift <= height - 2 radius"):
        PathCheck(None, radius, height, lift)


def test_the_refusal_says_a_clip_without_a_traversal_by_name(warp_assets):
    import dataclasses

    class Probe:
        def capsule_overlaps(self, radius, height, centre, ignore):
            return level() if centre[1] > 0.5 else None
    asset = dataclasses.replace(warp_assets["vault"], traversal=None)
    path = [(0.0, Point3(0, 0, 0)), (0.4, Point3(0, 1.0, 0))]
    reason = PathCheck(Probe(), 0.25, 1.8).refusal(asset, path)
    assert re.fullmatch(r"the path of 'vault' hits 'level' at 0\.\d\d s", reason)
    assert math.isclose(float(reason.split(" at ")[1][:-2]), 0.2, abs_tol=0.07)


@pytest.mark.parametrize("probe, radius, height, lift, ignore, message", [
    ("probe", "0.3", 1.8, 0.0, (), r"PathCheck radius: expected a number of metres, got '0\.3'"),
    ("probe", 0.3, True, 0.0, (), r"PathCheck height: expected a number of metres, got True"),
    ("probe", 0.3, 1.8, None, (), r"PathCheck lift: expected a number of metres, got None"),
    ("probe", 0.3, 1.8, 0.0, "crate", r"PathCheck ignore: expected NodePaths \(the scene nodes to leave out\), got 'crate'"),
    ("probe", 0.3, 1.8, 0.0, 5, r"PathCheck ignore: expected NodePaths .*, got 5"),
    ("level", 0.3, 1.8, 0.0, (), r"PathCheck probe: expected a SceneProbe, got NodePath level"),
])
def test_arguments_of_the_wrong_type_are_named(probe, radius, height, lift, ignore, message):
    """docs/inputs.md, PathCheck: each argument named in a UsageError, never a TypeError at play."""
    root = level()
    given = SceneProbe.from_geometry(root) if probe == "probe" else root
    with pytest.raises(UsageError, match=message):
        PathCheck(given, radius, height, lift, ignore)


def test_one_node_to_ignore_is_taken_as_a_tuple_of_it():
    root = level()
    assert PathCheck(SceneProbe.from_geometry(root), 0.3, 1.8, ignore=root).ignore == (root,)


def test_a_path_check_that_is_not_one_is_a_usage_error_of_play_and_check(base, warp_assets):
    from motionwarp import MotionWarper, load_actor

    from .conftest import MANNEQUIN
    actor = load_actor(MANNEQUIN)
    actor.reparentTo(base.render)
    warper = MotionWarper(actor, taskmgr=base.taskMgr, render=base.render)
    try:
        for call in (warper.play, warper.check):
            with pytest.raises(UsageError, match=r"MotionWarper.play: path_check: expected a PathCheck or None, "
                                                 r"got str 'capsule'"):
                call(warp_assets["vault"], vault_targets(*BOX), path_check="capsule")
        assert not warper.is_warping
    finally:
        warper.destroy()
        actor.cleanup()
        actor.removeNode()
