"""The contact IK's compiled bends (motionwarp.ik.compiled, numba) against the pure-Python reference.

The same traversals over real boxes, played by the real MotionWarper with the contact IK bending
the limbs in Python (`compiled=0`) and in compiled code (`compiled=1`): every joint of the
skeleton ends every frame where the Python put it (float64 there, Panda3D's float32 here), and
both bend as many limbs. Skipped when numba is not installed (the optional extra `motionwarp[fast]`).
"""
import pytest
from panda3d.core import LMatrix4f, Point3, Vec3

from motionwarp import MotionWarper, SceneProbe, TraversalProvider, WarpAsset, load_actor
from motionwarp.ik import compiled
from motionwarp.ik.contact_ik import ContactIK
from motionwarp.ik.limbs import Limb
from motionwarp.ik.turn_limit import TurnLimiter

from .conftest import MANNEQUIN, step
from .contact_helpers import MEASURE_SORT, Level

numba = pytest.importorskip("numba")

#: Metres: how far apart the two paths may put any joint in any frame.
TOLERANCE = 1e-4


def joint_paths(base, level, assets, fps, bent_compiled, heading=0.0, found=None, y=0.0):
    """([{joint name: world position}] per frame of the interaction TraversalProvider finds over
    `level` (or `found`, played from feet at (0, `y`)), with the contact IK's limbs bent in
    compiled code or not; how many limbs it bent)."""
    actor = load_actor(MANNEQUIN)
    actor.reparentTo(base.render)
    actor.setPos(0, y, 0)
    actor.setH(heading)
    warper = MotionWarper(actor, taskmgr=base.taskMgr, render=base.render)
    probe = SceneProbe.from_geometry(level.root)
    contact_ik = ContactIK(actor, warper, probe, taskmgr=base.taskMgr, render=base.render,
                           compiled=int(bent_compiled))
    assert contact_ik.compiled is bent_compiled
    character_np = actor.find("**/+Character")
    joints = [character_np.node().findJoint(name) for name in contact_ik.pose.parents]
    frames, bent = [], [0]
    step_ik = contact_ik.step

    def counted(dt):
        limbs = step_ik(dt)
        bent[0] += limbs
        return limbs
    contact_ik.step = counted

    def measure(task):
        if warper.is_warping:
            net, frame = LMatrix4f(), {}
            for joint in joints:
                joint.getNetTransform(net)
                frame[joint.getName()] = base.render.getRelativePoint(character_np, Point3(net.getRow3(3)))
            frames.append(frame)
        return task.cont

    found = found or TraversalProvider(probe, assets).find_at(Point3(0, 0, 0), heading)
    base.taskMgr.add(measure, "test-compiled-measure", sort=MEASURE_SORT)
    try:
        warper.play(found.asset, found.targets)
        for _ in range(int(6 * fps)):
            step(base, 1.0 / fps)
            if not warper.is_warping:
                break
        assert contact_ik.compiled is bent_compiled   # no fallback on the mannequin
    finally:
        base.taskMgr.remove("test-compiled-measure")
        contact_ik.destroy()
        warper.destroy()
        actor.cleanup()
        actor.removeNode()
    return frames, bent[0]


@pytest.mark.parametrize("height, depth, distance, fps, heading", [
    (0.5, 0.6, 1.0, 30, 0.0),     # a low crate: the feet bend and the pelvis rises
    (1.4, 0.6, 1.0, 144, 0.0),    # a high crate: hands held while the warp lifts the body (turn limit)
    (1.8, 2.0, 0.5, 30, 35.0),    # a ledge, turned: hands and feet
])
def test_the_compiled_bends_put_every_joint_where_the_python_does(base, warp_assets, height, depth, distance, fps,
                                                                 heading):
    assert compiled.AVAILABLE
    level = Level(base.render, height, depth, distance)
    assets = list(warp_assets.values())
    reference, bent = joint_paths(base, level, assets, fps, False, heading)
    fast, bent_fast = joint_paths(base, level, assets, fps, True, heading)
    assert bent > 50 and bent_fast == bent
    assert len(fast) == len(reference)
    worst = max((fast[i][name] - where).length() for i, frame in enumerate(reference) for name, where in frame.items())
    assert worst < TOLERANCE


def test_the_compiled_bends_roll_the_pelvis_where_the_python_does(base, warp_asset_dir):
    """A jump onto a ridge and a furrow (tests/test_real_contacts.py): the pelvis rolls, the legs hang
    from the rolled pelvis in both paths."""
    from .test_real_contacts import RidgeAndFurrow
    from .test_real_props import chooser
    from .real_props import walk_up
    assets = [WarpAsset.load(path) for path in sorted(warp_asset_dir.glob("*.warp.json"))]
    level = RidgeAndFurrow(base.render, 0.67, 0.11)
    try:
        found, y = walk_up(chooser(level.root, assets), 1.0)
        reference, bent = joint_paths(base, level, assets, 30, False, found=found, y=y)
        fast, bent_fast = joint_paths(base, level, assets, 30, True, found=found, y=y)
    finally:
        level.root.removeNode()
    assert found.kind == "jump_onto" and bent > 20 and bent_fast == bent and len(fast) == len(reference)
    worst = max((fast[i][name] - where).length() for i, frame in enumerate(reference) for name, where in frame.items())
    assert worst < TOLERANCE


def test_the_pure_path_is_chosen_when_asked_or_without_numba(base, monkeypatch):
    actor = load_actor(MANNEQUIN)
    actor.reparentTo(base.render)
    try:
        assert ContactIK(actor, None, taskmgr=base.taskMgr, render=base.render).compiled is True   # on by default
        assert ContactIK(actor, None, taskmgr=base.taskMgr, render=base.render, compiled=0).compiled is False
        monkeypatch.setattr(compiled, "AVAILABLE", False)
        assert ContactIK(actor, None, taskmgr=base.taskMgr, render=base.render).compiled is False
    finally:
        for task in base.taskMgr.getTasksMatching("motionwarp-contact-ik-*"):
            base.taskMgr.remove(task)
        actor.cleanup()
        actor.removeNode()


def _limb(upper):
    """A straight limb hanging from the Character, its upper joint's local (and net) matrix `upper`."""
    local = LMatrix4f.translateMat(0, 0, -0.5)
    return Limb(("upper", "mid", "end"), LMatrix4f.identMat(), (upper, local, local), None,
                Vec3(0.1, 0, 0.2), Vec3(0, 0, 1), (10.0, 10.0, 10.0), 10.0, 1.0, False)


@pytest.mark.parametrize("upper, bends", [
    (LMatrix4f.translateMat(0, 0, 1), True),
    (LMatrix4f.scaleMat(-1, 1, 1) * LMatrix4f.translateMat(0, 0, 1), False),      # mirrored
    (LMatrix4f.shearMat(0.5, 0, 0) * LMatrix4f.translateMat(0, 0, 1), False),     # sheared
])
def test_a_mirrored_or_sheared_limb_is_left_to_the_python(upper, bends):
    """The compiled bends take rotations times positive scales only: any other matrix returns None
    (ContactIK then bends in Python from that frame on) and changes nothing."""
    limbs = compiled.CompiledLimbs(TurnLimiter())
    bent = limbs.bend([_limb(upper)])
    assert (bent is not None) is bends
    if bends:
        assert len(bent) == 1 and [name for name, _ in bent[0].transforms] == ["upper", "mid", "end"]


def test_the_arrays_grow_for_more_limbs_and_keep_what_the_limiter_holds():
    """Arrays made for one limb grow when a second comes, keeping the first's rotations of last
    frame: the bends are those of arrays made big enough at once, frame by frame."""
    frames = []
    for frame in range(4):
        limbs = [_limb(LMatrix4f.translateMat(0, 0, 1))._replace(move=Vec3(0.1 * frame, 0, 0.2), most=(3.0,) * 3)]
        if frame:
            limbs.append(_limb(LMatrix4f.translateMat(1, 0, 1))._replace(names=("a", "b", "c"), move=Vec3(0, 0.3, 0.1),
                                                                          most=(3.0,) * 3))
        frames.append(limbs)
    bends = []
    for slots in (1, 4):
        limbs = compiled.CompiledLimbs(TurnLimiter(), slots=slots)
        bends.append([[[list(transform.getMat().getRow(3)) + list(transform.getQuat()) for _, transform in bent.transforms]
                       for bent in limbs.bend(frame)] for frame in frames])
    assert bends[0] == bends[1]
    assert bends[0][1][0] != bends[0][2][0]   # a frame the arrays grew in is not a frame like the next
