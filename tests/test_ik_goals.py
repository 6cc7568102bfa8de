"""The contact IK's goal step on its own: plain data in (clip time, contacts, target points, surface
hits from a scripted world), {joint: (correction, weight)} out, no actor, no scene graph.

The oracle is the contract of docs/design.md 5.1 and README "Contact IK", computed here from the
test's own numbers: inside its window a contact moves its joint onto its target (or keeps a
planted foot where it touched down); before it, it eases in by the error the joint would land
with; after it, the last correction eases out; weights follow smoothstep over the blend time and
scale with the clip's share of the pose.
"""
import math
import pytest

from panda3d.core import Point3, Vec3

from motionwarp.base.config import ContactIKSettings
from motionwarp.ik.goals import (EASE_SPEED, PELVIS_ROLL, PELVIS_SPEED, ROLL_SPEED, ClipTime, ContactGoals, CycleTime,
                                PelvisRise)
from motionwarp.warp.contacts import Contact

BLEND = 0.2
HAND = Contact("hand_l", 0.5, 0.8, "target", phase="edge", offset=(0.0, 0.1, 0.0))
FOOT = Contact("foot_r", 1.0, 1.3, "surface", offset=(0.0, 0.0, 0.08))


def smooth(gap, blend=BLEND):
    x = 1.0 - gap / blend
    return x * x * (3.0 - 2.0 * x) if 0.0 <= x <= 1.0 else 0.0


class World:
    """A scripted scene: joints where the test puts them, one target, flat ground at `ground`."""

    def __init__(self, ground=0.25, surfaces=True):
        self.joints = {"hand_l": Point3(0.3, 0.9, 1.0), "foot_r": Point3(0.1, 1.2, 0.05)}
        self.target = Point3(0.3, 1.0, 1.1)      # where the hand must be
        self.touchdown = Point3(0.3, 0.95, 1.02)  # where the warp alone would put it
        self.ground, self.has_surfaces = ground, surfaces
        self.ahead_point = Point3(0.1, 1.3, 0.05)
        self.asked = []

    def animated(self, joint):
        return Point3(self.joints[joint])

    def animated_points(self, joints):
        return [self.animated(joint) for joint in joints]

    def target_points(self, index, contact):
        return Point3(self.target), Point3(self.touchdown)

    def surface_point(self, contact, where):
        self.asked.append(("surface", Point3(where)))
        return Point3(where.x, where.y, self.ground) + Vec3(*contact.offset)

    def ahead(self, contact, seconds):
        return Point3(self.ahead_point)

    def origin(self):
        return Point3(0, 0, 0)

    def drop(self, name, x, y, top, bottom):
        return self.ground if bottom <= self.ground <= top else None


def goals_at(step, seconds, world, share=1.0, contacts=(HAND, FOOT)):
    return step.step(1 / 60, ClipTime(contacts, seconds, share), world)


@pytest.fixture
def step():
    return ContactGoals(ContactIKSettings(ik_blend_time=BLEND), ("foot_l", "foot_r"))


def close(vec, expected):
    return (Vec3(vec) - Vec3(expected)).length() < 1e-6


def test_a_hand_eases_in_by_its_landing_error_then_holds_its_target(step):
    world = World()
    correction, weight = goals_at(step, 0.4, world)["hand_l"]
    assert weight == pytest.approx(smooth(0.1))
    assert close(correction, world.target - world.touchdown)
    correction, weight = goals_at(step, 0.6, world)["hand_l"]
    assert weight == 1.0 and close(correction, world.target - world.joints["hand_l"])


def test_nothing_before_a_contact_eases_in(step):
    assert goals_at(step, 0.29, World()) == {}


def test_it_rests_exactly_when_no_contact_weighs_anything(step):
    """`resting` (the caller then reads no joint) holds before the first contact eases in, between
    contacts once the last one has eased out (its held weight drops dt / blend a frame, so within
    one more blend time), and after the last; never while a contact eases in, holds or eases out.
    A resting frame's step returns nothing and asks the world nothing."""
    foot = Contact("foot_r", 1.5, 1.8, "surface", offset=(0.0, 0.0, 0.08))
    world, dt = World(), 1 / 60
    for frame in range(int(2.6 / dt)):
        seconds = frame * dt
        clip = ClipTime((HAND, foot), seconds, 1.0)
        resting = step.resting(clip)
        if seconds < HAND.start - BLEND or HAND.end + 2 * BLEND < seconds < foot.start - BLEND \
                or seconds > foot.end + 2 * BLEND:
            assert resting, seconds
        elif HAND.start - BLEND < seconds < HAND.end + BLEND or foot.start - BLEND < seconds < foot.end + BLEND:
            assert not resting, seconds
        asked = len(world.asked)
        goals = step.step(dt, clip, world)
        if resting:
            assert goals == {} and len(world.asked) == asked, seconds
    assert not ContactGoals(ContactIKSettings(ik_blend_time=BLEND, ik_feet_on_ground=1), ("foot_r",)).resting(None)


def test_it_does_not_rest_while_a_contact_cut_short_eases_out(step):
    """A warp ended inside a hand's window (no clip any more): its correction eases out over the
    blend time, so the goal step does not rest until its weight is gone."""
    world, dt = World(), 1 / 60
    goals_at(step, 0.6, world)
    for frame in range(1, 100):
        assert not step.resting(None), frame
        goals = step.step(dt, None, world)
        if "hand_l" not in goals:
            break
        assert goals["hand_l"][1] == pytest.approx(1.0 - frame * dt / BLEND)
    assert frame == pytest.approx(BLEND / dt, abs=1)
    assert step.resting(None) and step.step(dt, None, world) == {}


def test_a_hand_lets_go_from_its_last_correction_over_longer_when_it_is_large(step):
    world = World()
    world.target = Point3(0.3, 1.6, 1.1)     # 0.72 m away: eases out over 1.5 * 0.72 / EASE_SPEED s
    goals_at(step, 0.7, world)
    last = world.target - world.joints["hand_l"]
    world.joints["hand_l"] = Point3(0, 0, 2)  # the clip moves on; the correction does not follow it
    correction, weight = goals_at(step, 0.9, world)["hand_l"]
    assert close(correction, last)
    assert weight == pytest.approx(smooth(0.1, 1.5 * last.length() / EASE_SPEED))


def test_a_planted_foot_stays_where_it_touched_down(step):
    world = World()
    correction, weight = goals_at(step, 0.9, world)["foot_r"]   # easing in: under where the clip puts it
    assert weight == pytest.approx(smooth(0.1))
    assert close(correction, Point3(0.1, 1.3, 0.25 + 0.08) - world.ahead_point)
    goals_at(step, 1.05, world)
    planted = Point3(0.1, 1.2, 0.25 + 0.08)
    world.joints["foot_r"] = Point3(0.2, 1.4, 0.3)   # the animation slides it; the lock holds
    world.ground = 0.6                               # and a surface found later does not move it
    correction, weight = goals_at(step, 1.2, world)["foot_r"]
    assert weight == 1.0 and close(correction, planted - world.joints["foot_r"])


def test_a_planted_foot_that_slid_stays_where_it_slid(step):
    """The limb could not reach the lock and slid 0.15 m along the ground (replant): from then on
    the foot is held there, not pulled back to where it touched down once the hip is back in reach."""
    world = World()
    goals_at(step, 1.05, world)
    step.replant("foot_r", Vec3(0, 0.15, 0))
    step.replant("hand_l", Vec3(0, 0.5, 0))          # a joint with no planted contact: nothing to move
    correction, weight = goals_at(step, 1.2, world)["foot_r"]
    assert weight == 1.0 and close(correction, Point3(0.1, 1.35, 0.25 + 0.08) - world.joints["foot_r"])
    assert close(goals_at(step, 0.6, world)["hand_l"][0], world.target - world.joints["hand_l"])


def test_without_surfaces_a_surface_contact_has_no_goal(step):
    assert "foot_r" not in goals_at(step, 1.1, World(surfaces=False))


def test_weights_scale_with_the_clips_share_of_the_pose(step):
    correction, weight = goals_at(step, 0.6, World(), share=0.3)["hand_l"]
    assert weight == pytest.approx(0.3)


def test_a_goal_ended_early_eases_out_over_the_blend_time(step):
    """A warp that stops mid-contact: the joint's goal keeps its correction while its weight falls by dt / blend."""
    world = World()
    before = goals_at(step, 0.6, world)["hand_l"]
    after = step.step(1 / 60, None, world)["hand_l"]
    assert close(after[0], before[0]) and after[1] == pytest.approx(1.0 - (1 / 60) / BLEND)


def test_the_pelvis_goes_as_low_as_the_lowest_foot_and_rises_only_with_both():
    rise = PelvisRise(("foot_l", "foot_r"))
    down = {"foot_l": (Vec3(0, 0, -0.2), 1.0), "foot_r": (Vec3(0, 0, 0.1), 1.0)}
    assert rise.step(down, {}, 1 / 60, 0.0) == pytest.approx(-0.2)
    one_up = {"foot_l": (Vec3(0, 0, 0.3), 1.0)}
    assert rise.step(one_up, {}, 1 / 60, 0.0) == 0.0
    assert PelvisRise(()).step(down, {}, 1 / 60, 0.0) == 0.0   # no pelvis: never moves


def test_a_foot_going_down_extends_its_leg_before_the_pelvis_drops():
    """A bent leg (hip 1.0 m, knee 0.55 m and 0.2 m ahead, ankle 0.1 m: bones 0.985 m, so it
    stretches to 95 % of them, 0.936 m, longer than its animated 0.9 m span): a goal 3 cm down is
    within that and the pelvis stays; 10 cm down, or 10 cm down and 0.2 m aside, the pelvis drops
    only as far as the leg cannot reach; the other foot, a goal up, asks nothing of it (lowest wins)."""
    leg = (Point3(0, 0, 1.0), Point3(0, 0.2, 0.55), Point3(0, 0, 0.1))
    reach = 0.95 * 2 * math.hypot(0.2, 0.45)
    up = (Vec3(0, 0, 0.05), 1.0)
    for move, expected in ((Vec3(0, 0, -0.03), 0.0), (Vec3(0, 0, -0.1), reach - 1.0),
                           (Vec3(0.2, 0, -0.1), math.sqrt(reach * reach - 0.04) - 1.0),
                           (Vec3(0, -0.2, -0.1), math.sqrt(reach * reach - 0.04) - 1.0)):
        goals = {"foot_l": (move, 1.0), "foot_r": up}
        rise = PelvisRise(("foot_l", "foot_r")).step(goals, {}, 1 / 60, 0.0, {"foot_l": leg})
        assert rise == pytest.approx(expected, abs=1e-6), move
    half = {"foot_l": (Vec3(0, 0, -0.2), 0.5), "foot_r": up}   # at half weight: 10 cm down
    assert PelvisRise(("foot_l", "foot_r")).step(half, {}, 1 / 60, 0.0, {"foot_l": leg}) == pytest.approx(reach - 1.0)
    # a leg animated straight (reach: 99.95 % of it, shorter than its span): never further than its goal
    straight = (Point3(0, 0, 1.0), Point3(0, 0, 0.55), Point3(0, 0, 0.1))
    one_cm = {"foot_l": (Vec3(0, 0, -0.01), 1.0), "foot_r": up}
    assert PelvisRise(("foot_l", "foot_r")).step(one_cm, {}, 1 / 60, 0.0, {"foot_l": straight}) == pytest.approx(-0.01)


def test_a_planted_foot_the_body_moved_away_from_keeps_the_pelvis_from_rising_out_of_its_reach():
    """Both feet want the pelvis 10 cm up, but foot_l's goal lies 0.4 m behind its hip (the warp carried
    the body on over it): the pelvis rises only as far as leaves that goal at the leg's reach (95 % of
    its bones, longer than its animated 0.9 m span) from the raised hip, so the foot stays planted
    rather than sliding. 0.6 m behind nothing lets it reach: the pelvis stays where it is animated,
    never lower for it. A foot going down is unaffected (the lowest foot still wins)."""
    leg = (Point3(0, 0, 1.0), Point3(0, 0.2, 0.55), Point3(0, 0, 0.1))
    reach = 0.95 * 2 * math.hypot(0.2, 0.45)
    up = (Vec3(0, 0, 0.1), 1.0)
    for behind in (0.0, 0.4, 0.6):
        goals = {"foot_l": (Vec3(0, -behind, 0.1), 1.0), "foot_r": up}
        rise = PelvisRise(("foot_l", "foot_r")).step(goals, {}, 1 / 60, 0.0, {"foot_l": leg})
        goal, hip = Point3(0, -behind, 0.2), Point3(0, 0, 1.0 + rise)
        if behind == 0.0:
            assert rise == pytest.approx(0.1)
        elif behind == 0.4:
            assert 0.0 < rise < 0.1 and (goal - hip).length() == pytest.approx(reach, abs=1e-6)
        else:
            assert rise == 0.0 and (goal - hip).length() > reach
    down = {"foot_l": (Vec3(0, -0.6, 0.1), 1.0), "foot_r": (Vec3(0, 0, -0.2), 1.0)}
    assert PelvisRise(("foot_l", "foot_r")).step(down, {}, 1 / 60, 0.0, {"foot_l": leg}) == pytest.approx(-0.2)


def test_the_pelvis_follows_a_planted_foot_without_lag_at_up_to_its_speed():
    """A root the warp lifts under a planted foot (0.3 m over 0.3 s): the pelvis goes down with it
    frame for frame (an exponential ease lagged 5 cm behind, lifting the foot); a goal jumping
    0.5 m is followed at PELVIS_SPEED, and the pelvis comes back at once when the feet let go."""
    rise, dt = PelvisRise(("foot_l", "foot_r")), 1 / 30
    for frame in range(1, 10):
        down = -0.3 * frame / 9
        goals = {"foot_l": (Vec3(0, 0, down), 1.0), "foot_r": (Vec3(0, 0, 0.05), 1.0)}
        assert rise.step(goals, {}, dt, 0.15) == pytest.approx(down, abs=1e-6)
    jump = {"foot_l": (Vec3(0, 0, -0.8), 1.0), "foot_r": (Vec3(0, 0, 0.0), 1.0)}
    assert rise.step(jump, {}, dt, 0.15) == pytest.approx(-0.3 - PELVIS_SPEED * dt, abs=1e-6)
    assert rise.step({}, {}, dt, 0.15) == 0.0


# -- found by mutation testing (issue 18): boundaries, what was reached, feet on ground, the pelvis --

def test_a_contact_holds_from_the_first_instant_of_its_window(step):
    """The window is [start, end]: at exactly `start` the hand is on its target (not shifted by its
    landing error) and the foot is planted under where it is then, not under where the clip
    would put it, and stays there."""
    world = World()
    world.joints["foot_r"] = Point3(0.1, 1.2, 0.1)
    correction, weight = goals_at(step, HAND.start, world)["hand_l"]
    assert weight == 1.0 and close(correction, world.target - world.joints["hand_l"])
    planted = Point3(0.1, 1.2, 0.25 + 0.08)
    correction, weight = goals_at(step, FOOT.start, world)["foot_r"]
    assert weight == 1.0 and close(correction, planted - world.joints["foot_r"])
    world.joints["foot_r"] = Point3(0.2, 1.4, 0.3)
    assert close(goals_at(step, 1.1, world)["foot_r"][0], planted - world.joints["foot_r"])


def test_a_frame_from_the_start_of_a_window_to_past_its_end_eases_out_what_it_held(step):
    """A hitch: one frame at exactly `start`, the next past `end`. The correction held at the
    start eases out; it does not follow the clip's new pose."""
    world = World()
    goals_at(step, HAND.start, world)
    last = world.target - world.joints["hand_l"]
    world.joints["hand_l"] = Point3(0, 0, 2)
    correction, weight = goals_at(step, HAND.end + 0.05, world)["hand_l"]
    assert close(correction, last) and weight == pytest.approx(smooth(0.05))


def test_what_the_limb_reached_is_what_eases_out(step):
    """A target the limb only got part way to (ContactIK reports the move it achieved with
    `reached`): after the window, and when the warp stops inside it, the correction that eases
    out is the one reached, so the joint lets go from where it is."""
    world, reached = World(), Vec3(0.0, 0.04, 0.03)
    goals_at(step, 0.7, world)
    step.reached("hand_l", reached)
    correction, weight = goals_at(step, HAND.end + 0.05, world)["hand_l"]
    assert close(correction, reached) and weight == pytest.approx(smooth(0.05))
    stopped = ContactGoals(ContactIKSettings(ik_blend_time=BLEND), ("foot_l", "foot_r"))
    goals_at(stopped, 0.7, world)
    stopped.reached("hand_l", reached)
    correction, weight = stopped.step(1 / 60, None, world)["hand_l"]
    assert close(correction, reached) and weight == pytest.approx(1.0 - (1 / 60) / BLEND)


class NothingAhead(World):
    """No surface under where the clip will put the foot down (it lands past an edge)."""

    def surface_point(self, contact, where):
        return None


def test_a_foot_easing_in_toward_no_surface_has_no_goal(step):
    assert "foot_r" not in goals_at(step, FOOT.start - 0.1, NothingAhead(), contacts=(FOOT,))


class Terrain(World):
    """Ground whose height depends on where: `height(x, y)` (None over a hole); the character's
    origin at `origin_point`; two feet 0.2 m apart across."""

    def __init__(self, height, origin=Point3(0, 0, 0)):
        super().__init__()
        self.height, self.origin_point = height, Point3(origin)
        self.joints.update({"foot_l": Point3(-0.1, 0, origin.z + 0.05), "foot_r": Point3(0.1, 0, origin.z + 0.05)})

    def origin(self):
        return Point3(self.origin_point)

    def drop(self, name, x, y, top, bottom):
        z = self.height(x, y)
        return z if z is not None and bottom <= z <= top else None


def grounded(blend=BLEND):
    return ContactGoals(ContactIKSettings(ik_blend_time=blend, ik_feet_on_ground=1), ("foot_l", "foot_r"))


def test_feet_on_ground_keep_each_foot_above_what_is_under_it():
    """Standing on a platform 0.5 m up whose right half steps down 0.1 m: the left foot stays as
    animated, the right one goes down 0.1 m (straight down, at once with no blend time); a foot
    over a hole is left as animated."""
    world = Terrain(lambda x, y: 0.5 if x < 0.05 else 0.4, origin=Point3(0, 0, 0.5))
    goals = grounded(0.0).step(1 / 60, None, world)
    assert close(goals["foot_l"][0], Vec3(0, 0, 0)) and goals["foot_l"][1] == 1.0
    assert close(goals["foot_r"][0], Vec3(0, 0, -0.1)) and goals["foot_r"][1] == 1.0
    hole = Terrain(lambda x, y: 0.5 if x < 0.05 else None, origin=Point3(0, 0, 0.5))
    hole.joints["foot_l"] = Point3(-0.1, 0, 0.4)
    hole_step = grounded(0.0)
    hole.height = lambda x, y: 0.45 if x < 0.05 else None   # the left foot's ground 5 cm lower
    goals = hole_step.step(1 / 60, None, hole)
    assert close(goals["foot_l"][0], Vec3(0, 0, -0.05)) and close(goals["foot_r"][0], Vec3(0, 0, 0))


def test_feet_on_ground_ease_in_over_the_blend_time_and_never_overshoot():
    """The ground's correction (here 0.1 m down for both feet) eases in by dt / blend of what is
    left each frame; a frame longer than the blend time lands exactly on it."""
    world = Terrain(lambda x, y: -0.1 if abs(x) > 0.05 else 0.0)
    dt, step = 1 / 60, grounded()
    assert close(step.step(dt, None, world)["foot_r"][0], Vec3(0, 0, -0.1 * dt / BLEND))
    step = grounded()
    assert close(step.step(2.5 * BLEND, None, world)["foot_l"][0], Vec3(0, 0, -0.1))


def test_feet_on_ground_cost_nothing_on_flat_ground():
    assert grounded().step(1 / 60, None, Terrain(lambda x, y: 0.0)) == {}


def test_a_planted_foot_eases_from_its_contact_onto_the_ground_without_a_jump():
    """The warp stops while the right foot is planted 0.17 m below where it is animated; with feet
    kept on the ground (0.05 m up, eased in already) the foot goes from its contact's correction
    to the ground's within the blend time: every frame between the two, none jumping more than a
    few times (dt / blend) of the gap, the last one with the contact next to the ground's."""
    world = Terrain(lambda x, y: 0.05)
    world.ground = 0.05                              # what surface_point finds under the foot
    world.joints["foot_r"] = Point3(0.1, 1.2, 0.3)
    step, dt = grounded(), 1 / 60
    step.step(1.0, None, world)                      # the ground's correction is in: 0.05 up
    held = goals_at(step, 1.1, world)["foot_r"]
    contact, ground = held[0].z, 0.05
    assert contact == pytest.approx(0.05 + 0.08 - 0.3) and held[1] == 1.0
    gap, previous = ground - contact, contact
    for frame in range(1, 40):
        correction, weight = step.step(dt, None, world)["foot_r"]
        assert weight == 1.0 and correction.x == 0.0 and correction.y == 0.0
        assert contact - 1e-6 <= correction.z <= ground + 1e-6, frame
        assert abs(correction.z - previous) <= 3 * dt / BLEND * gap, frame
        previous = correction.z
        if correction.z == pytest.approx(ground, abs=1e-9):
            break
    assert frame == pytest.approx(BLEND / dt, abs=1)


def test_a_foot_on_flat_ground_still_lets_go_of_a_contact_easing_out():
    """On flat ground, a foot whose warp contact still eases out blends from that contact toward
    the ground (weight 1: the held correction times its weight twice), never keeps the contact's
    own weight as if no ground were kept."""
    world = Terrain(lambda x, y: 0.0)
    world.ground = 0.0
    world.joints["foot_r"] = Point3(0.1, 1.2, 0.2)
    step, dt = grounded(), 1 / 60
    held, _ = goals_at(step, 1.1, world)["foot_r"]
    assert held.z == pytest.approx(0.08 - 0.2)
    correction, weight = step.step(dt, None, world)["foot_r"]
    left = 1.0 - dt / BLEND
    assert weight == 1.0 and correction.z == pytest.approx(held.z * left * left)


def test_a_foot_a_cycle_planted_lets_go_after_the_cycle_stops():
    """A locomotion cycle plants the left foot: the sole stays where it touched down while the
    animation slides it 3 cm; when no cycle plays any more (the next frame), that correction eases
    out linearly over the blend time instead of vanishing at once."""
    world = Terrain(lambda x, y: 0.0)
    world.joints["sole_l"] = Point3(-0.1, 0.0, 0.0)
    step, dt = grounded(), 1 / 60
    cycle = (("foot_l", "sole_l", 0.0, 0.5),)
    step.step(dt, None, world, CycleTime(cycle, 0.1))
    world.joints["sole_l"] = Point3(-0.1, 0.03, 0.0)
    correction, weight = step.step(dt, None, world, CycleTime(cycle, 0.2))["foot_l"]
    assert weight == 1.0 and close(correction, Vec3(0, -0.03, 0))
    correction, weight = step.step(dt, None, world, None)["foot_l"]
    assert weight == 1.0 and close(correction, Vec3(0, -0.03 * (1.0 - dt / BLEND), 0))


def test_the_pelvis_moves_up_and_across_its_animated_place_at_up_to_its_speed():
    """Feet wanting the body 0.5 m up at once: it rises at PELVIS_SPEED while contacts blend;
    from 0.1 m up to 0.1 m down it moves at that speed too (not a jump across); a rise under
    a millimetre is none; after a rest it starts again from its animated place."""
    rise, dt = PelvisRise(("foot_l", "foot_r")), 1 / 30
    up = {"foot_l": (Vec3(0, 0, 0.5), 1.0), "foot_r": (Vec3(0, 0, 0.5), 1.0)}
    assert rise.step(up, {}, dt, 0.15) == pytest.approx(PELVIS_SPEED * dt, abs=1e-6)
    rise.rise = 0.1
    down = {"foot_l": (Vec3(0, 0, -0.1), 1.0), "foot_r": (Vec3(0, 0, 0.2), 1.0)}
    assert rise.step(down, {}, dt, 0.15) == pytest.approx(0.1 - PELVIS_SPEED * dt, abs=1e-6)
    tiny = {"foot_l": (Vec3(0, 0, 0.0005), 1.0), "foot_r": (Vec3(0, 0, 0.0005), 1.0)}
    assert PelvisRise(("foot_l", "foot_r")).step(tiny, {}, dt, 0.0) == 0.0
    rise.rest()
    assert rise.step(up, {}, dt, 0.15) == pytest.approx(PELVIS_SPEED * dt, abs=1e-6)


def rolled_hip(hip, pivot, rise):
    """Where `hip` (world) goes when the pelvis at `pivot` rolls by `rise.roll` degrees about
    `rise.axis` (Rodrigues' formula, right-handed as Panda3D turns) and then rises by `rise.rise`."""
    v, axis, angle = hip - pivot, rise.axis, math.radians(rise.roll)
    turned = v * math.cos(angle) + axis.cross(v) * math.sin(angle) + axis * axis.dot(v) * (1.0 - math.cos(angle))
    return pivot + turned + Vec3(0, 0, rise.rise)


def straight_leg(x, y=0.0):
    """A leg animated straight from its hip at (`x`, `y`, 1.0 m) to its ankle 0.9 m lower, slanting 0.04 m
    in toward x = 0.3 and 0.2 m ahead: it cannot reach lower."""
    inward = -0.04 if x > 0.3 else 0.04
    return (Point3(x, y, 1.0), Point3(x + inward / 2, y + 0.1, 0.55), Point3(x + inward, y + 0.2, 0.1))


#: The pelvis of the legs below: 0.3 m off the origin, turned so its hips are 0.04 m apart along y too.
PIVOT = Point3(0.3, 0.0, 1.0)
LEGS = {"foot_l": straight_leg(0.2, -0.02), "foot_r": straight_leg(0.4, 0.02)}


def test_a_pelvis_over_two_heights_rolls_so_the_lower_foot_s_hip_drops_less():
    """Feet on a ridge and in a furrow (straight legs, hips about 0.1 m either side of the pelvis): the pelvis
    rolls about the level axis across its hips to lower the furrow foot's hip and raise the other's, so the
    hips drop less than the furrow is deep. 2 cm deep: it rolls until both hips are about where their feet
    want them (the pelvis about 1 cm down); 11 cm: it rolls its most, PELVIS_ROLL, and drops what is left;
    the ridge foot asking 20 cm up: it rolls only until the furrow hip is low enough, never lifting the
    pelvis. In each, the furrow foot's goal is at its straight leg's length from the rolled, lowered hip
    and the ridge foot's within it. The same with the furrow under the other foot, the roll the other way."""
    across = LEGS["foot_r"][0] - LEGS["foot_l"][0]
    half = across.length() / 2
    span = (LEGS["foot_l"][2] - LEGS["foot_l"][0]).length()
    for furrow, ridge, hips in ((-0.02, 0.0, -0.01), (-0.11, 0.0, None), (-0.02, 0.2, 0.0)):
        for (lower, upper), weight in ((("foot_l", "foot_r"), 1.0), (("foot_r", "foot_l"), 1.0),
                                       (("foot_l", "foot_r"), 0.5)):   # half weight: goals twice as far
            goals = {lower: (Vec3(0, 0, furrow / weight), weight), upper: (Vec3(0, 0, ridge / weight), weight)}
            rise = PelvisRise(("foot_l", "foot_r"))
            moved = rise.step(goals, {}, 1 / 30, 0.0, LEGS, PIVOT)
            assert moved == pytest.approx(rise.rise, abs=1e-3) and rise.rise <= 0.0   # 0 when under a millimetre
            low, high = ((LEGS[foot][2] + goals[foot][0] * weight - rolled_hip(LEGS[foot][0], PIVOT, rise)).length()
                         for foot in (lower, upper))
            assert low == pytest.approx(span, abs=1e-3) and high <= span + 1e-6, (furrow, ridge, lower)
            if hips is None:
                assert abs(rise.roll) == pytest.approx(PELVIS_ROLL)
                assert moved == pytest.approx(furrow + half * math.sin(math.radians(PELVIS_ROLL)), abs=2e-3)
            else:
                assert moved == pytest.approx(hips, abs=1e-3)
            assert abs(rise.axis.z) < 1e-9 and abs(rise.axis.dot(across)) < 1e-6   # level, across the hips


def test_a_pelvis_rolls_only_for_two_legs_one_wanting_it_down_whose_hip_a_roll_lowers():
    """Level feet, both feet wanting it up, one leg, no pivot, two legs from one hip, or the lower foot's
    hip under the pivot: no roll."""
    level = {"foot_l": (Vec3(0, 0, -0.05), 1.0), "foot_r": (Vec3(0, 0, -0.05), 1.0)}
    uneven = {"foot_l": (Vec3(0, 0, -0.11), 1.0), "foot_r": (Vec3(0, 0, 0.0), 1.0)}
    up = {"foot_l": (Vec3(0, 0, 0.05), 1.0), "foot_r": (Vec3(0, 0, 0.2), 1.0)}
    one_hip = {"foot_l": straight_leg(0.2), "foot_r": straight_leg(0.2)}
    for goals, legs, pivot in ((level, LEGS, PIVOT), (up, LEGS, PIVOT), ({"foot_l": uneven["foot_l"]},
                               {"foot_l": LEGS["foot_l"]}, PIVOT), (uneven, LEGS, None), (uneven, one_hip, PIVOT),
                               (uneven, LEGS, LEGS["foot_l"][0])):
        rise = PelvisRise(("foot_l", "foot_r"))
        rise.step(goals, {}, 1 / 30, 0.0, legs, pivot)
        assert rise.roll == 0.0


def test_the_pelvis_rolls_away_from_level_at_up_to_its_speed_and_back_at_once():
    for lower, upper in (("foot_l", "foot_r"), ("foot_r", "foot_l")):
        furrow = {lower: (Vec3(0, 0, -0.11), 1.0), upper: (Vec3(0, 0, 0.0), 1.0)}
        rise, dt = PelvisRise(("foot_l", "foot_r")), 1 / 30
        rolls = []
        for _ in range(8):
            rise.step(furrow, {}, dt, 0.15, LEGS, PIVOT)
            rolls.append(abs(rise.roll))
        assert rolls[0] == pytest.approx(ROLL_SPEED * dt) and rolls[-1] == pytest.approx(PELVIS_ROLL)
        assert all(b - a <= ROLL_SPEED * dt + 1e-9 for a, b in zip(rolls, rolls[1:]))
        half = (LEGS["foot_r"][0] - LEGS["foot_l"][0]).length() / 2
        rise.step({lower: (Vec3(0, 0, -0.01), 1.0), upper: (Vec3(0, 0, 0.0), 1.0)}, {}, dt, 0.15, LEGS, PIVOT)
        assert abs(rise.roll) == pytest.approx(math.degrees(math.asin(0.005 / half)), abs=1e-3)   # back at once
        assert rise.turn is not None
        rise.rest()
        assert rise.roll == 0.0 and rise.axis is None and rise.turn is None


def test_a_hand_in_contact_bounds_the_pelvis_as_its_weight_eases_in():
    """An arm hanging down (shoulder 1.4 m, elbow 1.1 m and 5 cm ahead, hand 0.8 m under the
    shoulder: bones 0.608 m together, so its reach is its animated span, 0.6 m, longer than 95%
    of them: design 9, the animation is straighter than STRETCH) whose goal is
    0.1 m lower: the pelvis may go no higher than 0.1 m down, or the hand leaves its goal. At
    the hand's full weight that is the rise; at half weight, half way from what the feet want."""
    feet = {"foot_l": (Vec3(0, 0, 0.2), 1.0), "foot_r": (Vec3(0, 0, 0.2), 1.0)}
    arm = {"hand_l": (Point3(0, 0, 1.4), Point3(0, 0.05, 1.1), Point3(0, 0, 0.8))}
    for weight in (1.0, 0.5):
        goals = dict(feet, hand_l=(Vec3(0, 0, -0.1 / weight), weight))   # the hand's move: 0.1 m down
        bound = -0.1
        expected = 0.2 + (bound - 0.2) * weight
        assert PelvisRise(("foot_l", "foot_r")).step(goals, arm, 1 / 30, 0.0) == pytest.approx(expected, abs=1e-6)


def test_a_large_correction_easing_out_past_the_blend_time_keeps_the_goal_step_awake(step):
    """A hand 0.72 m off its clip pose lets go over 1.5 * 0.72 / EASE_SPEED s, longer than the
    blend time: past end + blend its goal still eases out (no jump back to the clip), and the
    goal step does not rest until it is gone."""
    world = World()
    world.target = Point3(0.3, 1.6, 1.1)
    goals_at(step, 0.7, world, contacts=(HAND,))
    last = world.target - world.joints["hand_l"]
    ease_out = 1.5 * last.length() / EASE_SPEED
    seconds = HAND.end + BLEND + 0.05
    assert ease_out > BLEND + 0.1 and not step.resting(ClipTime((HAND,), seconds, 1.0))
    correction, weight = goals_at(step, seconds, world, contacts=(HAND,))["hand_l"]
    assert close(correction, last) and weight == pytest.approx(smooth(BLEND + 0.05, ease_out))


def test_a_clip_showing_nothing_of_the_pose_rests(step):
    assert step.resting(ClipTime((HAND, FOOT), 0.6, 0.0))


def test_a_goal_cut_short_eases_out_beside_one_still_held(step):
    """The clip time jumps from inside both windows to where only the foot's holds: the hand's
    goal eases out over the blend time while the foot's stays planted; with no blend time it
    goes at once."""
    foot = Contact("foot_r", 0.4, 1.0, "surface", offset=(0.0, 0.0, 0.08))
    world, dt = World(), 1 / 60
    goals_at(step, 0.6, world, contacts=(foot, HAND))
    goals_at(step, 0.6 + dt, world, contacts=(foot, HAND))
    goals = step.step(dt, ClipTime((foot,), 0.9, 1.0), world)
    assert goals["foot_r"][1] == 1.0 and goals["hand_l"][1] == pytest.approx(1.0 - dt / BLEND)
    at_once = ContactGoals(ContactIKSettings(ik_blend_time=0.0), ())
    goals_at(at_once, 0.6, world)
    assert at_once.step(dt, None, world) == {}


def test_contacts_listed_out_of_order_each_count(step):
    """Contacts in any order: a later one not easing in yet, or one with no surface under it,
    does not hide the others."""
    assert "hand_l" in goals_at(step, 0.6, World(), contacts=(FOOT, HAND))
    fresh = ContactGoals(ContactIKSettings(ik_blend_time=BLEND), ())
    later = Contact("hand_l", 1.0, 1.3, "target", phase="edge")
    assert "hand_l" in goals_at(fresh, 1.1, World(surfaces=False), contacts=(FOOT, later))


def test_the_window_holds_to_its_last_instant_and_what_was_reached_there_eases_out(step):
    """At exactly `end` the hand is on its target as the clip has it then (not last frame's
    correction); what the limb reached at `start` or at `end` is what eases out after."""
    world = World()
    goals_at(step, 0.7, world)
    world.joints["hand_l"] = Point3(0.3, 0.8, 0.9)
    assert close(goals_at(step, HAND.end, world)["hand_l"][0], world.target - world.joints["hand_l"])
    for at in (HAND.start, HAND.end):
        fresh, reached = ContactGoals(ContactIKSettings(ik_blend_time=BLEND), ()), Vec3(0.0, 0.02, 0.05)
        goals_at(fresh, at, world)
        fresh.reached("hand_l", reached)
        assert close(goals_at(fresh, HAND.end + 0.05, world)["hand_l"][0], reached), at


class TwoTargets(World):
    """A target per contact index."""

    def target_points(self, index, contact):
        target = Point3(0.3, 1.0, 1.1) if index == 0 else Point3(0.5, 1.2, 1.3)
        return target, Point3(self.touchdown)


def test_overlapping_contacts_of_one_joint_average_by_weight(step):
    """Two hand contacts whose windows overlap: inside both the hand goes half way between its two
    targets at full weight (not beyond); while the second eases in (weight w), the weighted mean."""
    second = Contact("hand_l", 0.7, 1.0, "target", phase="edge")
    world, hand = TwoTargets(), Point3(0.3, 0.9, 1.0)
    both = (HAND, second)
    correction, weight = goals_at(step, 0.75, world, contacts=both)["hand_l"]
    first_target, second_target = Point3(0.3, 1.0, 1.1), Point3(0.5, 1.2, 1.3)
    assert weight == 1.0 and close(correction, (first_target + second_target) * 0.5 - hand)
    fresh = ContactGoals(ContactIKSettings(ik_blend_time=BLEND), ())
    correction, weight = goals_at(fresh, 0.6, world, contacts=both)["hand_l"]
    w = smooth(0.1)
    assert weight == 1.0
    assert close(correction, ((first_target - hand) + (second_target - world.touchdown) * w) / (1.0 + w))
