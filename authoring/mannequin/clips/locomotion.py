"""The looping clips: idle, walk and run (the root moves at constant speed along +Y)."""
import math

import numpy as np

from ..contacts import contact_record
from ..gait import Gait
from ..ik import elbow_pole, flat_foot, knee_pole, relaxed_hand, torso_fk, torso_pose
from ..rotations import I3
from ..skeleton import ANKLE_H, HIPS_H, SIDES
from .base import Clip, set_free_arms


def idle_clip():
    T = 2.0
    feet = {s: np.array([side * 0.11, 0.0, ANKLE_H]) for s, side in SIDES}

    def pose_fn(t):
        ph = 2 * math.pi * t / T
        sway = math.sin(ph)
        breathe = 0.5 * (1 - math.cos(2 * ph))     # two breaths per loop
        pose = torso_pose(root=(0, 0, 0), hips=(0.015 * sway, 0.0, HIPS_H - 0.012 - 0.004 * breathe),
                          lean_fwd=0.03, roll=-0.02 * sway, breathe=0.035 * breathe,
                          yaw=0.02 * math.sin(ph + 0.6), look=0.03 * math.sin(ph + 1.0))
        W, P = torso_fk(pose)
        for s, side in SIDES:
            pose.hands[s] = {"target": relaxed_hand(W, P, s, 0.05 + 0.01 * breathe,
                                                    0.04 + 0.01 * math.sin(ph + side), -0.505),
                             "pole": elbow_pole(W, s)}
            pose.feet[s] = {"target": feet[s], "pole": knee_pole(W, s), "rot": I3}
        return pose

    contacts = [contact_record(f"foot_{s}", 0.0, T, feet[s], (feet[s][0], feet[s][1], 0.0))
                for s, _ in SIDES]
    return Clip("idle", T, True, pose_fn, contacts)


def gait_clip(name, T, speed, hips_h, bob, lean_fwd, gaits, arm_amp, arm_out, arm_up, arm_fwd,
              yaw_amp, bob_sign, arm_rise=0.0, elbow=(0.35, 1.0, 0.2)):
    """Shared walk/run builder: root moves at constant speed along +Y."""
    def pose_fn(t):
        ph = t / T
        # bob_sign +1: hips highest at mid-stance (walk); -1: lowest at mid-stance (run)
        z = hips_h + bob_sign * bob * math.cos(4 * math.pi * (ph - 0.25))
        x = 0.02 * math.sin(2 * math.pi * ph)
        yaw = yaw_amp * math.cos(2 * math.pi * ph)
        pose = torso_pose(root=(0, speed * t, 0), hips=(x, 0.0, z), lean_fwd=lean_fwd, yaw=yaw,
                          chest_yaw=-1.8 * yaw, roll=0.03 * math.sin(2 * math.pi * ph),
                          look=-0.5 * lean_fwd + 0.05)
        W, P = torso_fk(pose)
        set_free_arms(pose, W, P, swing=math.cos(2 * math.pi * ph), amp=arm_amp,
                      out=arm_out, up=arm_up, fwd=arm_fwd, rise=arm_rise, pole=elbow)
        for s, _ in SIDES:
            pos, pitch, _ = gaits[s](t)
            pose.feet[s] = {"target": pos, "pole": knee_pole(W, s), "rot": flat_foot(0.0, pitch)}
        return pose

    contacts = []
    for s, _ in SIDES:
        contacts += gaits[s].contacts(f"foot_{s}", T)
    contacts.sort(key=lambda c: (c["start"], c["joint"]))
    return Clip(name, T, True, pose_fn, contacts)


def gait_pair(T, stride, x, plant, flat, **shape):
    """Both feet: the right planted at `plant` strides into the cycle, the left half a cycle later."""
    return {"r": Gait(T, stride, x, stride * plant, 0.0, flat, **shape),
            "l": Gait(T, stride, -x, stride * (plant + 0.5), 0.5, flat, **shape)}


def walk_clip():
    T, speed = 1.0, 1.4
    # right foot flat phase centred on phase 0.24, left half a cycle later
    gaits = gait_pair(T, speed * T, 0.10, 0.24, (0.06, 0.42), heel=(0.08, 0.3), toe=(0.14, -0.6), lift=0.07)
    return gait_clip("walk", T, speed, hips_h=0.935, bob=0.02, lean_fwd=0.06, gaits=gaits,
                     arm_amp=0.17, arm_out=0.06, arm_up=-0.50, arm_fwd=0.04, yaw_amp=0.12,
                     bob_sign=1.0)


def run_clip():
    T, speed = 0.7, 4.0
    gaits = gait_pair(T, speed * T, 0.08, 0.28, (0.20, 0.36), heel=(0.04, 0.15), toe=(0.10, -0.7),
                      lift=0.36, tuck=0.25)
    return gait_clip("run", T, speed, hips_h=0.895, bob=0.03, lean_fwd=0.2, gaits=gaits,
                     arm_amp=0.20, arm_out=0.03, arm_up=-0.30, arm_fwd=0.06, yaw_amp=0.15,
                     bob_sign=-1.0, arm_rise=0.10, elbow=(0.3, 1.0, 0.8))
