"""Generate the stylised humanoid `mannequin.glb` and its ground truth `mannequin.contacts.json`.

Usage:  python -m authoring.generate_mannequin [OUT_DIR]      (default: the assets folder)

Everything is authored deterministically in code, in Panda3D space (Z up, the character
faces +Y, metres; the character's left is -X):

* skeleton: 18 joints, all rest rotations identity (joint frames are model-axis aligned);
* mesh: capsules / (super)ellipsoids per body part, rigidly skinned, blended at elbows/knees;
* clips: idle, walk, run (closed loops), vault, mantle, mantle_high.  Every frame is solved:
  the torso from smooth curves, arms and legs by analytic two-bone IK towards hand/foot
  targets, so planted hands and feet stay exactly on the authored geometry.

Running it twice writes identical bytes.
"""
import json
import math
import os
import sys

import numpy as np

from authoring.gltf_writer import GltfBuilder

FPS = 30
ASSETS_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "assets")

# --------------------------------------------------------------------------------------
# Skeleton
# --------------------------------------------------------------------------------------
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

# --------------------------------------------------------------------------------------
# Small rotation toolkit (3x3 matrices, quaternions as w, x, y, z)
# --------------------------------------------------------------------------------------
I3 = np.eye(3)


def rx(a):
    c, s = math.cos(a), math.sin(a)
    return np.array([[1, 0, 0], [0, c, -s], [0, s, c]], dtype=np.float64)


def ry(a):
    c, s = math.cos(a), math.sin(a)
    return np.array([[c, 0, s], [0, 1, 0], [-s, 0, c]], dtype=np.float64)


def rz(a):
    c, s = math.cos(a), math.sin(a)
    return np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]], dtype=np.float64)


def lean(a):
    """Tilt the +Z axis towards +Y by angle a (lean forward)."""
    return rx(-a)


def unit(v):
    v = np.asarray(v, dtype=np.float64)
    n = np.linalg.norm(v)
    return v / n if n > 1e-12 else v


def frame_matrix(a, b):
    """Orthonormal frame (columns a, n, a x n) with n = the part of b perpendicular to a."""
    a = unit(a)
    n = np.asarray(b, dtype=np.float64) - a * np.dot(a, b)
    if np.linalg.norm(n) < 1e-9:
        n = np.cross(a, [1.0, 0.0, 0.0]) if abs(a[0]) < 0.9 else np.cross(a, [0.0, 1.0, 0.0])
    n = unit(n)
    return np.column_stack([a, n, np.cross(a, n)])


def mat_to_quat(m):
    """Rotation matrix -> unit quaternion (w, x, y, z) with w >= 0."""
    t = m[0, 0] + m[1, 1] + m[2, 2]
    if t > 0:
        s = math.sqrt(t + 1.0) * 2
        q = [0.25 * s, (m[2, 1] - m[1, 2]) / s, (m[0, 2] - m[2, 0]) / s, (m[1, 0] - m[0, 1]) / s]
    elif m[0, 0] > m[1, 1] and m[0, 0] > m[2, 2]:
        s = math.sqrt(1.0 + m[0, 0] - m[1, 1] - m[2, 2]) * 2
        q = [(m[2, 1] - m[1, 2]) / s, 0.25 * s, (m[0, 1] + m[1, 0]) / s, (m[0, 2] + m[2, 0]) / s]
    elif m[1, 1] > m[2, 2]:
        s = math.sqrt(1.0 + m[1, 1] - m[0, 0] - m[2, 2]) * 2
        q = [(m[0, 2] - m[2, 0]) / s, (m[0, 1] + m[1, 0]) / s, 0.25 * s, (m[1, 2] + m[2, 1]) / s]
    else:
        s = math.sqrt(1.0 + m[2, 2] - m[0, 0] - m[1, 1]) * 2
        q = [(m[1, 0] - m[0, 1]) / s, (m[0, 2] + m[2, 0]) / s, (m[1, 2] + m[2, 1]) / s, 0.25 * s]
    q = np.array(q)
    q /= np.linalg.norm(q)
    return -q if q[0] < 0 else q


def quat_to_mat(q):
    w, x, y, z = q
    return np.array([
        [1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
        [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
        [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)],
    ])


def slerp_mat(a, b, w):
    """Spherical blend of two rotation matrices (w = 0 -> a, 1 -> b)."""
    if w <= 0.0:
        return a
    if w >= 1.0:
        return b
    qa, qb = mat_to_quat(a), mat_to_quat(b)
    d = float(np.dot(qa, qb))
    if d < 0:
        qb, d = -qb, -d
    if d > 0.9995:
        q = qa + w * (qb - qa)
    else:
        th = math.acos(d)
        q = (math.sin((1 - w) * th) * qa + math.sin(w * th) * qb) / math.sin(th)
    return quat_to_mat(q / np.linalg.norm(q))


# --------------------------------------------------------------------------------------
# Curves
# --------------------------------------------------------------------------------------
def smoothstep(x):
    x = min(max(x, 0.0), 1.0)
    return x * x * (3.0 - 2.0 * x)


def ramp(t, t0, t1):
    """Smooth 0 -> 1 as t goes t0 -> t1."""
    if t1 <= t0:
        return 1.0 if t >= t1 else 0.0
    return smoothstep((t - t0) / (t1 - t0))


class Curve:
    """Monotone piecewise-cubic (PCHIP) interpolation through keys [(t, value), ...].

    C1-smooth, never overshoots the keys, flat before the first / after the last key.
    """

    def __init__(self, keys):
        self.t = np.array([k[0] for k in keys], dtype=np.float64)
        self.v = np.array([np.atleast_1d(np.asarray(k[1], dtype=np.float64)) for k in keys])
        self.scalar = np.ndim(keys[0][1]) == 0
        n = len(self.t)
        h = np.diff(self.t)
        d = np.diff(self.v, axis=0) / h[:, None] if n > 1 else np.zeros((0, self.v.shape[1]))
        m = np.zeros_like(self.v)
        for i in range(1, n - 1):
            w1, w2 = 2 * h[i] + h[i - 1], h[i] + 2 * h[i - 1]
            for c in range(self.v.shape[1]):
                a, b = d[i - 1, c], d[i, c]
                if a * b > 0:
                    m[i, c] = (w1 + w2) / (w1 / a + w2 / b)
        self.m = m

    def __call__(self, t):
        ts = self.t
        if t <= ts[0]:
            out = self.v[0]
        elif t >= ts[-1]:
            out = self.v[-1]
        else:
            i = int(np.searchsorted(ts, t, side="right")) - 1
            h = ts[i + 1] - ts[i]
            s = (t - ts[i]) / h
            h00 = 2 * s ** 3 - 3 * s ** 2 + 1
            h10 = s ** 3 - 2 * s ** 2 + s
            h01 = -2 * s ** 3 + 3 * s ** 2
            h11 = s ** 3 - s ** 2
            out = h00 * self.v[i] + h10 * h * self.m[i] + h01 * self.v[i + 1] + h11 * h * self.m[i + 1]
        return float(out[0]) if self.scalar else out.copy()


def curves(table):
    """{name: [(t, v), ...]} -> {name: Curve}."""
    return {k: Curve(v) for k, v in table.items()}


# --------------------------------------------------------------------------------------
# Posing: torso forward kinematics, two-bone IK, per-frame solve
# --------------------------------------------------------------------------------------
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


# --------------------------------------------------------------------------------------
# Effector (hand / foot) plans
# --------------------------------------------------------------------------------------
class Plant:
    """A contact: the effector joint holds `pos` from t0 to t1 and touches `surface`."""

    def __init__(self, t0, t1, pos, surface_z, reach_in=0.0, reach_out=0.0, rot=None, surface=None):
        self.t0, self.t1 = float(t0), float(t1)
        self.pos = np.array(pos, dtype=np.float64)
        self.surface = np.array(surface if surface is not None else (pos[0], pos[1], surface_z),
                                dtype=np.float64)
        self.reach_in, self.reach_out = reach_in, reach_out
        self.rot = rot


class EffectorPlan:
    """Plants in time order; between plants either a 'step' (lifted arc) or 'free' motion.

    Free motion comes from `free(t)` (e.g. relative to the body); blending into / out of a
    plant takes the plant's reach_in / reach_out seconds.  Returns (target, plant weight, plant).
    """

    def __init__(self, plants, gaps=(), free=None, lift=0.08, arc=0.0):
        self.plants = plants
        self.gaps = list(gaps) or ["step"] * (len(plants) - 1)
        self.free = free
        self.lift = lift
        self.arc = arc      # upward bulge of the path while reaching in/out of a plant

    def _blend_free(self, t, plant, w):
        if self.free is None or w >= 1.0:
            return plant.pos.copy(), 1.0, plant
        free = self.free(t)
        pos = free + w * (plant.pos - free)
        pos[2] += self.arc * math.sin(math.pi * w)
        return pos, w, plant

    def weight(self, t):
        """How much the effector is held by a plant at time t (1 inside a plant, 0 when free)."""
        for i, p in enumerate(self.plants):
            if p.t0 <= t <= p.t1:
                return 1.0
            if t < p.t0:
                prev = self.plants[i - 1] if i > 0 else None
                if prev is not None and self.gaps[i - 1] == "step":
                    return 1.0
                w_in = ramp(t, p.t0 - p.reach_in, p.t0) if p.reach_in else (1.0 if prev is None else 0.0)
                w_out = 0.0
                if prev is not None:
                    w_out = 1.0 - ramp(t, prev.t1, prev.t1 + prev.reach_out) if prev.reach_out else 0.0
                return max(w_in, w_out)
        last = self.plants[-1]
        return 1.0 - ramp(t, last.t1, last.t1 + last.reach_out) if last.reach_out else 1.0

    def __call__(self, t):
        ps = self.plants
        if t < ps[0].t0:
            p = ps[0]
            return self._blend_free(t, p, ramp(t, p.t0 - p.reach_in, p.t0) if p.reach_in else 1.0)
        if t > ps[-1].t1:
            p = ps[-1]
            return self._blend_free(t, p, 1.0 - ramp(t, p.t1, p.t1 + p.reach_out) if p.reach_out else 1.0)
        for i, p in enumerate(ps):
            if p.t0 <= t <= p.t1:
                return p.pos.copy(), 1.0, p
            nxt = ps[i + 1]
            if p.t1 < t < nxt.t0:
                if self.gaps[i] == "step":
                    u = (t - p.t1) / (nxt.t0 - p.t1)
                    pos = p.pos + smoothstep(u) * (nxt.pos - p.pos)
                    pos[2] += self.lift * math.sin(math.pi * u)
                    return pos, 1.0, None
                w_out = 1.0 - ramp(t, p.t1, p.t1 + p.reach_out) if p.reach_out else 0.0
                w_in = ramp(t, nxt.t0 - nxt.reach_in, nxt.t0) if nxt.reach_in else 0.0
                if w_in >= w_out:
                    return self._blend_free(t, nxt, w_in)
                return self._blend_free(t, p, w_out)
        raise AssertionError("unreachable")

    def contacts(self, joint):
        return [contact_record(joint, p.t0, p.t1, p.pos, p.surface) for p in self.plants]


def contact_record(joint, t0, t1, pos, surface):
    r = lambda v: [round(float(x), 4) + 0.0 for x in v]  # noqa: E731  (+0.0: no "-0.0")
    return {"joint": joint, "start": round(float(t0), 4), "end": round(float(t1), 4),
            "pos": r(pos), "surface": r(surface)}


def flat_foot(heading=0.0, pitch=0.0):
    return rz(heading) @ rx(pitch)


# --------------------------------------------------------------------------------------
# Gait (walk / run): periodic foot plants with heel strike and toe-off roll
# --------------------------------------------------------------------------------------
HEEL = np.array([0.0, -0.06, -ANKLE_H])   # heel contact point relative to the ankle
BALL = np.array([0.0, 0.12, -ANKLE_H])    # ball-of-foot pivot relative to the ankle


class Gait:
    """Periodic gait for one foot.

    Cycle of length T; the ankle is planted (flat foot) during [flat0, flat1] of each cycle
    (fractions of T, offset by `phase`), at y = y0 + k * stride for cycle k.  Before the flat
    phase the foot rolls down from the heel (heel_pitch), after it rolls over the ball
    (toe_pitch), then swings with a lifted arc to the next heel strike.
    """

    def __init__(self, T, stride, x, y0, phase, flat, heel=(0.06, 0.25), toe=(0.12, -0.6),
                 lift=0.08, tuck=0.0):
        self.T, self.stride, self.x, self.y0, self.phase = T, stride, x, y0, phase
        self.flat0, self.flat1 = flat
        self.heel_len, self.heel_pitch = heel
        self.toe_len, self.toe_pitch = toe
        self.lift, self.tuck = lift, tuck

    def plant_pos(self, k):
        return np.array([self.x, self.y0 + k * self.stride, ANKLE_H])

    def _heel_pose(self, k, pitch):
        heel = self.plant_pos(k) + HEEL
        return heel - rx(pitch) @ HEEL, pitch

    def _toe_pose(self, k, pitch):
        ball = self.plant_pos(k) + BALL
        return ball - rx(pitch) @ BALL, pitch

    def __call__(self, t):
        """(ankle position, foot pitch, planted?) at time t."""
        c = t / self.T - self.phase
        k = math.floor(c - self.flat0 + self.heel_len)   # cycle whose heel strike began last
        u = c - k                                         # flat0 - heel_len <= u < ... + 1
        h0 = self.flat0 - self.heel_len
        t1 = self.flat1 + self.toe_len
        if u < self.flat0:
            pitch = self.heel_pitch * (1.0 - smoothstep((u - h0) / self.heel_len))
            pos, pitch = self._heel_pose(k, pitch)
            return pos, pitch, False
        if u <= self.flat1:
            return self.plant_pos(k), 0.0, True
        if u < t1:
            pitch = self.toe_pitch * smoothstep((u - self.flat1) / self.toe_len)
            pos, pitch = self._toe_pose(k, pitch)
            return pos, pitch, False
        # swing from toe-off (cycle k) to the heel strike of cycle k + 1
        a, pa = self._toe_pose(k, self.toe_pitch)
        b, pb = self._heel_pose(k + 1, self.heel_pitch)
        s = (u - t1) / (h0 + 1.0 - t1)
        e = smoothstep(s)
        pos = a + e * (b - a)
        pos[2] += self.lift * math.sin(math.pi * s) ** 1.5
        pos[1] -= self.tuck * math.sin(math.pi * s) * (1.0 - s)
        pitch = pa + e * (pb - pa)
        return pos, pitch, False

    def contacts(self, joint, duration):
        """Flat-foot windows intersecting [0, duration] (clipped)."""
        out = []
        k0 = math.floor(-self.phase - 1)
        for k in range(k0, k0 + int(duration / self.T) + 3):
            s = (k + self.phase + self.flat0) * self.T
            e = (k + self.phase + self.flat1) * self.T
            if e <= 0 or s >= duration:
                continue
            pos = self.plant_pos(k)
            out.append(contact_record(joint, max(s, 0.0), min(e, duration), pos, (pos[0], pos[1], 0.0)))
        return out


# --------------------------------------------------------------------------------------
# Clips
# --------------------------------------------------------------------------------------
class Clip:
    def __init__(self, name, duration, loop, pose_fn, contacts, obstacle=None):
        self.name, self.duration, self.loop = name, duration, loop
        self.pose_fn, self.contacts, self.obstacle = pose_fn, contacts, obstacle
        self.frames = int(round(duration * FPS))

    def poses(self):
        return [self.pose_fn(k / FPS) for k in range(self.frames + 1)]


def relaxed_hand(W, P, s, out=0.06, fwd=0.03, up=-0.50):
    """Hand target for a hanging arm, relative to the shoulder in the chest frame."""
    return P[f"upper_arm_{s}"] + body_vec(W, "chest", s, (out, fwd, up))


def elbow_pole(W, s, out=0.35, back=1.0, down=0.2):
    return body_vec(W, "chest", s, (out, -back, -down))


def knee_pole(W, s, out=0.1, up=0.4, fwd=1.0):
    return body_vec(W, "hips", s, (out, fwd, up))


def set_free_arms(pose, W, P, swing=0.0, amp=0.0, out=0.06, up=-0.50, fwd=0.03, rise=0.0,
                  pole=(0.35, 1.0, 0.2)):
    """Both arms hanging / swinging (swing = phase of the left arm, -1..1).

    The hand moves `amp` forward/back and `rise` up when forward (an arc)."""
    for s, side in SIDES:
        sw = swing if s == "l" else -swing
        target = relaxed_hand(W, P, s, out, fwd + amp * sw, up + rise * sw)
        pose.hands[s] = {"target": target, "pole": elbow_pole(W, s, *pole)}


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


def walk_clip():
    T, speed = 1.0, 1.4
    stride = speed * T
    flat = (0.06, 0.42)
    # right foot flat phase centred on phase 0.24, left half a cycle later
    gaits = {
        "r": Gait(T, stride, 0.10, stride * 0.24, 0.0, flat, heel=(0.08, 0.3), toe=(0.14, -0.6),
                  lift=0.07),
        "l": Gait(T, stride, -0.10, stride * 0.74, 0.5, flat, heel=(0.08, 0.3), toe=(0.14, -0.6),
                  lift=0.07),
    }
    return gait_clip("walk", T, speed, hips_h=0.935, bob=0.02, lean_fwd=0.06, gaits=gaits,
                     arm_amp=0.17, arm_out=0.06, arm_up=-0.50, arm_fwd=0.04, yaw_amp=0.12,
                     bob_sign=1.0)


def run_clip():
    T, speed = 0.7, 4.0
    stride = speed * T
    flat = (0.20, 0.36)
    gaits = {
        "r": Gait(T, stride, 0.08, stride * 0.28, 0.0, flat, heel=(0.04, 0.15), toe=(0.10, -0.7),
                  lift=0.36, tuck=0.25),
        "l": Gait(T, stride, -0.08, stride * 0.78, 0.5, flat, heel=(0.04, 0.15), toe=(0.10, -0.7),
                  lift=0.36, tuck=0.25),
    }
    return gait_clip("run", T, speed, hips_h=0.895, bob=0.03, lean_fwd=0.2, gaits=gaits,
                     arm_amp=0.20, arm_out=0.03, arm_up=-0.30, arm_fwd=0.06, yaw_amp=0.15,
                     bob_sign=-1.0, arm_rise=0.10, elbow=(0.3, 1.0, 0.8))


# ---- helpers for the obstacle clips ---------------------------------------------------
ARM_REACH = UPPER_ARM + FOREARM


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


def body_pose(c, t, **extra):
    """Torso pose from curves: root_y/root_z (root motion) and body_y/body_z (hips, world)."""
    root = np.array([0.0, c["root_y"](t), c["root_z"](t)])
    hips = np.array([0.0, c["body_y"](t), c["body_z"](t)]) - root
    return torso_pose(root=root, hips=hips, lean_fwd=c["lean"](t), look=c["look"](t), **extra)


def box_obstacle(bmin, bmax):
    bmin, bmax = np.array(bmin, dtype=np.float64), np.array(bmax, dtype=np.float64)
    pos = [(bmin[0] + bmax[0]) / 2, (bmin[1] + bmax[1]) / 2, bmin[2]]
    r = lambda v: [round(float(x), 4) + 0.0 for x in v]  # noqa: E731
    return {"shape": "box", "pos": r(pos), "size": r(bmax - bmin), "min": r(bmin), "max": r(bmax)}


def collect_contacts(hand_plans, foot_plans):
    contacts = []
    for s, _ in SIDES:
        contacts += hand_plans[s].contacts(f"hand_{s}") + foot_plans[s].contacts(f"foot_{s}")
    contacts.sort(key=lambda c_: (c_["start"], c_["joint"]))
    return contacts


# ---- vault ----------------------------------------------------------------------------
VAULT_BOX = {"min": (-0.6, 1.0, 0.0), "max": (0.6, 1.6, 1.0)}


def vault_clip():
    """Two-hand tuck vault over a 1.0 m box (near face 1.0 m ahead), landing ~1 m past it."""
    T = 2.3
    top = VAULT_BOX["max"][2]
    t_plant, t_release, t_land = 0.70, 0.98, 1.50
    hand_pos = {s: (side * 0.22, 1.06, top + 0.03) for s, side in SIDES}
    c = curves({
        # hips (world): approach, spring up behind the hands, fly over tucked, land, recover
        "body_y": [(0.0, 0.0), (0.35, 0.26), (t_plant, 0.60), (0.86, 0.72), (t_release, 0.86),
                   (1.15, 1.30), (1.32, 1.90), (t_land, 2.42), (1.72, 2.54), (T, 2.6)],
        "body_z": [(0.0, HIPS_H), (0.35, 0.93), (0.6, 0.85), (t_plant, 0.90), (0.86, 1.30),
                   (t_release, 1.40), (1.15, 1.47), (1.32, 1.30), (t_land, 0.92), (1.72, 0.72),
                   (T, STAND_H)],
        "lean": [(0.0, 0.02), (0.35, 0.15), (t_plant, 0.6), (0.86, 1.25), (t_release, 1.1),
                 (1.15, 0.6), (1.32, 0.3), (t_land, 0.25), (1.72, 0.5), (T, 0.02)],
        "look": [(0.0, 0.1), (t_plant, 0.35), (t_release, 0.2), (1.6, 0.15), (T, 0.0)],
        # root motion: smooth COM-like path rising to about the box top
        "root_y": [(0.0, 0.0), (0.35, 0.26), (t_plant, 0.62), (t_release, 1.00), (1.15, 1.32),
                   (1.32, 1.90), (t_land, 2.42), (1.72, 2.56), (T, 2.6)],
        "root_z": [(0.0, 0.0), (0.55, 0.0), (t_plant, 0.05), (t_release, 0.75), (1.12, 0.95),
                   (1.25, 0.9), (t_land, 0.0), (T, 0.0)],
        # free arms (relative to the shoulders, chest frame)
        "arm_fwd": [(0.0, 0.03), (0.35, 0.1), (t_plant, 0.3), (1.2, 0.3), (1.55, 0.25), (T, 0.04)],
        "arm_up": [(0.0, -0.50), (0.35, -0.45), (1.2, -0.38), (1.55, -0.40), (T, -0.50)],
        # tucked feet relative to the hips (world axes): (forward, up)
        "tuck": [(0.72, (-0.12, -0.70)), (0.86, (0.0, -0.19)), (t_release, (0.06, -0.15)),
                 (1.15, (0.08, -0.22)), (1.32, (0.15, -0.45)), (1.45, (0.18, -0.78))],
    })
    hand_plans = {s: EffectorPlan(
        [Plant(t_plant, t_release, hand_pos[s], top, reach_in=0.3, reach_out=0.25,
               rot=hand_plant_rot(s, fingers=(side * 0.15, 1.0, 0.0)))], arc=0.12)
        for s, side in SIDES}
    # feet: two approach steps, take off together, fly (tucked), land side by side
    steps = {"r": [((0.0, 0.12), (0.10, 0.0)), ((0.40, 0.72), (0.11, 0.50))],
             "l": [((0.0, 0.34), (-0.10, 0.0)), ((0.58, 0.70), (-0.11, 0.46))]}
    land = {"r": ((t_land, T), (0.12, 2.64)), "l": ((t_land + 0.03, T), (-0.12, 2.58))}
    foot_plans = {}
    for s, side in SIDES:
        plants = [Plant(a, b, (x, y, ANKLE_H), 0.0) for (a, b), (x, y) in steps[s]]
        plants[-1].reach_out = 0.22
        (a, b), (x, y) = land[s]
        plants.append(Plant(a, b, (x, y, ANKLE_H), 0.0, reach_in=0.26))
        foot_plans[s] = EffectorPlan(plants, gaps=["step", "free"], lift=0.12)

    def pose_fn(t):
        pose = body_pose(c, t)
        W, P = torso_fk(pose)
        for s, _ in SIDES:   # free-arm targets for the grip blend need the uncorrected body
            hand_plans[s].free = lambda tt, s=s: relaxed_hand(W, P, s, 0.08, c["arm_fwd"](tt), c["arm_up"](tt))
        grip = hand_plans["l"].weight(t)
        W, P = reach_correct(pose, {s: hand_plans[s](t)[0] for s, _ in SIDES}, grip)
        for s, side in SIDES:
            plan = hand_plans[s]
            plan.free = lambda tt, s=s: relaxed_hand(W, P, s, 0.08, c["arm_fwd"](tt), c["arm_up"](tt))
            target, w, plant = plan(t)
            pose.hands[s] = {"target": target, "pole": elbow_pole(W, s, out=0.5, back=1.0, down=0.0),
                             "rot": plant.rot if plant is not None else None, "weight": w}
            fplan = foot_plans[s]
            fplan.free = lambda tt, s=s, side=side: P["hips"] + np.array([side * 0.07, *c["tuck"](tt)])
            target, w, _ = fplan(t)
            tucked = 1.0 - w      # knees up towards the chest while tucked (world-space pole)
            pole = (1.0 - tucked) * knee_pole(W, s, out=0.05, up=0.6) + \
                tucked * np.array([side * 0.15, 1.0, 0.3])
            pose.feet[s] = {"target": target, "pole": pole,
                            "rot": flat_foot(0.0, -0.2 * (1.0 - w))}
        return pose

    return Clip("vault", T, False, pose_fn, collect_contacts(hand_plans, foot_plans),
                box_obstacle(VAULT_BOX["min"], VAULT_BOX["max"]))


# ---- mantle ---------------------------------------------------------------------------
LEDGE_FACE_Y = 0.5


def mantle_clip(name, height, jump):
    """Climb onto a ledge `height` high whose face is 0.5 m ahead; `jump` adds a jump to grab.

    Phases: step in, (jump and) grab the edge, pull, press over the hands, right foot onto
    the ledge, stand up on it while the left foot follows.
    """
    H = height
    dt = 0.3 if jump else 0.0            # extra time for the jump
    T = round(2.0 + dt, 4)
    t_grab = 0.48 + dt
    t_lift = 0.55 if jump else 0.62       # feet leave the ground
    t_release = 1.38 + dt
    hand_pos = {s: (side * 0.22, LEDGE_FACE_Y - 0.02, H + 0.05) for s, side in SIDES}
    if jump:   # step in, crouch, jump, grab with the body hanging below the hands
        approach = {"body_y": [(0.0, 0.0), (0.3, 0.10), (0.45, 0.12), (t_grab, 0.20)],
                    "body_z": [(0.0, HIPS_H), (0.3, 0.92), (0.45, 0.80), (t_grab, H - 0.84),
                               (0.6 + dt, H - 0.90)],
                    "root_z": [(0.0, 0.0), (0.45, 0.0), (t_grab, H - 1.80), (0.6 + dt, H - 1.85)]}
    else:      # step in, reach up and grab, dip
        approach = {"body_y": [(0.0, 0.0), (0.3, 0.11), (t_grab, 0.14)],
                    "body_z": [(0.0, HIPS_H), (0.3, 0.95), (t_grab, 0.93), (0.6, 0.86)],
                    "root_z": [(0.0, 0.0), (0.6, 0.0)]}
    c = curves({
        "body_y": approach["body_y"] + [(0.85 + dt, 0.20), (1.05 + dt, 0.18), (1.25 + dt, 0.20),
                                        (1.55 + dt, 0.76), (1.8 + dt, 0.96), (T, 1.0)],
        "body_z": approach["body_z"] + [(0.85 + dt, H - 0.25), (1.05 + dt, H + 0.12),
                                        (1.25 + dt, H + 0.36), (1.55 + dt, H + 0.64),
                                        (1.8 + dt, H + 0.90), (T, H + STAND_H)],
        "root_y": [(0.0, 0.0), (0.3, 0.10), (t_grab, 0.13), (1.05 + dt, 0.25), (1.25 + dt, 0.40),
                   (1.55 + dt, 0.78), (1.8 + dt, 0.96), (T, 1.0)],
        "root_z": approach["root_z"] + [(0.85 + dt, H - 1.20), (1.05 + dt, H - 0.95),
                                        (1.25 + dt, H - 0.72), (1.55 + dt, H - 0.30),
                                        (1.8 + dt, H - 0.06), (T, H)],
        "lean": [(0.0, 0.03), (t_grab, -0.05), (0.7 + dt, -0.02), (0.85 + dt, 0.15), (1.05 + dt, 0.75),
                 (1.25 + dt, 1.1), (1.55 + dt, 0.5), (1.8 + dt, 0.15), (T, 0.02)],
        "look": [(0.0, -0.3), (t_grab, -0.35), (0.9 + dt, -0.1), (1.3 + dt, 0.35), (T, 0.0)],
        # free arms: reach up before the grab, hang after the release
        "arm_fwd": [(0.0, 0.03), (0.15, 0.15), (t_grab, 0.2), (t_release, 0.3), (T, 0.04)],
        "arm_up": [(0.0, -0.5), (0.08, -0.45), (0.38, 0.25), (t_grab, 0.4), (t_release, -0.2),
                   (T, -0.50)],
    })
    top = H + ANKLE_H
    # Ankle paths (world y, z) while off the ground: up the wall, toes down, over the edge.
    free_paths = {
        "r": Curve([(t_lift, (0.10, ANKLE_H)), (0.85 + dt, (0.20, H - 0.85)),
                    (1.05 + dt, (0.20, H - 0.42)), (1.2 + dt, (0.26, H + 0.02)),
                    (1.3 + dt, (0.50, H + 0.20))]),
        "l": Curve([(t_lift + 0.04, (0.06, ANKLE_H)), (0.9 + dt, (0.20, H - 0.95)),
                    (1.15 + dt, (0.22, H - 0.55)), (1.35 + dt, (0.24, H - 0.28)),
                    (1.5 + dt, (0.28, H + 0.05)), (1.62 + dt, (0.55, H + 0.25)),
                    (1.72 + dt, (0.85, H + 0.20))]),
    }
    start = {"r": (0.10, 0.0), "l": (-0.10, 0.0)}
    step_in = {"r": (0.10, 0.10), "l": (-0.10, 0.06)}
    on_top = {"r": ((1.38 + dt, T), (0.11, 0.92)), "l": ((1.8 + dt, T), (-0.11, 1.04))}
    foot_plans = {}
    for s, side in SIDES:
        lift = t_lift + (0.0 if s == "r" else 0.04)
        plants = [Plant(0.0, 0.08 if s == "r" else 0.12, start[s] + (ANKLE_H,), 0.0),
                  Plant(0.26 if s == "r" else 0.30, lift, step_in[s] + (ANKLE_H,), 0.0,
                        reach_out=0.1)]
        (a, b), (x, y) = on_top[s]
        plants.append(Plant(a, b, (x, y, top), H, reach_in=0.12))
        path = free_paths[s]

        def free_foot(t, path=path, x=side * 0.11):
            y, z = path(t)
            return np.array([x, y, z])
        foot_plans[s] = EffectorPlan(plants, gaps=["step", "free"], free=free_foot, lift=0.06)

    hand_plans = {s: EffectorPlan(
        [Plant(t_grab, t_release, hand_pos[s], H, reach_in=0.3, reach_out=0.3,
               rot=hand_plant_rot(s, fingers=(side * 0.1, 1.0, -0.15)),
               surface=(hand_pos[s][0], LEDGE_FACE_Y, H))], arc=0.08)
        for s, side in SIDES}

    def pose_fn(t):
        pose = body_pose(c, t)
        W, P = torso_fk(pose)
        for s, _ in SIDES:   # free-arm targets for the grip blend need the uncorrected body
            hand_plans[s].free = lambda tt, s=s: relaxed_hand(W, P, s, 0.1, c["arm_fwd"](tt), c["arm_up"](tt))
        grip = hand_plans["l"].weight(t)
        W, P = reach_correct(pose, {s: hand_plans[s](t)[0] for s, _ in SIDES}, grip)
        press = ramp(t, 0.95 + dt, 1.2 + dt)    # elbows: down/out while pulling, back when pressing
        for s, side in SIDES:
            plan = hand_plans[s]
            plan.free = lambda tt, s=s: relaxed_hand(W, P, s, 0.1, c["arm_fwd"](tt), c["arm_up"](tt))
            target, w, plant = plan(t)
            pole = (1.0 - press) * elbow_pole(W, s, out=1.0, back=0.3, down=1.0) + \
                press * elbow_pole(W, s, out=0.4, back=1.0, down=0.0)
            pose.hands[s] = {"target": target, "pole": pole,
                             "rot": plant.rot if plant is not None else None, "weight": w}
            target, w, _ = foot_plans[s](t)
            climb = ramp(t, t_lift, t_lift + 0.2) * (1.0 - w)
            # climbing knee: out to the side below the edge (clear of the wall), forward once above it
            over = ramp(target[2], H - 0.1, H + 0.25)
            climb_pole = (1.0 - over) * np.array([side * 1.0, 0.15, 0.4]) + over * np.array([side * 0.4, 1.0, 0.6])
            knee = (1.0 - climb) * knee_pole(W, s, out=0.1, up=0.5) + climb * climb_pole
            dangle = ramp(t, t_lift, t_lift + 0.35) * (1.0 - w)      # toes drop while hanging
            pose.feet[s] = {"target": target, "pole": knee, "rot": flat_foot(0.0, -1.0 * dangle)}
        return pose

    obstacle = box_obstacle((-1.5, LEDGE_FACE_Y, 0.0), (1.5, LEDGE_FACE_Y + 2.0, H))
    return Clip(name, T, False, pose_fn, collect_contacts(hand_plans, foot_plans), obstacle)


def all_clips():
    return [idle_clip(), walk_clip(), run_clip(), vault_clip(),
            mantle_clip("mantle", 1.5, jump=False), mantle_clip("mantle_high", 2.0, jump=True)]


# --------------------------------------------------------------------------------------
# Mesh
# --------------------------------------------------------------------------------------
def _grid_tris(rings, n, pole_lo, pole_hi):
    """Triangles for `rings` rings of n vertices (after an optional bottom pole vertex 0)."""
    tris = []
    base = 1 if pole_lo else 0
    if pole_lo:
        tris += [(0, base + (j + 1) % n, base + j) for j in range(n)]
    for r in range(rings - 1):
        a, b = base + r * n, base + (r + 1) * n
        for j in range(n):
            j2 = (j + 1) % n
            tris += [(a + j, a + j2, b + j2), (a + j, b + j2, b + j)]
    if pole_hi:
        top = base + rings * n
        last = base + (rings - 1) * n
        tris += [(top, last + j, last + (j + 1) % n) for j in range(n)]
    return np.array(tris, dtype=np.int64)


def ellipsoid(center, radii, axes=I3, n_around=16, n_rings=12, power=1.0):
    """(Super)ellipsoid: axes columns = local x, y, z; poles along local z. power<1 is boxier."""
    verts = [(0.0, 0.0, -1.0)]
    for i in range(1, n_rings):
        phi = -math.pi / 2 + math.pi * i / n_rings
        for j in range(n_around):
            th = 2 * math.pi * j / n_around
            verts.append((math.cos(phi) * math.cos(th), math.cos(phi) * math.sin(th), math.sin(phi)))
    verts.append((0.0, 0.0, 1.0))
    v = np.array(verts)
    v = np.sign(v) * np.abs(v) ** power
    v = v * np.asarray(radii) @ np.asarray(axes).T + np.asarray(center)
    return v, _grid_tris(n_rings - 1, n_around, True, True)


def capsule(p0, p1, r0, r1, n_around=16, n_body=6, n_cap=4, aspect=1.0, side_hint=(1, 0, 0)):
    """Tapered capsule from p0 (radius r0) to p1 (radius r1); aspect scales the 2nd cross axis."""
    p0, p1 = np.asarray(p0, float), np.asarray(p1, float)
    a = unit(p1 - p0)
    u = frame_matrix(a, side_hint)[:, 1]
    w = np.cross(a, u)
    rings = []   # (center, radius)
    for i in range(1, n_cap + 1):
        phi = -math.pi / 2 + (math.pi / 2) * i / (n_cap + 1)
        rings.append((p0 + a * r0 * math.sin(phi), r0 * math.cos(phi)))
    for i in range(n_body + 1):
        f = i / n_body
        rings.append((p0 + f * (p1 - p0), r0 + f * (r1 - r0)))
    for i in range(1, n_cap + 1):
        phi = (math.pi / 2) * i / (n_cap + 1)
        rings.append((p1 + a * r1 * math.sin(phi), r1 * math.cos(phi)))
    verts = [p0 - a * r0]
    for cen, rad in rings:
        for j in range(n_around):
            th = 2 * math.pi * j / n_around
            verts.append(cen + rad * (math.cos(th) * u + aspect * math.sin(th) * w))
    verts.append(p1 + a * r1)
    return np.array(verts), _grid_tris(len(rings), n_around, True, True)


def vertex_normals(v, tris):
    fn = np.cross(v[tris[:, 1]] - v[tris[:, 0]], v[tris[:, 2]] - v[tris[:, 0]])
    n = np.zeros_like(v)
    for k in range(3):
        np.add.at(n, tris[:, k], fn)
    return n / np.linalg.norm(n, axis=1, keepdims=True)


def bone_weights(v, p0, p1, bone, blend_lo=None, blend_hi=None):
    """Rigid weights to `bone`, optionally blended to a neighbour bone near either end.

    blend_lo/hi = (other_bone, fraction of length): at the end itself the weight is 50/50.
    """
    n = len(v)
    joints = np.zeros((n, 4), dtype=np.int64)
    weights = np.zeros((n, 4))
    joints[:, 0] = JOINT_INDEX[bone]
    weights[:, 0] = 1.0
    axis = np.asarray(p1, float) - np.asarray(p0, float)
    s = np.clip((v - p0) @ axis / np.dot(axis, axis), 0.0, 1.0)
    for blend, x in ((blend_lo, 1.0 - s), (blend_hi, s)):
        if blend is None:
            continue
        other, frac = blend
        k = np.clip((x - (1.0 - frac)) / frac, 0.0, 1.0)
        wo = 0.5 * k * k * (3 - 2 * k)
        joints[:, 1] = JOINT_INDEX[other]
        weights[:, 1] = wo
        weights[:, 0] = 1.0 - wo
    return joints, weights


def body_parts():
    """[(material, bone, vertices, triangles, (joints, weights))] for the bind pose."""
    R = REST
    parts = []

    def add(mat, bone, vt, blend_axis=None, blend_lo=None, blend_hi=None):
        v, t = vt
        p0, p1 = blend_axis if blend_axis is not None else (R[bone], R[bone] + (0, 0, 1))
        parts.append((mat, bone, v, t, bone_weights(v, p0, p1, bone, blend_lo, blend_hi)))

    # torso
    add("trousers", "hips", ellipsoid((0, -0.005, 0.935), (0.155, 0.105, 0.115), power=0.8))
    add("shirt", "spine", ellipsoid((0, -0.005, 1.14), (0.135, 0.088, 0.13), power=0.85))
    add("shirt", "chest", ellipsoid((0, 0.0, 1.325), (0.172, 0.105, 0.165), power=0.75))
    add("skin", "neck", capsule(R["neck"] + (0, 0.005, -0.04), R["head"] + (0, 0.005, 0.03),
                               0.048, 0.044))
    # head, nose, hair
    head_c = R["head"] + np.array([0.0, 0.012, 0.115])
    add("skin", "head", ellipsoid(head_c, (0.088, 0.104, 0.118)))
    add("skin", "head", ellipsoid(head_c + (0, 0.102, -0.02), (0.016, 0.024, 0.026), n_around=10,
                                  n_rings=8))
    add("shoes", "head", ellipsoid(head_c + (0, -0.025, 0.028), (0.093, 0.100, 0.103)))
    for s, side in SIDES:
        sh, el, wr = R[f"upper_arm_{s}"], R[f"forearm_{s}"], R[f"hand_{s}"]
        d = arm_dir(side)
        add("shirt", f"upper_arm_{s}", capsule(sh, el, 0.052, 0.042, side_hint=(0, 1, 0)),
            (sh, el), blend_hi=(f"forearm_{s}", 0.25))
        add("skin", f"forearm_{s}", capsule(el, wr, 0.040, 0.030, side_hint=(0, 1, 0)),
            (el, wr), blend_lo=(f"upper_arm_{s}", 0.25))
        axes = np.column_stack([d, np.cross(palm_normal(side), d), palm_normal(side)])
        add("skin", f"hand_{s}", ellipsoid(wr + 0.075 * d, (0.085, 0.044, 0.022), axes,
                                           n_around=12, n_rings=10, power=0.9))
        hip, kn, an = R[f"thigh_{s}"], R[f"shin_{s}"], R[f"foot_{s}"]
        add("trousers", f"thigh_{s}", capsule(hip + (0, 0, 0.02), kn, 0.085, 0.058, side_hint=(1, 0, 0)),
            (hip, kn), blend_hi=(f"shin_{s}", 0.2))
        add("trousers", f"shin_{s}", capsule(kn, an + (0, 0, 0.02), 0.056, 0.040, side_hint=(1, 0, 0)),
            (kn, an), blend_lo=(f"thigh_{s}", 0.2))
        add("shoes", f"foot_{s}", ellipsoid(an + (0.0, 0.06, -0.03), (0.052, 0.13, 0.05), power=0.7))
    return parts


MATERIALS = {
    "skin": (0.87, 0.66, 0.52, 1.0),
    "shirt": (0.18, 0.42, 0.72, 1.0),
    "trousers": (0.20, 0.21, 0.26, 1.0),
    "shoes": (0.10, 0.08, 0.07, 1.0),
}


def build_meshes():
    """{material: (positions, normals, joints, weights, triangles)} merged per material."""
    out = {}
    for mat, _bone, v, t, (j, w) in body_parts():
        n = vertex_normals(v, t)
        if mat not in out:
            out[mat] = [[], [], [], [], [], 0]
        acc = out[mat]
        acc[0].append(v), acc[1].append(n), acc[2].append(j), acc[3].append(w)
        acc[4].append(t + acc[5])
        acc[5] += len(v)
    return {m: tuple(np.concatenate(a[k]) for k in range(5)) for m, a in out.items()}


# --------------------------------------------------------------------------------------
# Baking and writing
# --------------------------------------------------------------------------------------
def bake(clip):
    """Solve every frame (0..N inclusive). Returns (channels, solved frames)."""
    solved = [solve_pose(p) for p in clip.poses()]
    times = np.arange(clip.frames + 1) / FPS
    channels = []
    for name in JOINT_NAMES:
        j = JOINT_INDEX[name]
        quats = []
        for local, *_ in solved:
            q = mat_to_quat(local[name][1])
            if quats and np.dot(q, quats[-1]) < 0:
                q = -q
            quats.append(q)
        if name in ("root", "hips"):
            channels.append((j, "translation", times, np.array([f[0][name][0] for f in solved]), "LINEAR"))
        channels.append((j, "rotation", times, np.array(quats), "LINEAR"))
    return channels, solved


def root_end(solved):
    local = solved[-1][0]
    pos, rot = local["root"]
    h = math.atan2(rot[1, 0], rot[0, 0])
    return [round(float(v), 4) + 0.0 for v in (pos[0], pos[1], pos[2], h)]


def build(out_dir):
    b = GltfBuilder("mannequin")
    mats = {name: b.add_material(name, rgba) for name, rgba in MATERIALS.items()}
    for name, parent, off in SKELETON:
        b.add_joint(name, None if parent is None else JOINT_INDEX[parent], translation=off)
    for mat, (v, n, j, w, t) in build_meshes().items():
        b.add_skinned_mesh(f"body_{mat}", v, n, j, w, t, mats[mat])
    contacts = {"format": "motionwarp.contacts/1", "fps": FPS, "clips": {}}
    baked = {}
    for clip in all_clips():
        channels, solved = bake(clip)
        b.add_animation(clip.name, channels)
        baked[clip.name] = (clip, solved)
        contacts["clips"][clip.name] = {
            "duration": clip.duration, "loop": clip.loop, "frames": clip.frames,
            "obstacle": clip.obstacle, "root_end": root_end(solved), "contacts": clip.contacts,
        }
    os.makedirs(out_dir, exist_ok=True)
    b.write_glb(os.path.join(out_dir, "mannequin.glb"))
    with open(os.path.join(out_dir, "mannequin.contacts.json"), "w", encoding="utf-8") as f:
        json.dump(contacts, f, indent=1, sort_keys=True)
        f.write("\n")
    return baked


def skinned_vertices(parts, P, W):
    """Posed vertex positions of each part (linear blend skinning, rest rotations are identity)."""
    out = []
    for mat, bone, v, _t, (j, w) in parts:
        acc = np.zeros_like(v)
        for k in range(4):
            for jj in np.unique(j[:, k]):
                name = JOINT_NAMES[jj]
                sel = (j[:, k] == jj) & (w[:, k] > 0)
                if np.any(sel):
                    pv = (v[sel] - REST[name]) @ W[name].T + P[name]
                    acc[sel] += w[sel, k][:, None] * pv
        out.append((bone, acc))
    return out


def check_clip(clip, solved, parts, margin=0.01):
    """Print IK shortfalls inside contact windows and body/obstacle or body/ground penetration."""
    print(f"--- {clip.name}")
    for c in clip.contacts:
        frames = [k for k in range(clip.frames + 1) if c["start"] - 1e-6 <= k / FPS <= c["end"] + 1e-6]
        errs = [float(np.linalg.norm(solved[k][1][c["joint"]] - np.array(c["pos"]))) for k in frames]
        if errs and max(errs) > 0.002:
            print(f"  contact {c['joint']} {c['start']}-{c['end']}: max error {max(errs) * 100:.1f} cm")
    ob = clip.obstacle
    for k, (_local, P, W, err) in enumerate(solved):
        bad = [f"{n}:{e * 100:.0f}cm" for n, e in err.items() if e > 0.005]
        hits = {}
        for bone, v in skinned_vertices(parts, P, W):
            depth = np.maximum(-v[:, 2], 0.0)
            if ob:
                lo, hi = np.array(ob["min"]) + margin, np.array(ob["max"]) - margin
                inside = np.all((v > lo) & (v < hi), axis=1)
                d = np.min(np.concatenate([v - lo, hi - v], axis=1), axis=1)
                depth = np.maximum(depth, np.where(inside, d, 0.0))
            if depth.max() > margin:
                hits[bone] = max(hits.get(bone, 0.0), float(depth.max()))
        if bad or hits:
            hs = " ".join(f"{b}:{d * 100:.0f}" for b, d in sorted(hits.items(), key=lambda x: -x[1])[:6])
            print(f"  f{k:3d} t={k / FPS:.2f} ik-short {' '.join(bad)} | penetration(cm) {hs}")


def main(argv):
    check = "--check" in argv
    argv = [a for a in argv if a != "--check"]
    out_dir = argv[1] if len(argv) > 1 else ASSETS_DIR
    baked = build(out_dir)
    if check:
        parts = body_parts()
        for name, (clip, solved) in baked.items():
            check_clip(clip, solved, parts)
    for name, (clip, solved) in baked.items():
        worst = max(max(e.values()) for *_, e in solved)
        print(f"{name:12s} {clip.duration:4.2f}s  {clip.frames + 1} keys  "
              f"root_end={root_end(solved)}  max IK shortfall={worst * 100:.1f} cm")
    print("wrote", os.path.join(out_dir, "mannequin.glb"))


if __name__ == "__main__":
    main(sys.argv)
