"""What every clip shares: the frame rate, the Clip record, and torso and free-arm posing from curves."""
import numpy as np

from ..ik import elbow_pole, reach_correct, relaxed_hand, torso_fk, torso_pose
from ..skeleton import SIDES

FPS = 30


class Clip:
    """One clip: its name, length, whether it loops, its pose at any time, its contacts and obstacle."""

    def __init__(self, name, duration, loop, pose_fn, contacts, obstacle=None):
        self.name, self.duration, self.loop = name, duration, loop
        self.pose_fn, self.contacts, self.obstacle = pose_fn, contacts, obstacle
        self.frames = int(round(duration * FPS))

    def poses(self):
        return [self.pose_fn(k / FPS) for k in range(self.frames + 1)]


def set_free_arms(pose, W, P, swing=0.0, amp=0.0, out=0.06, up=-0.50, fwd=0.03, rise=0.0,
                  pole=(0.35, 1.0, 0.2)):
    """Both arms hanging / swinging (swing = phase of the left arm, -1..1).

    The hand moves `amp` forward/back and `rise` up when forward (an arc)."""
    for s, side in SIDES:
        sw = swing if s == "l" else -swing
        target = relaxed_hand(W, P, s, out, fwd + amp * sw, up + rise * sw)
        pose.hands[s] = {"target": target, "pole": elbow_pole(W, s, *pole)}


def body_pose(c, t, **extra):
    """Torso pose from curves: root_y/root_z (root motion) and body_y/body_z (hips, world)."""
    root = np.array([0.0, c["root_y"](t), c["root_z"](t)])
    hips = np.array([0.0, c["body_y"](t), c["body_z"](t)]) - root
    return torso_pose(root=root, hips=hips, lean_fwd=c["lean"](t), look=c["look"](t), **extra)


def gripping_body(c, t, hand_plans, arm_out):
    """The torso at t, shifted so the shoulders stay within reach of the gripping hands.

    Sets each hand plan's free path (a relaxed arm, `arm_out` to the side) and returns
    (pose, world rotations, world positions) of the corrected body.
    """
    pose = body_pose(c, t)
    W, P = torso_fk(pose)
    for s, _ in SIDES:   # free-arm targets for the grip blend need the uncorrected body
        hand_plans[s].free = lambda tt, s=s: relaxed_hand(W, P, s, arm_out, c["arm_fwd"](tt), c["arm_up"](tt))
    grip = hand_plans["l"].weight(t)
    W, P = reach_correct(pose, {s: hand_plans[s](t)[0] for s, _ in SIDES}, grip)
    for s, _ in SIDES:
        hand_plans[s].free = lambda tt, s=s: relaxed_hand(W, P, s, arm_out, c["arm_fwd"](tt), c["arm_up"](tt))
    return pose, W, P
