"""Contact IK on generated irregular props (tests/props.py), turned and approached from afar.

Each case: the providers find the interaction over the prop, the real MotionWarper plays it with
the contact IK, and the joints' real positions are compared with the prop's own surface (from
the numbers it was built from, never the probe) and the mannequin's authored contacts.
Targets (issue 18): planted soles never more than 1 cm below or 2 cm above what they stand on.
"""
import pytest
from panda3d.core import Point3, Vec3

from motionwarp.ik.twobone import slide_within_reach

from .contact_helpers import ContactRun
from .props import PropLevel, props

BLEND = 0.15
PROPS = {prop.name: prop for prop in props()}


@pytest.fixture
def assets(warp_assets):
    return list(warp_assets.values())


_RUNS = {}


def run(base, assets, name, distance, fps, heading):
    key = (name, distance, fps, heading)
    if key not in _RUNS:
        level = PropLevel(base.render, PROPS[name], distance, heading)
        _RUNS[key] = level, ContactRun(base, level, assets, fps, heading=heading, blend_time=BLEND)
    return _RUNS[key]


STRETCHED = [("crate1.0", 2.0, 30, 0.0), ("crate1.0", 1.5, 144, 301.0), ("crate1.4", 2.0, 144, 143.0),
             ("crate1.4", 1.0, 30, 210.0), ("stack", 1.0, 30, 90.0), ("log", 2.0, 144, 301.0),
             ("sloped-lid", 2.0, 144, 37.0), ("scaled-crate", 2.0, 30, 210.0)]


@pytest.mark.parametrize("name, distance, fps, heading", STRETCHED,
                         ids=[f"{n}-{d}m-{f}fps-h{h:.0f}" for n, d, f, h in STRETCHED])
def test_planted_feet_stay_on_what_they_stand_on(base, assets, name, distance, fps, heading):
    """Approached from up to 2 m (the warp stretches the run-up past the legs' reach) and over a
    1.4 m crate (the warp lifts the root before the jump): the feet slide or the pelvis lowers,
    the soles never leave the ground (they rose 10 to 57 cm before)."""
    level, with_ik = run(base, assets, name, distance, fps, heading)
    assert with_ik.finished
    low, high = with_ik.foot_gaps(level)
    assert low >= -0.01 and high <= 0.02, (low, high)


def test_a_goal_out_of_reach_slides_along_the_level_plane():
    """From the geometry: a hip 1 m above the ground, a leg reaching 1 m, a foot planted 0.9 m
    ahead: it slides toward under the hip until exactly 1 m away, staying on the ground."""
    hip, up = Point3(0, 0, 1), Vec3(0, 0, 1)
    slid = slide_within_reach(hip, Point3(0.9, 0.3, 0), 1.2, up)
    assert slid.z == pytest.approx(0.0, abs=1e-6)
    assert (slid - hip).length() == pytest.approx(1.2, abs=1e-5)
    assert slid.y / slid.x == pytest.approx(0.3 / 0.9, abs=1e-5)   # along the line toward under the hip
    assert slide_within_reach(hip, Point3(0.3, 0, 0.2), 1.2, up) == Point3(0.3, 0, 0.2)   # in reach: kept
    assert slide_within_reach(hip, Point3(0.5, 0, -0.5), 1.2, up) == Point3(0, 0, -0.5)   # nothing reaches
    tilted = Vec3(0, 1, 1).normalized()   # a Character turned: the plane is the world's level, not z = 0
    slid = slide_within_reach(Point3(0, 0, 0), Point3(0, 3, 0), 2.5, tilted)
    assert (slid - Point3(0, 3, 0)).dot(tilted) == pytest.approx(0.0, abs=1e-6)
    assert slid.length() == pytest.approx(2.5, abs=1e-5)


HANDS = [("log", 1.0, 144, 37.0), ("sloped-lid", 1.5, 30, 210.0), ("stone-top", 0.5, 144, 37.0),
         ("plank-table", 2.0, 144, 301.0), ("lid-crate2.0", 0.5, 30, 210.0)]


@pytest.mark.parametrize("name, distance, fps, heading", HANDS,
                         ids=[f"{n}-{d}m-{f}fps-h{h:.0f}" for n, d, f, h in HANDS])
def test_planted_hands_rest_on_the_surface_under_them(base, assets, name, distance, fps, heading):
    """Each planted hand at its authored palm height above the prop's own surface under it, within
    1.5 cm (were 36 to 40 mm on the log and sloped lid, 16 on the stone, 300 on the stack)."""
    level, with_ik = run(base, assets, name, distance, fps, heading)
    assert with_ik.finished
    gap, off = with_ik.hand_gap(level)
    assert off == 0 and gap < 0.015, (gap, off)


def test_a_hand_over_a_step_beyond_its_reach_keeps_the_warps_target(base, assets):
    """The stack's vault top is its upper box (1.3 m); one hand lands over the lower box, 30 cm
    down, beyond the 15 cm the IK looks into a surface (motionwarp-ik-surface-reach): that hand
    stays at the top's height, where the warp puts it, and the other rests on the upper box
    within 1.5 cm (the heights from the prop's own numbers)."""
    level, with_ik = run(base, assets, "stack", 1.0, 30, 90.0)
    assert with_ik.finished
    top = max(part.z0 + part.height for part in PROPS["stack"].parts)
    on_top = kept = 0
    for palm, pos, touch in with_ik.touching("hand"):
        under = level.surface(touch.x, touch.y)
        wanted = under if top - under <= 0.15 else top
        assert abs(pos.z - palm - wanted) < 0.015, (pos.z - palm, under, top)
        on_top, kept = on_top + (wanted == under), kept + (wanted == top and under < top)
    assert on_top and kept


@pytest.mark.parametrize("heading", [90.0, 210.0])
def test_hands_sit_at_their_offsets_in_the_targets_frame(base, assets, heading):
    """Over a 1 m crate turned with the character: each planted hand within 1 cm of where it was
    authored relative to the close edge (mannequin.contacts.json), turned by the heading (the
    asset's offsets are in the target's frame: applied in the world's they put the hands
    0.2 to 0.4 m off)."""
    from .contact_helpers import truth
    level, with_ik = run(base, assets, "crate1.0", 1.0, 30, heading)
    clip = truth(with_ik.asset.clip)
    near, top = clip["obstacle"]["min"][1], clip["obstacle"]["max"][2]
    turn = base.render.attachNewNode("turn")
    turn.setH(heading)
    hands = [contact for contact in clip["contacts"] if contact["joint"].startswith("hand")]
    assert hands
    for contact in hands:
        x, y, z = contact["pos"]
        expected = base.render.getRelativePoint(turn, Point3(x, 1.0 + (y - near), 1.0 + (z - top)))
        frames = with_ik.within(contact)
        assert frames
        for frame in frames:
            assert (frame["pos"][contact["joint"]] - expected).length() < 0.01
    turn.removeNode()


LEGS = [("stone-top", 1.5, 144, 301.0), ("stone-top", 2.0, 144, 37.0), ("crate1.0", 2.0, 144, 37.0),
        ("plank-table", 2.0, 144, 301.0)]


@pytest.mark.parametrize("name, distance, fps, heading", LEGS, ids=[f"{n}-{d}m-{f}fps-h{h:.0f}" for n, d, f, h in LEGS])
def test_no_joint_turns_faster_than_its_own_peak_while_easing(base, assets, name, distance, fps, heading):
    """While a contact eases in or out, each limb joint turns at most 1.5 times its own peak in
    the clip (its fastest turn between two clip frames, from the posed tables) times the play
    rate, or the warped clip's own; the kick-off leg turned 1.8 to 2.2 times its own while the
    limit was the clip's fastest joint."""
    from .contact_helpers import clip_peaks, easing
    level, with_ik = run(base, assets, name, distance, fps, heading)
    without = ContactRun(base, level, assets, fps, heading=heading, ik=False)
    clip = with_ik.asset.clip
    own, warped = clip_peaks(base, clip), without.peak_turns()
    rate = max(frame["rate"] for frame in without.frames)
    for joint, speed in with_ik.peak_turns(easing(clip, BLEND)).items():
        assert speed <= 1.5 * max(own[joint] * rate, warped[joint]), joint



ARMS = [("crate1.4", 1.0, 30, 210.0), ("crate1.4", 1.0, 144, 301.0), ("crate1.4", 1.5, 144, 37.0), ("stack", 1.0, 30, 90.0),
        ("stack", 2.0, 30, 0.0)]


@pytest.mark.parametrize("name, distance, fps, heading", ARMS, ids=[f"{n}-{d}m-{f}fps-h{h:.0f}" for n, d, f, h in ARMS])
def test_no_limb_joint_turns_faster_than_its_own_peak_over_a_high_top(base, assets, name, distance, fps, heading):
    """Over a 1.4 m crate and the stack the warp lifts the body under hands held on the top, and
    an arm whose hand's contact has eased out is let go: over the whole vault no limb joint turns
    more than 1.5 times its own peak in the clip (its fastest turn between two clip frames, from
    the posed tables; the upper arms in Character space, as the measurement counts) times the
    play rate, or the warped clip's own. The upper arms turned up to 3.2 times inside the hands'
    window while the limit held only while a contact blended, 2.2 times over the stack the frame
    an eased-out hand's IK rotation was dropped, and 1.51 times over the 1.4 m crate at 30 fps
    against the clip's peak as played over its authored crate (the warp plays it there at 0.998
    times its rate, between its frames: 0.8% under its own peak)."""
    from .contact_helpers import clip_peaks
    level, with_ik = run(base, assets, name, distance, fps, heading)
    without = ContactRun(base, level, assets, fps, heading=heading, ik=False)
    own, warped = clip_peaks(base, with_ik.asset.clip), without.peak_turns()
    rate = max(frame["rate"] for frame in without.frames)
    for joint, speed in with_ik.peak_turns().items():
        assert speed <= 1.5 * max(own[joint] * rate, warped[joint]), joint
