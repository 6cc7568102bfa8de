"""IKBatch: a crowd's contact IK in one task moves every joint exactly as each character's own ContactIK.

Each case vaults crates of different heights, side by side: one character per crate in an IKBatch,
and in the same place a twin with its own ContactIK task over an identical crate. A task
before rendering reads every joint's world position from the Actors' joints. Oracles: the twins
(the batch must change nothing: within 0.01 mm, frame by frame), the crate geometry and the
mannequin's authored contacts (hands on the crate where they were authored relative to its edge,
soles never in what they stand on), and the pose with no IK at all (the batch did bend limbs).
"""
import pytest
from panda3d.core import LMatrix4f, Point3

from motionwarp import ContactIK, IKBatch, MotionWarper, SceneProbe, TraversalProvider, load_actor

from .conftest import MANNEQUIN, step
from .contact_helpers import ANKLE, LIMBS, Level, truth

LANE = 8.0          # metres between lanes along X (a twin shares its lane: the same float32 arithmetic)
JOINTS = [joint for end, (upper, mid) in LIMBS.items() for joint in (upper, mid, end)] + ["hips"]


class Lane:
    """A crate `height` high at lane `index`, a mannequin in front of it vaulting it, its ContactIK."""

    def __init__(self, base, probe_root, assets, height, index):
        self.x = index * LANE
        self.level = Level(probe_root, height, 0.6, 1.0)
        self.level.root.setX(self.x)
        self.actor = load_actor(MANNEQUIN)
        self.actor.reparentTo(base.render)
        self.actor.setX(self.x)
        self.character = self.actor.find("**/+Character")
        self.warper = MotionWarper(self.actor, taskmgr=base.taskMgr, render=base.render)
        self.assets, self.frames = assets, []

    def start(self, base, probe, ik=True):
        self.ik = ContactIK(self.actor, self.warper, probe, taskmgr=base.taskMgr, render=base.render,
                            blend_time=0.15) if ik else None
        found = TraversalProvider(probe, self.assets).find_at(Point3(self.x, 0, 0), 0.0)
        assert hasattr(found, "targets"), f"no vault found: {found}"
        self.warp = self.warper.play(found.asset, found.targets)

    def measure(self, render):
        """{joint: world position less the lane's offset} now, and the clip time."""
        mat, node = LMatrix4f(), self.character.node()
        control = self.warp.control
        pos = {}
        for joint in JOINTS:
            node.findJoint(joint).getNetTransform(mat)
            pos[joint] = render.getRelativePoint(self.character, Point3(mat.getRow3(3))) - Point3(self.x, 0, 0)
        self.frames.append((control.getFullFframe() / control.getFrameRate(), pos))

    def destroy(self):
        if self.ik is not None:
            self.ik.destroy()
        self.warper.destroy()
        self.actor.cleanup()
        self.actor.removeNode()


def _crowd(base, assets, heights, fps, ik=True):
    """(lanes in one IKBatch, their twins with their own ContactIK) vaulting `heights`, played to the
    end at `fps`; with `ik` False, no contact IK at all."""
    root = base.render.attachNewNode("crowd")
    # each twin stands where its batched character stands (over an identical crate): the same float32 numbers
    lanes = [
        Lane(base, root, assets, height, index) for _ in range(2) for index, height in enumerate(heights)]
    probe = SceneProbe.from_geometry(root)
    for lane in lanes:
        lane.start(base, probe, ik)
    crowd, twins = lanes[:len(heights)], lanes[len(heights):]
    batch = IKBatch(taskmgr=base.taskMgr)
    if ik:
        for lane in crowd:
            batch.add(lane.ik)
    base.taskMgr.add(lambda task: [lane.measure(base.render) for lane in lanes] and task.cont, "test-crowd", sort=49)
    try:
        for _ in range(int(4 * fps)):
            step(base, 1.0 / fps)
            if not any(lane.warper.is_warping for lane in lanes):
                break
    finally:
        base.taskMgr.remove("test-crowd")
        batch.destroy()
        for lane in lanes:
            lane.destroy()
    return crowd, twins


@pytest.fixture
def assets(warp_assets):
    return list(warp_assets.values())


@pytest.mark.parametrize("fps", [30, 144])
def test_a_batched_crowd_moves_every_joint_as_its_own_contact_ik(base, assets, fps):
    crowd, twins = _crowd(base, assets, [0.5, 1.1, 1.4], fps)
    for lane, twin in zip(crowd, twins):
        assert len(lane.frames) == len(twin.frames) > fps
        for (t, pos), (twin_t, twin_pos) in zip(lane.frames, twin.frames):
            assert t == twin_t
            for joint in JOINTS:
                assert (pos[joint] - twin_pos[joint]).length() < 1e-5, (lane.level.height, t, joint)
    # the crates differ, so the characters' poses differ: rows mixed up between characters would show
    ends = [lane.frames[len(lane.frames) // 2][1]["hand_l"] for lane in crowd]
    assert min((a - b).length() for a, b in zip(ends, ends[1:])) > 0.05


def test_a_batched_crowd_keeps_hands_and_feet_on_what_they_touch(base, assets):
    """From the crate's own geometry: each planted hand within 1 cm of where it was authored
    relative to the crate's close edge and each planted sole never 1 mm into what it stands on
    (as tests/test_contact_ik.py asks of one character); without the IK the soles of the
    characters vaulting lower or higher crates than the clip's 1 m go centimetres into them."""
    crowd, _ = _crowd(base, assets, [0.5, 1.1, 1.4], 30)
    plain, _ = _crowd(base, assets, [0.5, 1.1, 1.4], 30, ik=False)
    for lane, without in zip(crowd, plain):
        hand, sole = _errors(lane)
        assert hand < 0.01 and sole < 0.001, (lane.level.height, hand, sole)
        assert _errors(without)[1] > 0.002 or lane.level.height == 1.1, lane.level.height


def _errors(lane):
    """(largest distance (m) of a planted hand from where it was authored relative to the crate's
    close edge, deepest (m) a planted sole went into what is under it)."""
    clip = truth("vault")
    near, top = clip["obstacle"]["min"][1], clip["obstacle"]["max"][2]
    level, hand, sole = lane.level, 0.0, 0.0
    for contact in clip["contacts"]:
        joint = contact["joint"]
        frames = [pos[joint] for t, pos in lane.frames if contact["start"] <= t <= contact["end"]]
        if joint.startswith("hand"):
            x, y, z = contact["pos"]
            authored = Point3(x, level.distance + (y - near), level.height + (z - top))
            hand = max([hand] + [(pos - authored).length() for pos in frames])
        else:
            ankle = contact["pos"][2] - contact["surface"][2]
            sole = max([sole] + [level.surface(pos.x, pos.y) - (pos.z - ankle) for pos in frames])
    return hand, sole
