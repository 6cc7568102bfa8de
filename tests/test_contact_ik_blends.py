"""The contact IK easing in and out while the pelvis is raised (issue 28: a bug there went unnoticed).

A vault over a low (0.5 m) crate, its clip fading in over an idle that keeps its effect: the warp lowers
the root, so both planted feet sink and the IK raises the pelvis toward them while every contact counts
only the clip's share of the pose; then the right foot's first contact ends and eases out while the left
one holds. Oracle, frame by frame: a twin actor playing the same warp without the IK gives the animated
joints (the IK moves no root); the share comes from the frame count and the blend time; a planted foot's
goal is the ground under it (z = 0) plus the asset's own contact offset, and a foot letting go keeps its
last correction inside the window, weighed by a smoothstep over the blend time; and the goal step's rules
(docs/contact-ik.md, design 9): the pelvis rises as far as the lowest foot must (each foot's correction
times its weight), at most PELVIS_SPEED a second, and a foot at weight w goes w of the way from where the
raised pelvis carries it to its goal. Met to 10 micrometres; carrying the feet by the rise times w, or by
all of it, or weighing the contacts without the share, fails.
"""
import pytest
from panda3d.core import PartBundle, Point3

from motionwarp import MotionWarper, SceneProbe, TraversalProvider, load_actor
from motionwarp.ik.contact_ik import ContactIK
from motionwarp.ik.goals import PELVIS_SPEED

from .conftest import MANNEQUIN, step
from .contact_helpers import MEASURE_SORT, Level
from .test_contact_ik import BLEND
from .test_contact_ik import _foot_world, assets  # noqa: F401 (a fixture)

FPS, BLEND_IN = 60, 0.2
FEET = ("foot_l", "foot_r")
#: Metres: float32 joint matrices, and the solver's own tolerance.
TOL_M = 1e-5
#: Metres: the pelvis counts as raised from here (a rise under a millimetre is left out, as negligible).
RAISED_M = 2e-3


def _twin(base, probe=None):
    actor = load_actor(MANNEQUIN)
    actor.reparentTo(base.render)
    actor.enableBlend(blendType=PartBundle.BT_normalized_linear)
    warper = MotionWarper(actor, taskmgr=base.taskMgr, render=base.render, blend_in=BLEND_IN, blend_out=0.2)
    warper.driver.loop("idle")
    actor.setControlEffect("idle", 1.0)   # the idle stays: the clip never has more than half the pose
    ik = ContactIK(actor, warper, probe, taskmgr=base.taskMgr, render=base.render) if probe is not None else None
    return actor, warper, ik


def test_feet_ease_in_between_the_raised_pelvis_and_their_goals(base, assets):
    level = Level(base.render, 0.5, 0.6, 1.0)
    probe = SceneProbe.from_geometry(level.root)
    found = TraversalProvider(probe, assets).find_at(Point3(0, 0, 0), 0.0)
    assert found and found.asset.clip == "vault"
    first = {c.joint: c for c in found.asset.contacts if c.touches == "surface" and c.start == 0.0}
    assert set(first) == set(FEET)
    # foot_r lets go first: its window ends, its correction eases out (smoothstep over the blend time)
    # until its next contact starts easing in; foot_l stays planted all along
    leaves, stop = first["foot_r"].end, min(c.start for c in found.asset.contacts if c.start > 0.0) - BLEND
    assert first["foot_l"].end > stop > leaves
    (actor, warper, ik), (twin, twin_warper, _) = _twin(base, probe), _twin(base)
    pelvis = ik.pelvis
    rows = []

    def measure(task):
        warp = warper.current
        if warp is not None:
            seconds = warp.control.getFullFframe() / warp.control.getFrameRate()
            rows.append((seconds, {j: _foot_world(base, actor, j).z for j in FEET + (pelvis,)},
                         {j: _foot_world(base, twin, j).z for j in FEET + (pelvis,)}))
        return task.cont

    base.taskMgr.add(measure, "test-measure", sort=MEASURE_SORT)
    try:
        warper.play(found.asset, found.targets)
        twin_warper.play(found.asset, found.targets)
        for _ in range(int(0.3 * FPS)):   # the clip's first 0.3 s: past the first contacts
            step(base, 1.0 / FPS)
    finally:
        base.taskMgr.remove("test-measure")
        ik.destroy()
        for one, its in ((actor, warper), (twin, twin_warper)):
            its.destroy()
            one.cleanup()
            one.removeNode()
        level.root.removeNode()
    rise, lift, checked = 0.0, None, 0
    for k, (seconds, real, animated) in enumerate(rows):
        if seconds > stop:
            break
        effect = min(1.0, (k + 1) / FPS / BLEND_IN)
        share = effect / (effect + 1.0)   # the clip's part of the pose
        corrections = {foot: first[foot].offset[2] - animated[foot] for foot in FEET}   # the ground (z = 0) + offset
        weights = {foot: share for foot in FEET}
        if seconds > leaves:   # easing out from the last correction inside its window
            x = 1.0 - (seconds - leaves) / BLEND
            corrections["foot_r"], weights["foot_r"] = lift, share * x * x * (3.0 - 2.0 * x)
        else:
            lift = corrections["foot_r"]
        wanted = min(corrections[foot] * weights[foot] for foot in FEET)
        if abs(wanted) >= abs(rise):
            wanted = rise + max(-PELVIS_SPEED / FPS, min(PELVIS_SPEED / FPS, wanted - rise))
        rise = wanted
        if rise < RAISED_M:
            continue
        assert real[pelvis] - animated[pelvis] == pytest.approx(rise, abs=TOL_M), k
        for foot in FEET:
            w = weights[foot]
            expected = animated[foot] + w * corrections[foot] + (1.0 - w) * rise
            assert real[foot] == pytest.approx(expected, abs=TOL_M), (k, foot)
        checked += seconds > leaves
    assert checked >= 3, "foot_r never eased out while the pelvis was raised"
