"""Posing one frame: torso forward kinematics, analytic two-bone IK for arms and legs, the
per-frame solve, and the pole and reach helpers the clips aim the limbs with.
"""
import math

import numpy as np

from .rotations import I3, frame_matrix, lean, rx, ry, rz, slerp_mat, unit
from .skeleton import (FOREARM, HIPS_H, JOINT_NAMES, OFFSET, PARENT, SHIN, SIDES, THIGH, UPPER_ARM,
                       arm_dir, palm_normal)


class Pose:
    """Whole-body pose of one frame: torso rotations (local) + limb targets (model space)."""

    def __init__(self, root=(0, 0, 0), heading=0.0, hips=(0, 0, HIPS_H)):
        self.root = np.array(root, dtype=np.float64)
        self.heading = float(heading)
        self.hips = np.array(hips, dtype=np.float64)       # in the root's frame
        self.rot = {n: I3 for n in ("hips", "spine", "chest", "neck", "head")}
        self.hands = {}   # side -> dict(target, pole, rot, weight)
        self.feet = {}    # side -> dict(target, pole, rot)


def torso_pose(root, hips, lean_fwd=0.0, heading=0.0, yaw=0.0, roll=0.0, chest_yaw=0.0,
               chest_roll=0.0, breathe=0.0, look=0.0):
    """A Pose with the lean spread over hips/spine/chest and the head kept looking ahead.

    lean_fwd: total forward lean of the trunk (rad); yaw/roll: pelvis twist / side tilt;
    chest_yaw: chest twist relative to the pelvis; look: extra head pitch down (rad).
    """
    p = Pose(root, heading, hips)
    p.rot["hips"] = rz(yaw) @ lean(0.45 * lean_fwd) @ ry(roll)
    p.rot["spine"] = lean(0.3 * lean_fwd) @ ry(-0.5 * roll)
    p.rot["chest"] = rz(chest_yaw) @ lean(0.25 * lean_fwd - breathe) @ ry(chest_roll - 0.4 * roll)
    p.rot["neck"] = rz(-0.4 * (yaw + chest_yaw)) @ lean(-0.35 * lean_fwd + 0.4 * look + 0.5 * breathe)
    p.rot["head"] = rz(-0.4 * (yaw + chest_yaw)) @ lean(-0.3 * lean_fwd + 0.6 * look)
    return p


def torso_fk(pose):
    """World rotations/positions of the torso chain plus shoulder and hip joint positions."""
    W, P = {}, {}
    W["root"] = rz(pose.heading)
    P["root"] = pose.root.copy()
    W["hips"] = W["root"] @ pose.rot["hips"]
    P["hips"] = P["root"] + W["root"] @ pose.hips
    for name in ("spine", "chest", "neck", "head"):
        parent = PARENT[name]
        W[name] = W[parent] @ pose.rot[name]
        P[name] = P[parent] + W[parent] @ OFFSET[name]
    for s, _ in SIDES:
        P[f"upper_arm_{s}"] = P["chest"] + W["chest"] @ OFFSET[f"upper_arm_{s}"]
        P[f"thigh_{s}"] = P["hips"] + W["hips"] @ OFFSET[f"thigh_{s}"]
    return W, P


def side_sign(s):
    return -1.0 if s == "l" else 1.0


def body_vec(W, frame, s, v):
    """A vector given as (outward, forward, up) in a body frame, mirrored for the side."""
    return W[frame] @ np.array([side_sign(s) * v[0], v[1], v[2]], dtype=np.float64)


def two_bone_ik(a, target, l1, l2, pole):
    """Analytic two-bone IK. Returns (mid, end, bend_dir, reach_error)."""
    a = np.asarray(a, dtype=np.float64)
    to = np.asarray(target, dtype=np.float64) - a
    dist = np.linalg.norm(to)
    u = to / dist if dist > 1e-9 else np.array([0.0, 0.0, -1.0])
    d = min(max(dist, abs(l1 - l2) + 1e-4), (l1 + l2) * 0.9995)
    cos_a = (l1 * l1 + d * d - l2 * l2) / (2 * l1 * d)
    ang = math.acos(min(max(cos_a, -1.0), 1.0))
    b = np.asarray(pole, dtype=np.float64) - u * np.dot(u, pole)
    if np.linalg.norm(b) < 1e-6:
        b = np.cross(u, [1.0, 0.0, 0.0])
    b = unit(b)
    mid = a + l1 * (math.cos(ang) * u + math.sin(ang) * b)
    end = a + d * u
    return mid, end, b, max(dist - d, 0.0)


def limb_rotations(a, mid, end, bend, rest_dir, rest_bend):
    """World rotations of the two bones mapping the rest frame (dir, bend plane) onto the posed one."""
    f0 = frame_matrix(rest_dir, np.cross(rest_dir, rest_bend))
    n = np.cross(unit(end - a), bend)
    w1 = frame_matrix(mid - a, n) @ f0.T
    w2 = frame_matrix(end - mid, n) @ f0.T
    return w1, w2


ELBOW_REST_BEND = np.array([0.0, -1.0, 0.0])   # elbows bend backwards
KNEE_REST_BEND = np.array([0.0, 1.0, 0.0])     # knees bend forwards


def hand_plant_rot(s, fingers=(0.0, 1.0, 0.0), palm=(0.0, 0.0, -1.0)):
    """World rotation putting the hand flat: fingers along `fingers`, palm facing `palm`."""
    side = side_sign(s)
    f0 = frame_matrix(arm_dir(side), palm_normal(side))
    return frame_matrix(fingers, palm) @ f0.T


def solve_pose(pose):
    """Solve a Pose: returns (local {joint: (translation, rotation matrix)}, world positions, errors)."""
    W, P = torso_fk(pose)
    errors = {}
    for s, side in SIDES:
        h = pose.hands[s]
        sh = P[f"upper_arm_{s}"]
        mid, end, bend, err = two_bone_ik(sh, h["target"], UPPER_ARM, FOREARM, h["pole"])
        w1, w2 = limb_rotations(sh, mid, end, bend, arm_dir(side), ELBOW_REST_BEND)
        W[f"upper_arm_{s}"], W[f"forearm_{s}"] = w1, w2
        P[f"forearm_{s}"], P[f"hand_{s}"] = mid, end
        hand = w2 if h.get("rot") is None else slerp_mat(w2, h["rot"], h.get("weight", 1.0))
        W[f"hand_{s}"] = hand
        errors[f"hand_{s}"] = err

        f = pose.feet[s]
        hip = P[f"thigh_{s}"]
        mid, end, bend, err = two_bone_ik(hip, f["target"], THIGH, SHIN, f["pole"])
        w1, w2 = limb_rotations(hip, mid, end, bend, np.array([0.0, 0.0, -1.0]), KNEE_REST_BEND)
        W[f"thigh_{s}"], W[f"shin_{s}"] = w1, w2
        P[f"shin_{s}"], P[f"foot_{s}"] = mid, end
        W[f"foot_{s}"] = f["rot"] if f.get("rot") is not None else w2
        errors[f"foot_{s}"] = err

    local = {}
    for name in JOINT_NAMES:
        parent = PARENT[name]
        if parent is None:
            local[name] = (P[name].copy(), W[name])
            continue
        rot = W[parent].T @ W[name]
        trans = pose.hips.copy() if name == "hips" else OFFSET[name]
        local[name] = (trans, rot)
    return local, P, W, errors


def flat_foot(heading=0.0, pitch=0.0):
    return rz(heading) @ rx(pitch)


def relaxed_hand(W, P, s, out=0.06, fwd=0.03, up=-0.50):
    """Hand target for a hanging arm, relative to the shoulder in the chest frame."""
    return P[f"upper_arm_{s}"] + body_vec(W, "chest", s, (out, fwd, up))


def elbow_pole(W, s, out=0.35, back=1.0, down=0.2):
    return body_vec(W, "chest", s, (out, -back, -down))


def knee_pole(W, s, out=0.1, up=0.4, fwd=1.0):
    return body_vec(W, "hips", s, (out, fwd, up))


def soft_limit(r, r0, rmax):
    """Identity below r0, then eases (C1) towards rmax without reaching it."""
    if r <= r0:
        return r
    return r0 + (rmax - r0) * math.tanh((r - r0) / (rmax - r0))


def reach_correct(pose, targets, weight, r0=0.44, rmax=0.535):
    """Shift the hips (and so the whole upper body) so the shoulders stay within arm's reach.

    targets: {side: hand target}.  weight in 0..1 fades the correction in/out with the grip.
    Returns the re-solved (W, P).
    """
    W, P = torso_fk(pose)
    if weight <= 0.0 or not targets:
        return W, P
    shift = np.zeros(3)
    for s, target in targets.items():
        v = P[f"upper_arm_{s}"] - target
        r = np.linalg.norm(v)
        shift += (v / r) * (soft_limit(r, r0, rmax) - r)
    shift *= weight / len(targets)
    pose.hips = pose.hips + W["root"].T @ shift
    return torso_fk(pose)
