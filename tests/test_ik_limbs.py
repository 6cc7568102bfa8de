"""The limb benders' let-go decision (motionwarp.ik.limbs, and ik.compiled when numba imports):
after a frame, a limb stays let go within the turn limit when a joint was held back, when it is
being let go and its IK rotation is not yet negligible, or when its goal eases (weight under 1)
and dropping its IK rotation would turn a joint faster than next frame's limit."""
import pytest
from panda3d.core import LMatrix4f, Vec3

from motionwarp.ik import compiled
from motionwarp.ik.limbs import Limb, LimbBender
from motionwarp.ik.turn_limit import TurnLimiter

NAMES = ("upper", "mid", "end")


def _bender(kind):
    limiter = TurnLimiter()
    if kind == "python":
        return limiter, LimbBender(limiter)
    if not compiled.AVAILABLE:
        pytest.skip("numba is not installed (the optional extra motionwarp[fast])")
    return limiter, compiled.CompiledLimbs(limiter)


def _frame(limiter, bender, move, most, weight=1.0, letting_go=False):
    """One 0.1 s frame bending a 1 m limb (hanging from the Character, its knee a little bent) by
    `move`, each joint allowed `most` degrees: is it let go within the limit after it?"""
    limiter.peaks, limiter.net_peaks = {name: most / 0.1 for name in NAMES}, {}
    limiter.start_frame(0.1, 1.0)
    anims = (LMatrix4f.translateMat(0, 0, 1), LMatrix4f.translateMat(0.1, 0, -0.5), LMatrix4f.translateMat(-0.1, 0, -0.5))
    limb = Limb(NAMES, LMatrix4f.identMat(), anims, None, move, Vec3(0, 0, 1),
                tuple(limiter.most(name) for name in NAMES), limiter.most_net(NAMES[0]), weight, letting_go)
    bent = bender.bend([limb])[0]
    limiter.end_frame({"end"} if bent.letting_go else set())
    return bent.letting_go


@pytest.mark.parametrize("kind", ["python", "compiled"])
def test_a_held_joint_keeps_the_limb_let_go_and_a_free_one_does_not(kind):
    limiter, bender = _bender(kind)
    assert _frame(limiter, bender, Vec3(0.3, 0, 0.3), 0.5) is True      # held to half a degree
    limiter, bender = _bender(kind)
    assert _frame(limiter, bender, Vec3(0.3, 0, 0.3), 1000.0) is False


@pytest.mark.parametrize("kind", ["python", "compiled"])
def test_a_limb_being_let_go_stays_so_until_its_rotation_is_negligible(kind):
    limiter, bender = _bender(kind)
    assert _frame(limiter, bender, Vec3(0.3, 0, 0.3), 1000.0, letting_go=True) is True
    assert _frame(limiter, bender, Vec3(0, 0, 0), 1000.0, letting_go=True) is False


@pytest.mark.parametrize("kind", ["python", "compiled"])
@pytest.mark.parametrize("weight, beyond", [(0.5, True), (1.0, False)])
def test_an_easing_limb_whose_rotation_is_more_than_a_frame_is_let_go_within_the_limit(kind, weight, beyond):
    """Bent far in a first frame, then held where it is with only 5 degrees a frame: dropping its
    IK rotation (tens of degrees) would be beyond a frame, which counts while its goal eases."""
    limiter, bender = _bender(kind)
    assert _frame(limiter, bender, Vec3(0.3, 0, 0.3), 1000.0) is False
    assert _frame(limiter, bender, Vec3(0.3, 0, 0.3), 5.0, weight) is beyond
