"""Bending the limbs a ContactIK bends in a frame: each one's two-bone solve and turn limit.

`ContactIK` hands the frame's limbs, as data (`Limb`: the animated matrices read from the pose,
the move wanted, the limits), to a bender and gets each back as data (`BentLimb`). `LimbBender`
is the pure-Python one, the reference; `compiled.CompiledLimbs` does the same arithmetic in one
numba call when numba imports (it was most of a frame's cost here).
"""
from typing import NamedTuple, Optional

from panda3d.core import LMatrix4f, LVecBase3f, Point3, TransformState, Vec3

from .pose_writer import inverse
from .twobone import bend_direction, reach_limit, slide_within_reach, solve


class Limb(NamedTuple):
    """One limb to bend this frame: the `names` of its upper, mid and end joint, the net matrix
    (Character space) `parent_net` of its parent (identity when it hangs from the Character) as
    animated, the animated local matrices `anims` of upper, mid and end (their nets follow), how far
    the pelvis above it moved it (`moved`: a Character-space matrix, the parent's net times it;
    None: not moved), the end joint's `move` from its animated
    place, the world's `up` (all Character space), the turn limits (`most`: degrees each joint may
    turn this frame, `most_net`: the upper joint's in Character space), its goal's `weight`, and
    whether it is `letting_go` (its contact over, its IK rotation let go within the limit)."""
    names: tuple
    parent_net: LMatrix4f
    anims: tuple
    moved: Optional[LMatrix4f]
    move: Vec3
    up: Vec3
    most: tuple
    most_net: float
    weight: float
    letting_go: bool


class BentLimb(NamedTuple):
    """A limb as bent: [(joint name, local TransformState)] to freeze, the move achieved, how far
    its goal slid to stay within reach, and whether it is let go within the turn limit after
    this frame (a joint held back, a limb letting go whose IK rotation is not yet negligible, or
    one easing out whose IK rotation is more than a frame's turn)."""
    transforms: list
    reached: LVecBase3f
    slid: LVecBase3f
    letting_go: bool


class LimbBender:
    """Bends limbs in Python, each joint through `limiter` (a TurnLimiter), remembering each
    limb's bend direction (for limbs animated perfectly straight)."""

    def __init__(self, limiter):
        self.limiter = limiter
        self._bends = {}          # end joint -> last bend direction

    def rest(self):
        """No limb was bent this frame: the next starts from the animation."""
        self.limiter.rest()

    def bend(self, limbs):
        """[BentLimb] for `limbs` ([Limb]), in order."""
        return [self._bend(limb) for limb in limbs]

    def _bend(self, limb):
        """The BentLimb moving the end joint by `limb.move` from its animated place. A goal out
        of reach slides along the level plane through it (`up`) until the limb reaches it
        (twobone.slide_within_reach: a planted foot slides on the ground rather than lifting).
        The move is less when a joint of the limb would turn faster than its own peak in the
        clip beyond what its animation turns it (the limiter gets each joint's IK rotation)."""
        limiter, moved, names = self.limiter, limb.moved, limb.names
        parent_net = limb.parent_net if moved is None else limb.parent_net * moved
        upper = limb.anims[0] * parent_net   # the nets, as Panda3D composes them
        mid = limb.anims[1] * upper
        end = limb.anims[2] * mid
        a, b, c = upper.getRow3(3), mid.getRow3(3), end.getRow3(3)
        animated = Point3(c)
        if moved is not None:   # the end keeps its animated turn (a rolled pelvis never tilts a planted foot)
            kept = end * inverse(moved)
            animated = Point3(kept.getRow3(3))
            kept.setRow(3, c)
            end = kept
        bend = self._bends[names[2]] = bend_direction(a, b, c, self._bends.get(names[2]))
        reach = reach_limit((c - a).length(), (b - a).length() + (c - b).length())
        goal = slide_within_reach(Point3(a), animated + limb.move, reach, limb.up)
        new = solve(upper, mid, end, goal, bend)
        transforms, held, above = [], False, parent_net
        parent_quat = TransformState.makeMat(parent_net).getQuat()
        for animated_local, name, net, most, first in zip(limb.anims, names, new, limb.most, (parent_net, None, None)):
            anim_quat = TransformState.makeMat(animated_local).getQuat()
            quat = parent_quat if first is not None else None
            local, turned = limiter.limit(name, TransformState.makeMat(net * inverse(above)), animated_local, first,
                                          most, anim_quat, quat)
            held = held or turned
            limiter.bent(name, local, animated_local, first, anim_quat, quat)
            transforms.append((name, local))
            above = local.getMat() * above if held else net
        # a limb easing out whose IK rotation is more than a frame's turn is let go within the
        # limit when its goal ends (its last correction may be small and its rotation not)
        letting_go = held or (limb.letting_go and not limiter.let_go(names)) \
            or (limb.weight < 1.0 and limiter.beyond_a_frame(names))
        return BentLimb(transforms, Vec3(above.getRow3(3) - animated), Vec3(goal - (animated + limb.move)), letting_go)
