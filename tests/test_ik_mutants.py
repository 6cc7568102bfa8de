"""The contact IK's pure parts on the test's own geometry: cases a mutation run (issue 18) showed
untested. Two-bone solves keep both bone lengths and end on the target (or as near as the bones
allow), whatever the limb's bend direction; a limb never locks straight; the bend direction is
where the mid joint sits off the limb's line, and last frame's decides only below STRAIGHT of the
upper bone. The scene view reads a target riding a platform where it is, and where the warp puts
a hand down from the actor's parent and scale as they are now. The turn limiter takes any pose within its limit as it is, holds
one beyond it to exactly the limit, and knows when dropping a limb's IK rotation would turn a joint faster than
the limit minus what the animation turns it then (docs/design.md 9).
"""
import dataclasses
import math

import pytest
from panda3d.core import LMatrix4f, LQuaternionf, NodePath, Point3, TransformState, Vec3

from motionwarp import WarpTarget, load_actor
from motionwarp.base.config import ContactIKSettings
from motionwarp.base.errors import UsageError
from motionwarp.ik.contact_ik import ContactIK
from motionwarp.ik.pose_writer import PoseWriter
from motionwarp.ik.scene_view import SceneView
from motionwarp.ik.turn_limit import TurnLimiter, limit_turn, peak_turn_speed, peak_turn_speeds
from motionwarp.ik.twobone import STRAIGHT, bend_direction, reach_limit, solve
from motionwarp.warp.contacts import Contact

from .conftest import MANNEQUIN

UPPER = LMatrix4f.translateMat(0, 0, 1)
MID = LMatrix4f.translateMat(0, 0.05, 0.55)
END = LMatrix4f.rotateMat(30, Vec3(0, 0, 1)) * LMatrix4f.translateMat(0, 0, 0.1)
BONE = math.hypot(0.05, 0.45)      # both bones of that limb


def joints(mats):
    return [Point3(mat.getRow3(3)) for mat in mats]


def finite(mats):
    return all(math.isfinite(mat.getCell(i, j)) for mat in mats for i in range(4) for j in range(4))


@pytest.mark.parametrize("direction", [(1, 0, 0), (-1, 0, 0), (0, 1, 0), (0, 0, -1), (1, 1, 0), (1, 0, 1), (0.3, -1, 0.2)])
def test_a_limb_whose_bend_lies_along_its_new_line_still_bends_and_reaches(direction):
    """The bend direction given lies exactly along the line to the target (no bend plane): any
    perpendicular will do, but the limb still ends on the target with both bones their length."""
    u = Vec3(*direction).normalized()
    target = Point3(0, 0, 1) + u * 0.6
    new = solve(UPPER, MID, END, target, Vec3(u))
    a, b, c = joints(new)
    assert finite(new)
    assert (c - target).length() < 1e-5
    assert (b - a).length() == pytest.approx(BONE, abs=2e-5) and (c - b).length() == pytest.approx(BONE, abs=2e-5)


def test_a_target_nearer_than_the_bones_difference_folds_the_limb_keeping_its_bones():
    """Upper bone 0.45 m, lower 0.3 m, target 5 cm from the upper joint: the limb folds as far as
    its bones allow, toward the target, both bones keeping their lengths."""
    upper, mid, end = LMatrix4f.translateMat(0, 0, 1), LMatrix4f.translateMat(0, 0.02, 0.55), LMatrix4f.translateMat(0, 0, 0.25)
    len1, len2 = (Vec3(0, 0.02, -0.45)).length(), Vec3(0, -0.02, -0.3).length()
    bend = bend_direction(upper.getRow3(3), mid.getRow3(3), end.getRow3(3))
    target = Point3(0, 0.03, 0.96)
    a, b, c = joints(solve(upper, mid, end, target, bend))
    assert (b - a).length() == pytest.approx(len1, abs=2e-5)
    assert (c - b).length() == pytest.approx(len2, abs=2e-5)
    assert (c - a).normalized().dot((target - a).normalized()) > 0.9999


@pytest.mark.parametrize("case", ["target on the upper joint", "no upper bone", "no lower bone"])
def test_a_degenerate_limb_is_left_as_it_is(case):
    """No direction to the target or a bone of no length: nothing to solve, the joints stay as
    they are (never NaN in the skeleton)."""
    upper, mid, end, target = UPPER, MID, END, Point3(0.2, 0.2, 0.3)
    if case == "target on the upper joint":
        target = Point3(0, 0, 1)
    elif case == "no upper bone":
        mid = LMatrix4f.translateMat(0, 0, 1)
    else:
        end = LMatrix4f.translateMat(0, 0.05, 0.55)
    bend = Vec3(0, 1, 0)
    new = solve(upper, mid, end, target, bend)
    assert finite(new) and all(n == o for n, o in zip(new, (upper, mid, end)))


def test_a_limb_never_locks_straight():
    """The IK stretches a limb to STRETCH (95%) of its bones at most, or as straight as the
    animation has it, but never fully straight (no bend plane left, design 9)."""
    assert reach_limit(0.5, 1.0) == pytest.approx(0.95)
    assert reach_limit(0.97, 1.0) == pytest.approx(0.97)
    assert 0.999 <= reach_limit(1.0, 1.0) < 1.0
    far = Point3(0, 5, -3)
    straight = (UPPER, LMatrix4f.translateMat(0, 0, 0.5), LMatrix4f.translateMat(0, 0, 0.0))
    a, b, c = joints(solve(*straight, far, Vec3(0, 1, 0)))
    assert 0.999 <= (c - a).length() < 1.0 and ((b - a).length() + (c - b).length()) == pytest.approx(1.0, abs=1e-5)


def test_the_bend_direction_is_where_the_mid_joint_sits_off_the_limbs_line():
    """Hip at 1 m, foot at 0.2 m right under it, knee 10 cm ahead at 0.6 m: forward, exactly, for
    a leg shorter than a metre, wherever the foot is along the line."""
    assert (bend_direction(Point3(0, 0, 1), Point3(0, 0.1, 0.6), Point3(0, 0, 0.2)) - Vec3(0, 1, 0)).length() < 1e-6
    tilted = bend_direction(Point3(0, 0, 1), Point3(0.1, 0.1, 0.6), Point3(0.2, 0, 0.2))
    line = Vec3(0.2, 0, -0.8).normalized()
    assert abs(tilted.dot(line)) < 1e-6 and tilted.length() == pytest.approx(1.0, abs=1e-6)
    assert bend_direction(Point3(0, 0, 1), Point3(0, 0, 0.6), Point3(0, 0, 0.2)).length() == 0.0   # straight: none


@pytest.mark.parametrize("off, follows", [(1.25, "animation"), (0.75, "last frame")])
def test_last_frames_bend_decides_only_below_straight_of_the_upper_bone(off, follows):
    """The knee `off` times STRAIGHT of the upper bone ahead of the line, last frame's direction
    behind: beyond STRAIGHT the animation's side wins, within it last frame's (no flip between
    frames on a nearly straight leg). Far from the origin, so nothing hides behind a + b."""
    a, c = Point3(5, 5, 6), Point3(5, 5, 5.2)
    ahead = STRAIGHT * 0.4 * off
    b = Point3(5, 5 + ahead, 5.6)
    upper_bone = (b - a).length()
    assert ahead == pytest.approx(STRAIGHT * upper_bone * off, rel=1e-3)
    bend = bend_direction(a, b, c, Vec3(0, -1, 0))
    expected = Vec3(0, 1, 0) if follows == "animation" else Vec3(0, -1, 0)
    assert (bend - expected).length() < 1e-6
    sideways = bend_direction(a, b, c, Vec3(1, 0, 0))   # last frame's pulls a little toward its side
    assert sideways.x == pytest.approx(STRAIGHT * upper_bone / math.hypot(ahead, STRAIGHT * upper_bone), abs=1e-4)


# -- the turn limiter, with limits given in degrees per second and frames of 0.1 s --------------

X, Z = Vec3(1, 0, 0), Vec3(0, 0, 1)


def turned(degrees, axis=X, then=None):
    """A rotation matrix: `degrees` about `axis`, applied before `then` (a matrix) when given."""
    mat = LMatrix4f.rotateMat(degrees, axis)
    return mat if then is None else mat * then


def degrees_between(a, b):
    """Degrees between the rotations of two matrices (from the trace of a^T b, float64)."""
    ma = [[a.getCell(i, j) for j in range(3)] for i in range(3)]
    mb = [[b.getCell(i, j) for j in range(3)] for i in range(3)]
    trace = sum(ma[k][i] * mb[k][i] for i in range(3) for k in range(3))
    return math.degrees(math.acos(max(-1.0, min(1.0, (trace - 1.0) / 2.0))))


def limiter(own=90.0, net=None):
    """A TurnLimiter allowing joint "j" `own` degrees per second (and `net` in Character space)."""
    limits = TurnLimiter()
    limits.peaks = {"j": own}
    limits.net_peaks = {} if net is None else {"j": net}
    return limits


def frame(limits, wanted, animated, parent=None):
    """One 0.1 s frame bending "j" toward `wanted` (a matrix): (the local matrix shown, held back?)."""
    limits.start_frame(0.1, 1.0)
    local, held = limits.limit("j", TransformState.makeMat(wanted), animated, parent, limits.most("j"))
    limits.bent("j", local, animated, parent)
    limits.end_frame(set())
    return local.getMat(), held


def test_a_pose_within_the_limit_is_taken_as_it_is_and_one_beyond_is_held_to_it():
    """9 degrees a frame (90 degrees/s): from last frame's pose, a wanted pose 8 degrees away is
    shown as it is and not held, though the animation alone turns 10 degrees that frame and the
    IK's own rotation moves back against it; one 20 degrees away is held to exactly 9 (the
    animation still), and a wanted pose equal to last frame's is not held."""
    limits = limiter()
    first = turned(5)
    frame(limits, first, turned(5))
    wanted = turned(13)                         # 8 degrees on; the animation goes to 15
    shown, held = frame(limits, wanted, turned(15))
    assert not held and shown.almostEqual(wanted, 1e-5)
    shown, held = frame(limits, wanted, turned(15))
    assert not held
    shown, held = frame(limits, turned(33), turned(15))   # 20 degrees on, the animation still
    assert held and degrees_between(shown, wanted) == pytest.approx(9.0, abs=0.05)


def test_a_limbs_first_joint_beyond_its_limit_is_held_in_its_own_space_too():
    """A joint whose parent is given, 20 degrees on from last frame's pose relative to its parent
    (the parent still): held to 9 degrees, the limit relative to its parent."""
    limits, parent = limiter(net=1000.0), turned(40, Z)
    frame(limits, turned(5), turned(5), parent)
    shown, held = frame(limits, turned(25), turned(5), parent)
    assert held and degrees_between(shown, turned(5)) == pytest.approx(9.0, abs=0.05)


@pytest.mark.parametrize("ik, animation, last, beyond", [
    (6.0, 4.0, True, True),     # the animation turns 4 of the 9 degrees: 5 left, dropping 6 is beyond
    (4.0, 4.0, True, False),
    (8.5, 0.0, False, False),   # bent first this frame: all 9 degrees left
    (10.0, 0.0, False, True),
])
def test_dropping_the_iks_rotation_is_beyond_a_frame_when_it_exceeds_the_room_the_animation_leaves(ik, animation, last, beyond):
    limits = limiter()
    if last:
        limits.start_frame(0.1, 1.0)
        limits.bent("j", TransformState.makeMat(turned(5)), turned(5), None)
        limits.end_frame(set())
    limits.start_frame(0.1, 1.0)
    animated = turned(5 + animation)
    limits.bent("j", TransformState.makeMat(turned(ik, Z, animated)), animated, None)
    assert limits.beyond_a_frame(["j"]) is beyond


@pytest.mark.parametrize("ik, parent_turn, last, beyond", [
    (4.0, 3.0, True, True),     # 6 degrees in Character space, the parent turns 3: 3 left
    (2.0, 3.0, True, False),
    (5.5, 0.0, False, False),   # bent first this frame: all 6 left
    (6.5, 0.0, False, True),
])
def test_a_first_joints_room_is_also_its_character_space_limit_minus_its_parents_turn(ik, parent_turn, last, beyond):
    """The limb's first joint: 9 degrees a frame relative to its parent, 6 in Character space;
    its parent is turned 40 degrees about Z (so a turn measured without it, or against the
    wrong frame's parent, is far off) and turns `parent_turn` more this frame."""
    limits, animated = limiter(net=60.0), turned(5)
    if last:
        limits.start_frame(0.1, 1.0)
        limits.bent("j", TransformState.makeMat(animated), animated, turned(40, Z))
        limits.end_frame(set())
    limits.start_frame(0.1, 1.0)
    limits.bent("j", TransformState.makeMat(turned(ik, Z, animated)), animated, turned(40 + parent_turn, Z))
    assert limits.beyond_a_frame(["j"]) is beyond


def test_a_clip_animating_none_of_the_joints_limits_nothing(base):
    actor = load_actor(MANNEQUIN)
    try:
        anim = actor.getAnimControl("vault").getAnim()
        nothing = frozenset({"no_such_joint"})
        assert peak_turn_speed(anim, nothing) == math.inf and peak_turn_speeds(anim, nothing) == {}
        limits = TurnLimiter()
        limits.follow_clip("vault-nothing", anim, nothing, nothing)
        limits.start_frame(0.1, 1.0)
        assert limits.most("no_such_joint") == math.inf and limits.most_net("no_such_joint") == math.inf
    finally:
        actor.cleanup()
        actor.removeNode()


@pytest.mark.parametrize("most, anim_turn, moved", [(0.5, 0.0, 0.5), (3.0, 2.5, 0.5), (2.0, 2.0, 0.0), (2.0, 3.0, 0.0)])
def test_limit_turn_moves_the_iks_rotation_as_far_as_the_room_left_and_says_it_held(most, anim_turn, moved):
    """The IK's rotation wants 10 degrees from last frame's: with `most` degrees a frame and the
    animation turning `anim_turn`, it moves most - anim_turn (however small) toward it, or not
    at all when the animation takes all the room; either way it was held back."""
    previous, wanted = LQuaternionf.identQuat(), LQuaternionf()
    wanted.setFromAxisAngle(10.0, Vec3(0, 0, 1))
    turn, held = limit_turn(previous, wanted, anim_turn, most)
    assert held
    assert 2.0 * math.degrees(math.atan2(abs(turn.getK()), abs(turn.getR()))) == pytest.approx(moved, abs=1e-3)
    assert turn.getK() >= 0.0 and abs(turn.getI()) < 1e-7 and abs(turn.getJ()) < 1e-7   # toward `wanted`


def test_the_joint_turns_at_most_the_limit_with_its_animation_turning_too():
    """Last frame's pose as animated; this frame the animation turns 4 degrees and the wanted pose
    is 20 degrees on the same way: the joint turns exactly 9 (the IK's rotation moves 5)."""
    limits = limiter()
    frame(limits, turned(5), turned(5))
    shown, held = frame(limits, turned(25), turned(9))
    assert held and degrees_between(shown, turned(5)) == pytest.approx(9.0, abs=0.05)


def test_a_first_joint_bent_first_this_frame_is_held_to_its_character_space_limit():
    """Not bent last frame: a limb's first joint whose IK rotation wants 20 degrees moves at most
    3 (30 degrees/s in Character space, 90 relative to its parent)."""
    limits, animated = limiter(net=30.0), turned(5)
    shown, held = frame(limits, turned(20, Z, animated), animated, turned(40, Z))
    assert held and degrees_between(shown, animated) == pytest.approx(3.0, abs=0.05)


# -- the scene view: target points, followed and cached; where the clip puts a joint down ----------

class StubWarp:
    """What SceneView reads of a playing Warp: its asset (phase names, track), each phase's
    target, the actor's scale, where the root must be at the phase end (`goal`, in the
    actor's parent's space) and the turn from the asset's model frame into the actor's skeleton."""

    def __init__(self, asset, target, goal, scale=1.0, into_skeleton=None):
        self.asset, self.targets, self.goal, self.scale = asset, [target] * len(asset.phases), goal, scale
        self.into_skeleton = into_skeleton

    def phase_goal(self, index):
        return self.goal


def _view(actor, render, warp):
    view = SceneView(actor, render, None, None, ContactIKSettings())
    view.start(warp)
    return view


def test_a_target_riding_a_platform_is_read_where_the_platform_is(warp_assets):
    """A hand's target rides a platform (turned 90 degrees): its point is the platform's point
    plus the offset turned with it, re-read after the platform moves."""
    asset = warp_assets["vault"]
    render = NodePath("render")
    platform, actor = render.attachNewNode("platform"), render.attachNewNode("actor")
    platform.setH(90)
    warp = StubWarp(asset, WarpTarget((0, 0, 1), follow=platform), (Point3(0, 0, 0), LQuaternionf.identQuat()))
    hand = Contact("hand_l", 0.5, 0.8, "target", phase=asset.phases[0].name, offset=(0.0, 0.1, 0.0), touchdown=(0, 0, 0))
    view = _view(actor, render, warp)
    point, _ = view.target_points(0, hand)
    assert (point - Point3(-0.1, 0, 1)).length() < 1e-5
    platform.setPos(1, 2, 0)
    point, _ = view.target_points(0, hand)
    assert (point - Point3(0.9, 2, 1)).length() < 1e-5


def test_where_the_warp_puts_a_hand_down_follows_the_actors_parent_and_scale(warp_assets):
    """The root's goal (0, 1, 0) in the parent's space, the hand 0.1, 0.2, 0.3 from it as authored:
    a parent at (2, 0, 0) gives (2.1, 1.2, 0.3) in the world; the parent moved, the point moves
    with it; at scale 2 the authored offset doubles."""
    asset = warp_assets["vault"]
    render = NodePath("render")
    ship = render.attachNewNode("ship")
    actor = ship.attachNewNode("actor")
    ship.setPos(2, 0, 0)
    warp = StubWarp(asset, WarpTarget((0, 0, 1)), (Point3(0, 1, 0), LQuaternionf.identQuat()))
    hand = Contact("hand_l", 0.5, 0.8, "target", phase=asset.phases[0].name, touchdown=(0.1, 0.2, 0.3))
    view = _view(actor, render, warp)
    assert (view.target_points(0, hand)[1] - Point3(2.1, 1.2, 0.3)).length() < 1e-5
    ship.setPos(3, 0, 0)
    assert (view.target_points(0, hand)[1] - Point3(3.1, 1.2, 0.3)).length() < 1e-5
    warp.scale = 2.0
    assert (view.target_points(0, hand)[1] - Point3(3.2, 1.4, 0.6)).length() < 1e-5


def test_where_the_clip_puts_a_joint_down_at_its_start_is_its_touchdown(warp_assets):
    """At the contact's own start the clip has the joint at its touchdown (authored in the root's
    frame): in the world, the actor's transform of it."""
    asset = warp_assets["vault"]
    render = NodePath("render")
    actor = render.attachNewNode("actor")
    actor.setPosHpr(1, 2, 0.5, 30, 0, 0)
    foot = max((contact for contact in asset.contacts if contact.touches == "surface"), key=lambda contact: contact.start)
    assert foot.start > 0.3   # the root has moved by then
    view = _view(actor, render, StubWarp(asset, WarpTarget((0, 0, 0)), None))
    expected = render.getRelativePoint(actor, Point3(*foot.touchdown))
    assert (view.ahead(foot, foot.start) - expected).length() < 1e-4


def test_a_touchdown_turns_with_a_skeleton_turned_from_the_files(warp_assets):
    """An actor whose skeleton is turned 90 degrees about its up axis from the file's (a character file's
    `turn`): the touchdown (0.1, 0.2, 0.3) measured on the file is (-0.2, 0.1, 0.3) in the actor's frame,
    both where the warp puts a hand down and where the clip puts a foot down at its start."""
    asset = warp_assets["vault"]
    render = NodePath("render")
    actor = render.attachNewNode("actor")
    turned = LMatrix4f.rotateMat(90.0, Vec3(0, 0, 1))
    warp = StubWarp(asset, WarpTarget((0, 0, 1)), (Point3(0, 1, 0), LQuaternionf.identQuat()), into_skeleton=turned)
    hand = Contact("hand_l", 0.5, 0.8, "target", phase=asset.phases[0].name, touchdown=(0.1, 0.2, 0.3))
    view = _view(actor, render, warp)
    assert (view.target_points(0, hand)[1] - Point3(-0.2, 1.1, 0.3)).length() < 1e-5
    foot = dataclasses.replace(hand, touches="surface", phase=None, start=0.0)
    assert (view.ahead(foot, 0.0) - Point3(-0.2, 0.1, 0.3)).length() < 1e-5


# -- the pose writer: limbs as the skeleton has them ------------------------------------------------

def test_the_pose_writer_finds_limbs_from_the_skeleton_and_names_what_it_cannot_use(base):
    """The mannequin's skeleton: root > hips > spine, hips > thigh_l > shin_l > foot_l. A limb
    ending at the spine hangs from the Character itself (no joint above its first); hips has no
    grandparent; a node with no Character is named."""
    actor = load_actor(MANNEQUIN)
    try:
        pose = PoseWriter(actor, base.render)
        assert pose.names("foot_l") == ("hips", "thigh_l", "shin_l", "foot_l")
        assert pose.names("spine") == (None, "root", "hips", "spine")
        chain = pose.chain("spine")
        assert chain[0] is None and [joint.getName() for joint in chain[1:]] == ["root", "hips", "spine"]
        with pytest.raises(UsageError, match="'hips' is not an end joint"):
            pose.chain("hips")
        with pytest.raises(UsageError, match="'crate' has no Character node"):
            PoseWriter(NodePath("crate"), base.render)
    finally:
        actor.cleanup()
        actor.removeNode()


def test_a_limbs_record_carries_its_joints_own_limits_and_whether_it_is_let_go(base):
    """The Limb a ContactIK hands its bender, read against the skeleton itself: the limb's three joints,
    its parent's net matrix (identity for a limb hanging from the Character), their animated locals,
    each joint's own turn limit this frame (its peak times the clip seconds played), the first joint's
    Character-space limit, and whether the limb is being let go."""
    actor = load_actor(MANNEQUIN)
    actor.reparentTo(base.render)
    actor.pose("vault", 10)
    ik = ContactIK(actor, None, taskmgr=base.taskMgr, render=base.render)
    try:
        limiter = ik._limiter
        limiter.peaks = {"upper_arm_l": 100.0, "forearm_l": 200.0, "hand_l": 300.0}
        limiter.net_peaks = {"upper_arm_l": 50.0}
        limiter.start_frame(0.01, 2.0)   # 0.02 clip seconds this frame
        limiter.letting_go = {"hand_l"}
        ik.pose.read()
        character = actor.find("**/+Character").node()
        limb = ik._limb("hand_l", Vec3(0, 0, 0.1), None, Vec3(0, 0, 1), 0.5)
        chest = LMatrix4f()
        character.findJoint("chest").getNetTransform(chest)
        assert limb.names == ("upper_arm_l", "forearm_l", "hand_l")
        assert limb.parent_net.almostEqual(chest, 1e-6)
        for anim, name in zip(limb.anims, limb.names):
            assert anim.almostEqual(character.findJoint(name).getValue(), 1e-6), name
        assert limb.most == pytest.approx((2.0, 4.0, 6.0)) and limb.most_net == pytest.approx(1.0)
        assert limb.letting_go is True and limb.weight == 0.5 and limb.move == Vec3(0, 0, 0.1)
        other = ik._limb("hand_r", Vec3(0, 0, 0), None, Vec3(0, 0, 1), 1.0)
        assert other.letting_go is False and other.most == (math.inf, math.inf, math.inf)
        assert ik._limb("spine", Vec3(0, 0, 0), None, Vec3(0, 0, 1), 1.0).parent_net == LMatrix4f.identMat()
    finally:
        ik.destroy()
        actor.cleanup()
        actor.removeNode()


# -- ContactIK's construction: what it defaults to and what it refuses ------------------------------

def test_contact_ik_defaults_to_the_showbase_render_and_names_what_it_refuses(base):
    """Without `render` and `taskmgr` it uses ShowBase's; an empty actor is refused; feet kept on
    the ground must hang from one pelvis: a 'foot' list with a hand names where each leg starts
    (chest, hips). Each ContactIK has its own task: destroying one leaves the other's."""
    actor = load_actor(MANNEQUIN)
    actor.reparentTo(base.render)
    ik = ContactIK(actor, None)
    try:
        assert ik.render == base.render and base.taskMgr.getTasksNamed(ik._task_name)
        with pytest.raises(UsageError, match="the actor is empty"):
            ContactIK(NodePath(), None, taskmgr=base.taskMgr)
        with pytest.raises(UsageError, match=r"feet foot_l, hand_r do not hang from one pelvis joint "
                                             r"\(their legs start at chest, hips\)"):
            ContactIK(actor, None, feet=("foot_l", "hand_r"), feet_on_ground=1, taskmgr=base.taskMgr)
        loose = ContactIK(actor, None, feet=("foot_l", "hand_r"), taskmgr=base.taskMgr)
        assert loose.pelvis is None and ik.pelvis == "hips"
        loose.destroy()
        assert base.taskMgr.getTasksNamed(ik._task_name) and not base.taskMgr.getTasksNamed(loose._task_name)
    finally:
        ik.destroy()
        actor.cleanup()
        actor.removeNode()
