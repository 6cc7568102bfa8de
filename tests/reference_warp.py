"""An independent reference of the warp math (docs/design.md 4), in plain numpy.

Nothing here imports motionwarp, Panda3D or panda3d-gltf: the root joint's keys are read
straight from the .glb (JSON chunk + binary buffer), and the warper's frame-by-frame
behaviour is simulated from the contract, so tests can compare a real Actor against it.

How a clip reaches the Actor, and how the reference follows it:
* panda3d-gltf bakes every clip at 30 frames per second (`gltf-animation-fps`); with the
  project's LINEAR fix (docs/design.md 3) frame k holds the keys sampled at k / 30 s (LINEAR
  translation, slerped rotation) and the clip has ceil(duration * 30) + 1 frames: frames
  0 .. the first at or past the final key, which is sampled exactly once (a key time stored
  as float32 may lie a fraction of a microsecond past a whole frame: that is the same frame).
* Panda3D plays fractional frames (`getFullFframe`); root motion at a fractional frame is
  the straight line between the two baked frames around it (position and unwrapped
  heading), like the frame-blended Actor.
* A played clip's frame runs on to `num_frames` (one past the last baked frame, where the
  pose holds still) and stops there; only then does the warp finish.
* The play rate changes take effect from the frame after the one the warper set them in:
  Panda3D re-anchors the clip at the current time, so the frame that crosses a phase
  boundary still advanced at the old rate.

Details the contract leaves open, taken from the implementation (and checked against it):
* "smooth time weight" is smoothstep(u), u the normalised phase time;
* "blend toward the time weight when S_a(t1) is small next to |D_a|": the trust in the
  travel weight is clamp((S_a(t1) - still) / max(|D_a| / 2, still), 0, 1), still being
  `motionwarp-still-axis` (0.02 m by default); "~0" is S_a(t1) <= 1e-9;
* with `warp_rotation: false` the character turns by the clip's own heading change since
  t0, about its local Z (ordinary root motion), instead of slerping to Q;
* an axis left out of `axes` (or every axis, with `warp_translation: false`) gets D_a = 0;
* a phase with `defer_rise` whose D_z (the origin frame's up) is above 0 gets D_z = 0 and the goal
  T - R0 (0, 0, D_z) for the rest of the contract (the play rate's distance too);
* a phase with `warp_from` h (clip seconds) measures its weights from h: w = 0 up to h, then
  S_a(t) - S_a(h) over S_a(t1) - S_a(h) (S_a in the origin frame, from t0), and smoothstep((t - h) /
  (t1 - h)); the rotation's u still runs from t0.
"""
import math

import numpy as np

from .glb import accessor, read_glb

GLTF_FPS = 30


# -- rotations (column vectors, Panda3D axes: Z up, +Y forward) ----------------------------
def rot_z(degrees):
    c, s = math.cos(math.radians(degrees)), math.sin(math.radians(degrees))
    return np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])


def rot_x(degrees):
    c, s = math.cos(math.radians(degrees)), math.sin(math.radians(degrees))
    return np.array([[1.0, 0.0, 0.0], [0.0, c, -s], [0.0, s, c]])


def rot_y(degrees):
    c, s = math.cos(math.radians(degrees)), math.sin(math.radians(degrees))
    return np.array([[c, 0.0, s], [0.0, 1.0, 0.0], [-s, 0.0, c]])


def hpr_matrix(h, p=0.0, r=0.0):
    """Panda3D's HPR: roll about Y, then pitch about X, then heading about Z."""
    return rot_z(h) @ rot_x(p) @ rot_y(r)


def quat_matrix(w, x, y, z):
    n = math.sqrt(w * w + x * x + y * y + z * z)
    w, x, y, z = w / n, x / n, y / n, z / n
    return np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
                     [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
                     [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]])


def matrix_quat(m):
    """Unit quaternion (w, x, y, z) of a rotation matrix, by Shepperd's method: the largest of
    w, x, y, z from the diagonal, the others from off-diagonal sums and differences. (Taking each
    from the diagonal alone puts the square root of float32 noise, ~3e-4, into a component that
    should be 0: 0.003 degrees on a scaled character facing -125 degrees.)"""
    trace = m[0, 0] + m[1, 1] + m[2, 2]
    largest = max(range(4), key=lambda i: (trace, m[0, 0], m[1, 1], m[2, 2])[i])
    if largest == 0:
        w = math.sqrt(1.0 + trace) / 2
        q = [w, (m[2, 1] - m[1, 2]) / (4 * w), (m[0, 2] - m[2, 0]) / (4 * w), (m[1, 0] - m[0, 1]) / (4 * w)]
    elif largest == 1:
        x = math.sqrt(1.0 + m[0, 0] - m[1, 1] - m[2, 2]) / 2
        q = [(m[2, 1] - m[1, 2]) / (4 * x), x, (m[0, 1] + m[1, 0]) / (4 * x), (m[0, 2] + m[2, 0]) / (4 * x)]
    elif largest == 2:
        y = math.sqrt(1.0 - m[0, 0] + m[1, 1] - m[2, 2]) / 2
        q = [(m[0, 2] - m[2, 0]) / (4 * y), (m[0, 1] + m[1, 0]) / (4 * y), y, (m[1, 2] + m[2, 1]) / (4 * y)]
    else:
        z = math.sqrt(1.0 - m[0, 0] - m[1, 1] + m[2, 2]) / 2
        q = [(m[1, 0] - m[0, 1]) / (4 * z), (m[0, 2] + m[2, 0]) / (4 * z), (m[1, 2] + m[2, 1]) / (4 * z), z]
    q = np.array(q)
    return q / np.linalg.norm(q)


def quat_slerp(q0, q1, u):
    """Textbook slerp between unit quaternions along the shorter arc."""
    q0, q1 = np.asarray(q0, float), np.asarray(q1, float)
    dot = float(np.dot(q0, q1))
    if dot < 0.0:
        q1, dot = -q1, -dot
    theta = math.acos(min(dot, 1.0))
    if theta < 1e-9:
        return q0
    return (math.sin((1 - u) * theta) * q0 + math.sin(u * theta) * q1) / math.sin(theta)


def slerp_matrix(r0, r1, u):
    return quat_matrix(*quat_slerp(matrix_quat(r0), matrix_quat(r1), u))


def rotation_angle(r0, r1):
    """Degrees of the rotation taking r0 to r1 (|r0 - r1| = 2 sqrt(2) sin(angle / 2): exact near 0)."""
    chord = np.linalg.norm(np.asarray(r0) - np.asarray(r1)) / (2.0 * math.sqrt(2.0))
    return math.degrees(2.0 * math.asin(min(chord, 1.0)))


def heading_of(rotation):
    """Heading (degrees) of a rotation: where it turns the forward axis +Y, about Z."""
    forward = rotation @ np.array([0.0, 1.0, 0.0])
    return math.degrees(math.atan2(-forward[0], forward[1]))


def smoothstep(u):
    u = min(max(u, 0.0), 1.0)
    return u * u * (3.0 - 2.0 * u)


# -- the clip, from the .glb's raw keys ----------------------------------------------------
def _floats(doc, blob, index):
    return accessor(doc, blob, index).astype(np.float64)


def _gltf_to_panda(v):
    """glTF is Y-up: its (x, y, z) is Panda3D's (x, -z, y)."""
    return np.array([v[0], -v[2], v[1]])


class RawClip:
    """A clip's root joint, keyed exactly as authored, and the frames Panda3D plays of it."""

    def __init__(self, glb_path, clip, joint="root", fps=GLTF_FPS):
        doc, blob = read_glb(glb_path)
        node = next(i for i, n in enumerate(doc["nodes"]) if n.get("name") == joint)
        anim = next(a for a in doc["animations"] if a.get("name") == clip)
        self.keys = {}
        for channel in anim["channels"]:
            if channel["target"].get("node") != node:
                continue
            sampler = anim["samplers"][channel["sampler"]]
            assert sampler.get("interpolation", "LINEAR") == "LINEAR"
            times = _floats(doc, blob, sampler["input"])[:, 0]
            values = _floats(doc, blob, sampler["output"])
            self.keys[channel["target"]["path"]] = (times, values)
        self.fps = float(fps)
        # panda3d-gltf sizes a clip by the latest key of any joint, not only the root's.
        end = max(float(_floats(doc, blob, s["input"]).max()) for s in anim["samplers"])
        self.num_frames = math.ceil(end * fps - 1e-3) + 1
        samples = [self.sample_time(k / fps) for k in range(self.num_frames)]
        self.frame_pos = np.array([p for p, _ in samples])
        self.frame_heading = np.degrees(np.unwrap(np.radians([heading_of(r) for _, r in samples])))

    def _bracket(self, times, t):
        if t <= times[0]:
            return 0, 0, 0.0
        if t >= times[-1]:
            return len(times) - 1, len(times) - 1, 0.0
        i = int(np.searchsorted(times, t, side="right")) - 1
        return i, i + 1, (t - times[i]) / (times[i + 1] - times[i])

    def sample_time(self, t):
        """Root position (Panda3D axes) and rotation matrix at `t` seconds, from the raw keys."""
        pos = np.zeros(3)
        if "translation" in self.keys:
            times, values = self.keys["translation"]
            i, j, a = self._bracket(times, t)
            pos = _gltf_to_panda(values[i] * (1 - a) + values[j] * a)
        rot = np.eye(3)
        if "rotation" in self.keys:
            times, values = self.keys["rotation"]
            i, j, a = self._bracket(times, t)
            x, y, z, w = quat_slerp(values[i][[3, 0, 1, 2]], values[j][[3, 0, 1, 2]], a)[[1, 2, 3, 0]]
            vec = _gltf_to_panda((x, y, z))
            rot = quat_matrix(w, *vec)
        return pos, rot

    def root(self, frame):
        """Root position and heading at a fractional frame: a straight line between baked frames."""
        f = min(max(frame, 0.0), self.num_frames - 1.0)
        i = min(int(math.floor(f)), self.num_frames - 2)
        a = f - i
        pos = self.frame_pos[i] * (1 - a) + self.frame_pos[i + 1] * a
        return pos, self.frame_heading[i] * (1 - a) + self.frame_heading[i + 1] * a

    def displacement(self, f0, f):
        """A: the root's move from frame f0 to f, in the root's frame at f0."""
        p0, h0 = self.root(f0)
        p, _ = self.root(f)
        return rot_z(-h0) @ (p - p0)

    def travel(self, f0, f):
        """S: per-axis sum of |delta| of A from f0 to f, over the piecewise-linear curve."""
        grid = [f0] + [float(k) for k in range(math.floor(f0) + 1, math.ceil(f))] + [f]
        points = np.array([self.displacement(f0, g) for g in grid])
        return np.abs(np.diff(points, axis=0)).sum(axis=0)

    def relative(self, f0, f):
        """Root motion from f0 to f as (translation, rotation) in the root's frame at f0."""
        _, h0 = self.root(f0)
        _, h = self.root(f)
        return self.displacement(f0, f), rot_z(h - h0)


# -- one warp, frame by frame ----------------------------------------------------------------
class RefPhase:
    """A phase as the contract reads it (times in seconds, like the asset file)."""

    def __init__(self, start, end, t_offset=(0, 0, 0), r_offset=(0, 0, 0), min_rate=1.0, max_rate=1.0,
                 axes="xyz", warp_translation=True, warp_rotation=True, defer_rise=False, warp_from=None):
        self.start, self.end, self.defer_rise, self.warp_from = start, end, defer_rise, warp_from
        self.t_offset, self.r_offset = np.array(t_offset, float), tuple(r_offset)
        self.min_rate, self.max_rate = min_rate, max_rate
        self.axes, self.warp_translation, self.warp_rotation = axes, warp_translation, warp_rotation


class ReferenceWarp:
    """Where the contract puts the character after each frame, and the clip's play rate then.

    `targets` are (pos, rotation matrix) in world space; the character starts at `pos`, `rot`,
    uniformly scaled by `scale`: root motion is in model space, so it scales with the character
    (A, S and the play rate's |A(t1)| in metres are the clip's times `scale`).
    """

    def __init__(self, clip, phases, targets, pos, rot, base_rate=1.0, still=0.02, scale=1.0):
        self.clip, self.phases, self.targets = clip, phases, targets
        self.base_rate, self.still, self.scale = base_rate, still, scale
        self.frame, self.rate = 0.0, base_rate
        self.pos, self.rot = np.array(pos, float), np.array(rot, float)
        self.anchor = (self.pos, self.rot, 0.0)   # pose at a frame, from which root motion runs
        self.index, self.in_phase, self.origin = 0, False, None
        self.phase_rates = []
        self.finished = False

    def goal(self, phase, target):
        """T = target.pos + target.rot * t_offset, Q = target.rot * r_offset; with a deferred rise,
        T lowered along the origin's up by the part of D_z above 0 (the phase's origin must be set)."""
        pos, rot = target
        goal = pos + rot @ phase.t_offset
        if phase.defer_rise:
            p0, r0 = self.origin
            f0, f1 = phase.start * self.clip.fps, phase.end * self.clip.fps
            rise = (r0.T @ (goal - p0))[2] - self.clip.displacement(f0, f1)[2] * self.scale
            goal = goal - r0 @ np.array([0.0, 0.0, max(rise, 0.0)])
        return goal, rot @ hpr_matrix(*phase.r_offset)

    def advance(self, dt):
        """One frame of `dt` seconds; returns (frame, pos, rot, play rate after the frame)."""
        clip = self.clip
        cur = min(self.frame + dt * clip.fps * self.rate, float(clip.num_frames))
        while True:
            if self.in_phase:
                phase = self.phases[self.index]
                f1 = phase.end * clip.fps
                if cur < f1:
                    self.pos, self.rot = self._place(phase, cur)
                    break
                self.pos, self.rot = self._place(phase, f1)
                self.anchor = (self.pos, self.rot, f1)
                self.in_phase, self.index, self.rate = False, self.index + 1, self.base_rate
                continue
            next_start = self.phases[self.index].start * clip.fps if self.index < len(self.phases) else math.inf
            stop = min(cur, next_start)
            self.pos, self.rot = self._unwarped(stop)
            if cur < next_start:
                break
            self._start_phase(self.phases[self.index])
        self.frame = cur
        self.finished = cur >= clip.num_frames and self.index >= len(self.phases)
        if self.finished:
            self.rate = self.base_rate
        return cur, self.pos, self.rot, self.rate

    def _unwarped(self, frame):
        pos, rot, f = self.anchor
        move, turn = self.clip.relative(f, frame)
        return pos + rot @ (move * self.scale), rot @ turn

    def _start_phase(self, phase):
        self.in_phase = True
        self.origin = (self.pos, self.rot)
        f0, f1 = phase.start * self.clip.fps, phase.end * self.clip.fps
        goal, _ = self.goal(phase, self.targets[self.index])
        anim = np.linalg.norm(self.clip.displacement(f0, f1)) * self.scale
        if anim < self.still:
            factor = 1.0
        else:
            factor = min(max(anim / max(np.linalg.norm(goal - self.pos), 1e-6), phase.min_rate), phase.max_rate)
        self.phase_rates.append(factor)
        self.rate = self.base_rate * factor

    def _place(self, phase, frame):
        """P(t) = P0 + R0 (A(t) + D w(t)); slerp(R0, Q, u) (or the clip's own turn)."""
        p0, r0 = self.origin
        clip = self.clip
        f0, f1 = phase.start * clip.fps, phase.end * clip.fps
        goal, goal_rot = self.goal(phase, self.targets[self.index])
        end = clip.displacement(f0, f1) * self.scale
        need = r0.T @ (goal - p0)
        warp = np.array([need[a] - end[a] if phase.warp_translation and "xyz"[a] in phase.axes else 0.0
                         for a in range(3)])
        u = (frame - f0) / (f1 - f0)
        h = f0 if phase.warp_from is None else phase.warp_from * clip.fps
        weights = self.weights(f0, f1, frame, warp / self.scale, h)
        pos = p0 + r0 @ (clip.displacement(f0, frame) * self.scale + warp * weights)
        if phase.warp_rotation:
            return pos, slerp_matrix(r0, goal_rot, u)
        return pos, r0 @ self.clip.relative(f0, frame)[1]

    def weights(self, f0, f1, frame, warp, h=None):
        """w_a = S_a(t) / S_a(t1), blended toward smoothstep(u) where the clip barely moves; with `h` (the
        phase's `warp_from`, clip frames) S_a(t) - S_a(h) over S_a(t1) - S_a(h) (0 before h; S_a in the
        root frame at f0, as D is) and u from h.

        `warp` is D in the clip's own units (metres / scale), like S.
        """
        h = f0 if h is None else h
        held = self.clip.travel(f0, h)
        travel = self.clip.travel(f0, frame) - held if frame > h else np.zeros(3)
        total = self.clip.travel(f0, f1) - held
        time_w = smoothstep((frame - h) / (f1 - h))
        out = np.zeros(3)
        for a in range(3):
            motion_w = travel[a] / total[a] if total[a] > 1e-9 else 0.0
            trust = min(max((total[a] - self.still) / max(0.5 * abs(warp[a]), self.still), 0.0), 1.0)
            out[a] = trust * motion_w + (1.0 - trust) * time_w
        return out
