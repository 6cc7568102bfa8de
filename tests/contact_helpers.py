"""Playing a traversal over a real box with and without the contact IK, and what the joints did.

The level is a ground slab and one box whose near face is `distance` ahead of the character; the
providers find the targets in its geometry and the real MotionWarper plays the interaction. A
task just before rendering (after every motionwarp task) reads each joint's world position
and local rotation within the frame, straight from the Actor's joints. The oracle is the box
geometry and the mannequin's contact ground truth (assets/mannequin.contacts.json): where each
hand and foot was, as authored, relative to the edge or surface it touched.
"""
import json
import math

from panda3d.core import LMatrix4f, LQuaternionf, Point3, TransformState, Vec3

from motionwarp import MotionWarper, SceneProbe, TraversalProvider, load_actor
from motionwarp.ik.contact_ik import ContactIK

from .conftest import CONTACTS, MANNEQUIN, step
from .obstacles import box_profile, prism

WIDTH = 3.0
CRATES = [0.5, 0.8, 1.1, 1.4]
LEDGES = [1.0, 1.5, 1.8, 2.2]
#: (height, depth, distance of the near face): crates as far as the vault was authored, ledges as the mantle
CASES = [(h, 0.6, 1.0) for h in CRATES] + [(h, 2.0, 0.5) for h in LEDGES]
LIMBS = {"hand_l": ("upper_arm_l", "forearm_l"), "hand_r": ("upper_arm_r", "forearm_r"),
         "foot_l": ("thigh_l", "shin_l"), "foot_r": ("thigh_r", "shin_r")}
#: Sort of the measuring task: after the warper (45) and the IK (47), before igLoop renders (50).
MEASURE_SORT = 49
#: The mannequin's pelvis joint: how far the IK lowers the body.
HIPS = "hips"
#: The mannequin's head joint: where the upper body is (the pelvis's roll leaves it upright).
HEAD = "head"
#: The mannequin's ankle (foot joint) above its sole, as authored.
ANKLE = 0.08


def truth(clip):
    """The clip's authored contacts and obstacle, from the generator's ground truth."""
    return json.loads(CONTACTS.read_text())["clips"][clip]


class Level:
    """A ground slab and a box `height` high and `depth` deep, its near face `distance` ahead (+Y)."""

    def __init__(self, render, height, depth, distance):
        self.root = render.attachNewNode("level")
        prism(self.root, "ground", box_profile(40.0, 0.1), 40.0, pos=(0, 0, -0.1))
        prism(self.root, "box", box_profile(depth, height), WIDTH, pos=(0, distance + depth / 2, 0))
        self.height, self.depth, self.distance = height, depth, distance

    def surface(self, x, y):
        """Height of what is under (x, y): the box's top over its footprint, else the ground."""
        on_top = abs(x) <= WIDTH / 2 and self.distance <= y <= self.distance + self.depth
        return self.height if on_top else 0.0


class ContactRun:
    """One traversal over `level`, with the contact IK or without; `frames` holds, per frame,
    the clip time, dt, each end joint's and the hips' world position and each limb joint's local rotation.
    The interaction is TraversalProvider's at the origin, or `found` (any provider's Interaction) played
    from feet at `pos`. The character is the mannequin, or `actor` (another rig, its `feet` given among
    `ik_settings`, `joints` the ones recorded: world positions only)."""

    def __init__(self, base, level, assets, fps, ik=True, heading=0.0, found=None, pos=(0.0, 0.0, 0.0), actor=None,
                 joints=None, **ik_settings):
        if actor is None:
            actor = load_actor(MANNEQUIN)
        self._joints = joints
        actor.reparentTo(base.render)
        actor.setPos(*pos)
        actor.setH(heading)
        warper = MotionWarper(actor, taskmgr=base.taskMgr, render=base.render)
        probe = SceneProbe.from_geometry(level.root)
        contact_ik = ContactIK(actor, warper, probe, taskmgr=base.taskMgr, render=base.render,
                               **ik_settings) if ik else None
        self.character = actor.find("**/+Character").node()
        self.render = base.render
        self.actor_np = actor
        self.frames = []
        if found is None:
            found = TraversalProvider(probe, assets).find_at(Point3(0, 0, 0), heading)
        assert hasattr(found, "targets"), f"no interaction found: {found}"
        self.asset, self.found = found.asset, found
        base.taskMgr.add(self._measure, "test-contact-measure", sort=MEASURE_SORT)
        try:
            self.warp = warper.play(found.asset, found.targets)
            for _ in range(int(6 * fps)):
                step(base, 1.0 / fps)
                if not warper.is_warping:
                    break
            self.finished = not warper.is_warping and len(self.warp.results) == len(found.asset.phases)
        finally:
            base.taskMgr.remove("test-contact-measure")
            if contact_ik is not None:
                contact_ik.destroy()
            warper.destroy()
            actor.cleanup()
            actor.removeNode()

    def _measure(self, task):
        control = self.warp.control
        if not self.warp.warper.is_warping:
            return task.cont
        from panda3d.core import ClockObject
        frame = {"t": control.getFullFframe() / control.getFrameRate(), "dt": ClockObject.getGlobalClock().getDt(),
                 "rate": control.getPlayRate(), "pos": {}, "rot": {}, "turn": self.actor_np.getQuat(self.render)}
        if self._joints is not None:
            frame["pos"] = {joint: self._world(joint) for joint in self._joints}
            self.frames.append(frame)
            return task.cont
        for end, (upper, mid) in LIMBS.items():
            frame["pos"][end] = self._world(end)
            for joint, parent in ((upper, None), (mid, upper), (end, mid)):
                frame["rot"][joint] = self._local_rotation(joint, parent)
        frame["pos"][HIPS] = self._world(HIPS)
        frame["pos"][HEAD] = self._world(HEAD)
        self.frames.append(frame)
        return task.cont

    def _world(self, joint):
        character = self.actor_np.find("**/+Character")
        return self.render.getRelativePoint(character, Point3(_net(self.character, joint).getRow3(3)))

    def _local_rotation(self, joint, parent):
        return local_rotation(self.character, joint, parent)

    # -- what the oracle checks -------------------------------------------------------------
    def hand_errors(self, level):
        """Largest distance (m) of each planted hand from where it was authored relative to the close edge."""
        clip = truth(self.asset.clip)
        near, top = clip["obstacle"]["min"][1], clip["obstacle"]["max"][2]
        worst = 0.0
        for contact in clip["contacts"]:
            if not contact["joint"].startswith("hand"):
                continue
            x, y, z = contact["pos"]
            expected = Point3(x, level.distance + (y - near), level.height + (z - top))
            for frame in self.within(contact):
                worst = max(worst, (frame["pos"][contact["joint"]] - expected).length())
        return worst

    def planted(self, limb):
        """(the joint's authored height above what it touched, its position) for every frame inside the
        contact windows of the joints whose names start with `limb` ("foot", "hand"), from the clip's ground truth."""
        for above, pos, _ in self.touching(limb):
            yield above, pos

    def touching(self, limb):
        """As `planted`, with the point the joint touches: its authored level offset from the joint
        (the mantle's palm 2 cm past its wrist), turned with the character in that frame."""
        for contact in truth(self.asset.clip)["contacts"]:
            if contact["joint"].startswith(limb):
                above = contact["pos"][2] - contact["surface"][2]
                reach = Vec3(contact["surface"][0] - contact["pos"][0], contact["surface"][1] - contact["pos"][1], 0)
                for frame in self.within(contact):
                    pos = frame["pos"][contact["joint"]]
                    yield above, pos, pos + frame["turn"].xform(reach)

    def foot_depth(self, level):
        """Deepest (m) any foot's sole went below what is under it, during that foot's contact windows."""
        return max([0.0] + [level.surface(pos.x, pos.y) - (pos.z - ankle) for ankle, pos in self.planted("foot")])

    def deepest_sole(self, level):
        """Deepest (m) any sole went below what is under it, at any time of the run."""
        return max(level.surface(pos.x, pos.y) - (pos.z - ANKLE)
                   for frame in self.frames for joint, pos in frame["pos"].items() if joint.startswith("foot"))

    def hand_gap(self, level):
        """(largest distance (m) of a planted hand from the surface under the point it touches, less
        the palm's authored height above it; frames where that point is over no part of the prop)."""
        worst, off = 0.0, 0
        for palm, pos, touch in self.touching("hand"):
            if not level.on_prop(touch.x, touch.y):
                off += 1
                continue
            worst = max(worst, abs(pos.z - palm - level.surface(touch.x, touch.y)))
        return worst, off

    def foot_gaps(self, level):
        """(lowest, highest) (m) a planted sole was above what is under it, in its contact windows."""
        gaps = [pos.z - ankle - level.surface(pos.x, pos.y) for ankle, pos in self.planted("foot")]
        return min([0.0] + gaps), max([0.0] + gaps)

    def within(self, contact):
        return [frame for frame in self.frames if contact["start"] <= frame["t"] <= contact["end"]]

    def peak_turn(self, window=None):
        """Fastest any limb joint turned (degrees per second), over frames whose clip time is in `window`."""
        return max(self.peak_turns(window).values())

    def peak_turns(self, window=None):
        """{limb joint: fastest it turned (degrees per second)}, over frames whose clip time is in `window`."""
        peaks = {joint: 0.0 for joint in self.frames[0]["rot"]} if self.frames else {}
        for before, frame in zip(self.frames, self.frames[1:]):
            if window is not None and not window(frame["t"]):
                continue
            for joint, quat in frame["rot"].items():
                peaks[joint] = max(peaks[joint], turn_speed(before["rot"][joint], quat, frame["dt"]))
        return peaks


def _net(character, joint):
    net = LMatrix4f()
    character.findJoint(joint).getNetTransform(net)
    return net


def local_rotation(character, joint, parent):
    """The joint's rotation relative to `parent` (None: in Character space), from net matrices (the
    IK's frozen values are gone)."""
    net = _net(character, joint)
    if parent is not None:
        above = _net(character, parent)
        above.invertInPlace()
        net = net * above
    quat = LQuaternionf(TransformState.makeMat(net).getQuat())
    quat.normalize()
    return quat


def turn_speed(before, after, dt):
    """Degrees per second from rotation `before` to `after` in `dt` seconds."""
    turn = before.conjugate() * after
    return 2.0 * math.degrees(math.acos(min(1.0, abs(turn.getR())))) / dt


def easing(clip, blend):
    """Is clip time t within `blend` before a contact starts or after one ends (the IK easing in or out)?"""
    contacts = truth(clip)["contacts"]
    edges = [(c["start"] - blend, c["start"]) for c in contacts] + [(c["end"], c["end"] + blend) for c in contacts]
    return lambda t: any(low <= t <= high for low, high in edges)


_CLIP_PEAKS = {}


def clip_peaks(base, clip):
    """{limb joint: fastest it turns between two frames of `clip`, degrees per second at the clip's
    frame rate}: its own peak in the clip, the turn limit's reference. From the clip's own tables:
    the mannequin posed at every frame (stripped of root motion, as a MotionWarper plays it),
    each joint measured as ContactRun measures it (the limb's first joint in Character space,
    the others relative to their parents)."""
    if clip not in _CLIP_PEAKS:
        actor = load_actor(MANNEQUIN)
        MotionWarper(actor, taskmgr=base.taskMgr, render=base.render).destroy()   # strips the clip
        character, control = actor.find("**/+Character").node(), actor.getAnimControl(clip)
        peaks, before = {}, None
        for frame in range(control.getNumFrames()):
            actor.pose(clip, frame)
            actor.update(force=True)
            now = {joint: local_rotation(character, joint, parent)
                   for end, (upper, mid) in LIMBS.items() for joint, parent in ((upper, None), (mid, upper), (end, mid))}
            for joint, quat in now.items():
                speed = 0.0 if before is None else turn_speed(before[joint], quat, 1.0 / control.getFrameRate())
                peaks[joint] = max(peaks.get(joint, 0.0), speed)
            before = now
        actor.cleanup()
        actor.removeNode()
        _CLIP_PEAKS[clip] = peaks
    return _CLIP_PEAKS[clip]


class RidgeAndFurrow:
    """A level for ContactRun: a top 2.2 m deep, 1 m ahead, whose left half (x < 0) is `furrow` m lower than
    its right half's `ridge` m: a jump onto lands one foot on each."""

    def __init__(self, render, ridge, furrow):
        self.root = render.attachNewNode("level")
        prism(self.root, "ground", box_profile(40.0, 0.1), 40.0, pos=(0, 0, -0.1))
        self.ridge, self.low = ridge, ridge - furrow
        prism(self.root, "ridge", box_profile(2.2, ridge), 1.0, pos=(0.5, 2.1, 0))
        prism(self.root, "furrow", box_profile(2.2, self.low), 1.0, pos=(-0.5, 2.1, 0))

    def surface(self, x, y):
        on_top = abs(x) <= 1.0 and 1.0 <= y <= 3.2
        return (self.ridge if x >= 0.0 else self.low) if on_top else 0.0
