"""The contact IK's turn-rate limit: no limb joint the IK bends turns faster than its own peak in
the clip, times the play rate (or its animation this frame).

A stretched limb letting go would otherwise whip: near full reach a small move of the hand or
foot is a large turn of the elbow or knee; so would an arm whose hand is held on a top while
the warp lifts the body under it (over a 1.4 m crate the upper arms turned 3.2 times their
own peak inside the hands' window when the limit held only while a contact blended). The
limiter remembers each limb's IK rotations of last frame and lets this frame's move only as far
from them as the limit allows. The arithmetic works on numpy rows of quaternions (w, x, y, z),
for every limb of a crowd at once (ik.limbs); products are Panda3D's order (`a * b` turns by
`a`, then by `b`, as its row-vector matrices compose).
"""
import functools
import math

import numpy as np

from panda3d.core import LMatrix4f

from ..animation.rootmotion import channel_path, find_channel, joint_model_matrices
from .quats import conj, dot, qmul, quats_of, slerps, turns

#: How much faster than its own peak in the clip a joint may turn while the IK bends it (never
#: faster than the clip's fastest joint): room for the correction itself (at exactly its own
#: peak, a hand easing onto a higher crate arrives late).
ALLOWANCE = 1.5
#: Degrees: an IK rotation held back by the turn limit counts as let go below this.
LET_GO_DEG = 0.05
#: A limb's remembered state, one row of floats: bent last frame (1) or not (0), then per joint
#: (upper, mid, end) the local rotation it was frozen at and its animated local rotation, then the
#: rotation of the limb's parent joint in Character space.
HAS, OUT, ANIM, PARENT, STATE = 0, slice(1, 13), slice(13, 25), slice(25, 29), 29


class TurnLimiter:
    """The limits of one character's joints (`peaks`, degrees per second: each joint's own peak in
    the clip playing or played last; a slow joint is not allowed the fastest one's speed), each
    limb's state of last frame and the limbs still being let go (`letting_go`: end joints whose IK
    rotation the limit held back, until it is let go)."""

    def __init__(self):
        self._last = {}          # end joint -> its state row (STATE floats) of last frame
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
        self._last = {}

    def start_frame(self, dt, rate):
        """A frame of `dt` seconds, the clip playing at `rate` (its play rate: a joint's peak turn
        speed scales with it)."""
        self._seconds = dt * abs(rate)

    def most(self, name):
        """The most degrees joint `name` may turn this frame while the IK bends it."""
        return self.peaks.get(name, math.inf) * self._seconds

    def most_net(self, name):
        """The most degrees a limb's first joint `name` may turn in Character space this frame
        (`most` when its Character-space peak is not known)."""
        return self.net_peaks.get(name, self.peaks.get(name, math.inf)) * self._seconds

    def limits(self, names):
        """(most upper, most mid, most end, most_net upper) this frame for a limb's joints `names`."""
        upper, mid, end = names
        return self.most(upper), self.most(mid), self.most(end), self.most_net(upper)

    def last(self, joint):
        """The state row of the limb ending at `joint` as bent last frame, or None."""
        return self._last.get(joint)

    def end_frame(self, bent, letting_go):
        """This frame's limbs become last frame's; `bent`: {end joint: state row}; `letting_go`:
        the limbs still held back."""
        self._last, self.letting_go = bent, letting_go


def limit_joints(wanted, animated, last_out, last_anim, has, most, net=None):
    """Joints of many limbs (rows of (n, j, 4) quaternions) as the limit lets them turn this frame:
    (their local rotations, held back?, the room each had, in degrees). `wanted`, `animated`: the
    local rotations the solve wants and the animation gives; `last_out`, `last_anim`: last
    frame's, where `has` (n, 1). The IK's rotation (applied before the animated one) moves at most
    the room from last frame's: `most` (n, j) degrees less what the animation turns the joint, so
    the joint turns at most its animation's turn plus that (limit_turns); unless turning straight
    to `wanted` stays within `most` of last frame's pose anyway. `net`: (the rotation of the limb's
    parent joint in Character space, last frame's, most_net (n)): column 0 is the limb's first
    joint, limited in Character space too."""
    within = has & (np.abs(dot(last_out, wanted)) >= _cos_half(most))
    room = np.where(has, most - turns(last_anim, animated), most)
    if net is not None:
        parent, last_parent, most_net = net
        under = qmul(np.stack([last_out[:, 0], wanted[:, 0], last_anim[:, 0], animated[:, 0]]),
                     np.stack([last_parent, parent, last_parent, parent]))
        within[:, 0] &= np.abs(dot(under[0], under[1])) >= _cos_half(most_net)
        room[:, 0] = np.minimum(room[:, 0], np.where(has[:, 0], most_net - turns(under[2], under[3]), most_net))
    if within.all():   # every joint turns within its limit from last frame's pose
        return wanted, ~within, room
    previous = np.where(has[..., None], qmul(last_out, conj(last_anim)), _IDENTITY)
    turn, held = limit_turns(previous, qmul(wanted, conj(animated)), room)
    held &= ~within
    return np.where(held[..., None], qmul(turn, animated), wanted), held, room


def limit_turns(previous, wanted, room):
    """The IK's rotations of joints this frame (rows of unit quaternions applied before their
    animated local rotations), with whether each was held back: `wanted`, or as far toward it from
    `previous` (last frame's) as moves it at most `room` degrees (none when `room` <= 0). The
    rotation distance is bi-invariant, so a joint turns at most its animation's turn plus `room`."""
    change = turns(previous, wanted)
    held = change > room
    if not held.any():
        return wanted, held
    u = np.clip(room / np.where(held & (change > 0.0), change, 1.0), 0.0, 1.0)
    toward = slerps(previous, wanted, np.where(room > 0.0, u, 0.0))
    return np.where(held[..., None], toward, wanted), held


def _cos_half(degrees):
    return np.cos(np.radians(np.minimum(degrees, 180.0)) / 2.0)


_IDENTITY = np.array([1.0, 0.0, 0.0, 0.0])


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
        rows = np.empty((frames, 3, 3))
        for frame in range(frames):
            channel.getValue(frame, mat)
            rows[frame] = [[mat.getCell(i, j) for j in range(3)] for i in range(3)]
        quats = quats_of(rows)
        peak = float(turns(quats[:-1], quats[1:]).max(initial=0.0))
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
