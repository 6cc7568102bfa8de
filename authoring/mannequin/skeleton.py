"""The 18-joint skeleton: body dimensions, joints in parent-first order and the rest pose.

All rest rotations are identity, so joint frames are aligned with the model axes.
"""
import math

import numpy as np

HIPS_H = 0.98          # hips joint above the root when standing
ARM_DOWN = math.radians(50.0)   # A-pose: arms this far below horizontal
UPPER_ARM, FOREARM = 0.29, 0.26
THIGH, SHIN = 0.43, 0.41
ANKLE_H = 0.08         # ankle (foot joint) height above the sole
STAND_H = 0.965        # hips height when standing still at the end of a clip (knees unlocked)


def arm_dir(side):
    """Rest direction of the arm; side = -1 (left, -X) or +1 (right, +X)."""
    return np.array([side * math.cos(ARM_DOWN), 0.0, -math.sin(ARM_DOWN)])


def palm_normal(side):
    """Rest palm normal (towards the body and down), perpendicular to arm_dir."""
    return np.array([-side * math.sin(ARM_DOWN), 0.0, -math.cos(ARM_DOWN)])


SIDES = (("l", -1.0), ("r", 1.0))


def skeleton_spec():
    """[(name, parent_name, rest offset from parent)] in parent-first order."""
    spec = [
        ("root", None, (0.0, 0.0, 0.0)),
        ("hips", "root", (0.0, 0.0, HIPS_H)),
        ("spine", "hips", (0.0, 0.0, 0.10)),
        ("chest", "spine", (0.0, 0.0, 0.18)),
        ("neck", "chest", (0.0, 0.0, 0.22)),
        ("head", "neck", (0.0, 0.0, 0.08)),
    ]
    for s, side in SIDES:
        d = arm_dir(side)
        spec += [
            (f"upper_arm_{s}", "chest", (side * 0.18, 0.0, 0.19)),
            (f"forearm_{s}", f"upper_arm_{s}", tuple(UPPER_ARM * d)),
            (f"hand_{s}", f"forearm_{s}", tuple(FOREARM * d)),
        ]
    for s, side in SIDES:
        spec += [
            (f"thigh_{s}", "hips", (side * 0.10, 0.0, -0.06)),
            (f"shin_{s}", f"thigh_{s}", (0.0, 0.0, -THIGH)),
            (f"foot_{s}", f"shin_{s}", (0.0, 0.0, -SHIN)),
        ]
    return spec


SKELETON = skeleton_spec()
JOINT_NAMES = [j[0] for j in SKELETON]
JOINT_INDEX = {n: i for i, n in enumerate(JOINT_NAMES)}
PARENT = {n: p for n, p, _ in SKELETON}
OFFSET = {n: np.array(o, dtype=np.float64) for n, _, o in SKELETON}


def rest_positions():
    """Model-space rest (bind) position of every joint."""
    pos = {}
    for name, parent, off in SKELETON:
        pos[name] = np.array(off) + (pos[parent] if parent else 0.0)
    return pos


REST = rest_positions()
