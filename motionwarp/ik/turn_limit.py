"""The contact IK's turn-rate limit: no limb joint the IK bends turns faster than its own peak in
the clip, times the play rate (or its animation this frame).

A stretched limb letting go would otherwise whip: near full reach a small move of the hand or
foot is a large turn of the elbow or knee; so would an arm whose hand is held on a top while
the warp lifts the body under it (over a 1.4 m crate the upper arms turned 3.2 times their
own peak inside the hands' window when the limit held only while a contact blended). The limiter remembers each joint's IK rotation of
last frame and lets this frame's move only as far from it as the limit allows.
"""
import functools
import math
from typing import NamedTuple, Optional

import numpy as np

from panda3d.core import LMatrix4f, LQuaternionf, TransformState

from ..animation.rootmotion import channel_path, find_channel, joint_model_matrices
from ..warp.warpmath import slerp

#: How much faster than its own peak in the clip a joint may turn while the IK bends it (never
#: faster than the clip's fastest joint): room for the correction itself (at exactly its own
#: peak, a hand easing onto a higher crate arrives late).
ALLOWANCE = 1.5
#: Degrees: an IK rotation held back by the turn limit counts as let go below this.
LET_GO_DEG = 0.05


class Bent(NamedTuple):
    """A joint as the IK bent it in a frame: its local TransformState frozen and that rotation,
    its animated local rotation, and (a limb's first joint only, else None) its limb's parent's
    net rotation. Kept as rotations: decomposing the matrices again was a third of the limiter's time."""
    local: TransformState
    quat: LQuaternionf
    anim_quat: LQuaternionf
    parent_quat: Optional[LQuaternionf]


class TurnLimiter:
    """Last frame's IK rotation of every bent joint, the limits (`peaks`, degrees per second: each
    joint's own peak in the clip playing or played last; a slow joint is not allowed the fastest
    one's speed) and the limbs still being let go (`letting_go`: end joints whose IK rotation the
    limit held back, until it is let go)."""

    def __init__(self):
        self._last = {}          # joint -> Bent, last frame
        self._now = {}           # joint -> Bent, this frame
        self._peaks = {}         # clip -> {joint: fastest it turns (degrees per second)}
        self.peaks = {}
        self._net_peaks = {}     # clip -> {limb's first joint: fastest it turns in Character space}
        self.net_peaks = {}
        self._seconds = 0.0      # clip seconds this frame plays (dt times the play rate)
        self.letting_go = set()

    def follow_clip(self, clip, anim, joints, firsts=frozenset()):
        """Limit each of `joints` (a frozenset of names) to how fast it turns in `clip` (AnimBundle
        `anim`) relative to its parent, and each of `firsts` (the limbs' first joints, whose
        parent the IK does not turn) also to how fast it turns in Character space: a joint whose
        parent turns against it in the clip turns slower in Character space than in its parent's."""
        if clip not in self._peaks:
            own = peak_turn_speeds(anim, joints)
            fastest = max(own.values(), default=math.inf)
            self._peaks[clip] = {joint: min(ALLOWANCE * peak, fastest) for joint, peak in own.items()}
            self._net_peaks[clip] = {joint: ALLOWANCE * peak for joint, peak in peak_net_turn_speeds(anim, firsts).items()}
        self.peaks, self.net_peaks = self._peaks[clip], self._net_peaks[clip]

    def rest(self):
        """No limb was bent this frame: next frame starts from the animation."""
        self._last, self._now = {}, {}

    def start_frame(self, dt, rate):
        """A frame of `dt` seconds, the clip playing at `rate` (its play rate: a joint's peak turn
        speed scales with it)."""
        self._now = {}
        self._seconds = dt * abs(rate)

    def most(self, name):
        """The most degrees joint `name` may turn this frame while the IK bends it."""
        return self.peaks.get(name, math.inf) * self._seconds

    def limits(self, upper, mid, end):
        """(`most` of `upper`, `mid`, `end`): a limb's limits this frame, in one call (every bent frame)."""
        peaks, seconds = self.peaks, self._seconds
        return peaks.get(upper, math.inf) * seconds, peaks.get(mid, math.inf) * seconds, peaks.get(end, math.inf) * seconds

    def most_net(self, name):
        """The most degrees a limb's first joint `name` may turn in Character space this frame
        (`most` when its Character-space peak is not known)."""
        return self.net_peaks.get(name, self.peaks.get(name, math.inf)) * self._seconds

    def limit(self, name, wanted, animated, parent, most, anim_quat=None, parent_quat=None):
        """(joint `name`'s new local TransformState, held back?): `wanted`, unless that turns it
        more than `most` degrees this frame and beyond its animation (`animated`, its animated
        local matrix; limit_turn). `parent` (for the limb's first joint): its parent's net
        matrix, for its turn in Character space too (at most `most_net(name)` degrees, beyond
        its animation's turn there). `anim_quat`, `parent_quat`: their rotations when the
        caller has them."""
        last, held = self._last.get(name), False
        most_net = None
        if parent is not None:
            most_net = self.most_net(name)
            parent_quat = _rotation(parent) if parent_quat is None else parent_quat
        now = wanted.getQuat()
        if last is None or not _within(last.quat, None, now, None, most) or (
                parent is not None and not _within(last.quat, last.parent_quat, now, parent_quat, most_net)):
            anim_quat = _rotation(animated) if anim_quat is None else anim_quat
            if last is None:  # not bent last frame: from the animation
                previous, room = LQuaternionf.identQuat(), most if most_net is None else min(most, most_net)
            else:
                previous, room = last.quat * last.anim_quat.conjugate(), most - _turn(last.anim_quat, None, anim_quat, None)
                if parent is not None:
                    room = min(room, most_net - _turn(last.anim_quat, last.parent_quat, anim_quat, parent_quat))
            # the IK's rotation moves at most `room`: the joint turns at most its animation's turn plus that
            turn, held = limit_turn(previous, now * anim_quat.conjugate(), 0.0, room)
            if held:
                wanted = TransformState.makeMat(animated).setQuat(turn * anim_quat)
        return wanted, held

    def bent(self, name, local, animated, parent, anim_quat=None, parent_quat=None):
        """Joint `name` is frozen at `local` this frame (its animated local matrix, its limb's
        parent net or None; `anim_quat`, `parent_quat`: their rotations when the caller has them)."""
        anim_quat = _rotation(animated) if anim_quat is None else anim_quat
        if parent is not None and parent_quat is None:
            parent_quat = _rotation(parent)
        self._now[name] = Bent(local, local.getQuat(), anim_quat, parent_quat if parent is not None else None)

    def let_go(self, names):
        """Are the IK rotations of these joints, as bent this frame, all negligible?"""
        now = self._now
        return all(_turn(now[name].quat, None, now[name].anim_quat, None) <= LET_GO_DEG for name in names)

    def beyond_a_frame(self, names):
        """Would dropping the IK's rotation of any of these joints, as bent this frame, turn it
        faster than the limit allows next frame, with its animation turning as it did this frame?"""
        for name in names:
            bent, last = self._now[name], self._last.get(name)
            room = self.most(name) - (0.0 if last is None else _turn(last.anim_quat, None, bent.anim_quat, None))
            if bent.parent_quat is not None:   # a limb's first joint: in Character space too
                room = min(room, self.most_net(name) - (0.0 if last is None else _turn(
                    last.anim_quat, last.parent_quat, bent.anim_quat, bent.parent_quat)))
            if _turn(bent.quat, None, bent.anim_quat, None) > room:
                return True
        return False

    def end_frame(self, letting_go):
        """This frame's rotations become last frame's; `letting_go`: the limbs still held back."""
        self._last, self._now, self.letting_go = self._now, {}, letting_go


def turn_angle(quat):
    """Degrees a unit quaternion turns (0 to 180); atan2 keeps small angles exact in float32."""
    return 2.0 * math.degrees(math.atan2(math.hypot(quat.getI(), quat.getJ(), quat.getK()), abs(quat.getR())))


def limit_turn(previous, wanted, anim_turn, most):
    """The IK's rotation of a joint this frame (a unit quaternion applied before its animated local
    rotation): `wanted`, or as far toward it from `previous` (last frame's) as keeps the joint
    turning at most max(`anim_turn`, `most`) degrees in this frame (`anim_turn`: how far the
    animation alone turns it). The rotation distance is bi-invariant, so the joint turns at most
    `anim_turn` plus how far the IK's rotation moves; with the IK's rotation held, exactly
    `anim_turn`. Returns (rotation, held back?)."""
    change = turn_angle(previous.conjugate() * wanted)
    room = most - anim_turn
    if change <= room:
        return wanted, False
    if room <= 0.0:
        return LQuaternionf(previous), True
    return slerp(previous, wanted, room / change), True


def peak_turn_speed(anim, joints):
    """Degrees per second the fastest of `joints` (a frozenset) turns relative to its parent, from
    frame to frame of AnimBundle `anim` at its own frame rate (inf when it has no such joints)."""
    return max(peak_turn_speeds(anim, joints).values(), default=math.inf)


@functools.lru_cache(maxsize=64)
def peak_turn_speeds(anim, joints):
    """{joint: degrees per second it turns at most relative to its parent}, from frame to frame
    of AnimBundle `anim` at its own frame rate, for those of `joints` (a frozenset) it animates
    (inf for a joint that never turns). Cached: Actors loaded from one file share their AnimBundles."""
    frames, peaks = anim.getNumFrames(), {}
    mat = LMatrix4f()
    for joint in joints:
        channel = find_channel(anim, joint)
        if channel is None:
            continue
        quats = []
        for frame in range(frames):
            channel.getValue(frame, mat)
            quats.append(TransformState.makeMat(mat).getQuat())
        peak = max([0.0] + [turn_angle(a.conjugate() * b) for a, b in zip(quats, quats[1:])])
        peaks[joint] = peak * anim.getBaseFrameRate() if peak > 0.0 else math.inf
    return peaks


@functools.lru_cache(maxsize=64)
def peak_net_turn_speeds(anim, joints):
    """{joint: degrees per second it turns at most in Character space}, from frame to frame of
    AnimBundle `anim` at its own frame rate (every channel from the skeleton's top composed), for
    those of `joints` (a frozenset) it animates (inf for a joint that never turns)."""
    peaks = {}
    for joint in joints:
        if channel_path(anim, joint) is None:
            continue
        rows = joint_model_matrices(anim, joint)[0][:, :3, :3]
        rows = rows / np.linalg.norm(rows, axis=2, keepdims=True)     # rotation only
        cos = (np.einsum("nij,nij->n", rows[:-1], rows[1:]) - 1.0) / 2.0
        peak = float(np.degrees(np.arccos(np.clip(cos, -1.0, 1.0))).max(initial=0.0))
        peaks[joint] = peak * anim.getBaseFrameRate() if peak > 0.0 else math.inf
    return peaks


def _rotation(mat):
    return TransformState.makeMat(mat).getQuat()


def _within(a, a_parent, b, b_parent, most):
    """Is the turn from `a` to `b` (as in _turn) at most `most` degrees? (the cheap test)"""
    if a_parent is not None:
        a, b = a * a_parent, b * b_parent
    return abs(a.dot(b)) >= math.cos(math.radians(min(most, 180.0)) / 2.0)


def _turn(a, a_parent, b, b_parent):
    """Degrees between local rotations `a` and `b` (quaternions), each under its parent's rotation
    when given (then the turn in the parents' space)."""
    if a_parent is not None:
        a, b = a * a_parent, b * b_parent
    return turn_angle(a.conjugate() * b)
