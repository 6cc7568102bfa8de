"""Falling and landing: a looping fall (legs ready, arms out for balance) and the landing that
absorbs it. Neither moves the root: gravity moves a falling character, not the clip.
"""
import math

import numpy as np

from ..contacts import contact_record
from ..curves import curves, ramp
from ..ik import elbow_pole, flat_foot, knee_pole, relaxed_hand, torso_fk, torso_pose
from ..skeleton import ANKLE_H, SIDES, STAND_H
from .base import Clip

FALL_T = 0.8
FALL_HIPS_Z = 0.93
FOOT_SWING = 0.06     # metres each foot pedals forward and back while falling
FOOT_TOE_DOWN = -0.35  # foot pitch while falling (toes down)


def _fall_foot(side, t):
    """Ankle target and foot pitch of the falling pose: slowly pedalling, soles at the root."""
    ph = 2 * math.pi * t / FALL_T + side * math.pi / 2
    return np.array([side * 0.13, FOOT_SWING * math.sin(ph), ANKLE_H + 0.03 + 0.03 * math.cos(ph)]), FOOT_TOE_DOWN


def _fall_torso(t):
    """The falling trunk: leaning back a little, rocking, head down to watch the ground."""
    ph = 2 * math.pi * t / FALL_T
    return dict(hips=(0.01 * math.sin(ph), -0.03, FALL_HIPS_Z + 0.01 * math.cos(2 * ph)),
                lean_fwd=-0.08 + 0.03 * math.sin(ph), roll=0.04 * math.sin(ph), look=0.35)


def _fall_arm(s, t):
    """Hand target relative to the shoulder (chest frame): out to the side, waving slowly."""
    ph = 2 * math.pi * t / FALL_T + (0.0 if s == "l" else math.pi)
    return 0.40, 0.10 + 0.06 * math.sin(ph), 0.02 + 0.06 * math.cos(ph)


def fall_clip():
    """A seamless loop: frame 0 and the last frame hold the same pose."""
    def pose_fn(t):
        pose = torso_pose(root=(0, 0, 0), **_fall_torso(t))
        W, P = torso_fk(pose)
        for s, side in SIDES:
            pose.hands[s] = {"target": relaxed_hand(W, P, s, *_fall_arm(s, t)),
                             "pole": elbow_pole(W, s, out=0.3, back=0.6, down=0.8)}
            target, pitch = _fall_foot(side, t)
            pose.feet[s] = {"target": target, "pole": knee_pole(W, s, out=0.15, up=0.2), "rot": flat_foot(0.0, pitch)}
        return pose

    return Clip("fall", FALL_T, True, pose_fn, [])


LAND_T = 0.7
LAND_PLANT = 0.06     # seconds from touch-down to flat feet


def land_clip():
    """From the falling pose at its first frame: feet plant, knees and hips absorb, stand up."""
    fall = _fall_torso(0.0)
    arms = {s: _fall_arm(s, 0.0) for s, _ in SIDES}
    c = curves({
        "hips_z": [(0.0, fall["hips"][2]), (0.14, 0.70), (0.26, 0.73), (0.48, 0.91), (LAND_T, STAND_H)],
        "hips_y": [(0.0, fall["hips"][1]), (0.14, -0.06), (LAND_T, 0.0)],
        "lean": [(0.0, fall["lean_fwd"]), (0.14, 0.45), (0.3, 0.32), (LAND_T, 0.03)],
        "look": [(0.0, fall["look"]), (0.2, 0.2), (LAND_T, 0.0)],
        "arm": [(0.0, 0.0), (0.25, 0.6), (LAND_T, 1.0)],   # 0: out for balance, 1: hanging
    })
    touch = {s: _fall_foot(side, 0.0) for s, side in SIDES}
    planted = {s: np.array([touch[s][0][0], touch[s][0][1], ANKLE_H]) for s, _ in SIDES}

    def pose_fn(t):
        pose = torso_pose(root=(0, 0, 0), hips=(0.0, c["hips_y"](t), c["hips_z"](t)), lean_fwd=c["lean"](t),
                          look=c["look"](t))
        W, P = torso_fk(pose)
        a = c["arm"](t)
        for s, side in SIDES:
            out, fwd, up = arms[s]
            hand = relaxed_hand(W, P, s, out + a * (0.06 - out), fwd + a * (0.03 - fwd), up + a * (-0.50 - up))
            pose.hands[s] = {"target": hand, "pole": elbow_pole(W, s, out=0.3 + 0.05 * a, back=0.6 + 0.4 * a,
                                                                   down=0.8 - 0.6 * a)}
            w = ramp(t, 0.0, LAND_PLANT)
            start, pitch = touch[s]
            pose.feet[s] = {"target": start + w * (planted[s] - start),
                            "pole": knee_pole(W, s, out=0.15 - 0.05 * w, up=0.2 + 0.2 * w),
                            "rot": flat_foot(0.0, pitch * (1.0 - w))}
        return pose

    contacts = [contact_record(f"foot_{s}", LAND_PLANT, LAND_T, planted[s], (planted[s][0], planted[s][1], 0.0))
                for s, _ in SIDES]
    contacts.sort(key=lambda c_: (c_["start"], c_["joint"]))
    return Clip("land", LAND_T, False, pose_fn, contacts)
