"""Third-party-like rigs made with authoring/gltf_writer.py, one failure mode of real exports each.

Every rig has `root` -> `hips` -> (`leg` -> `foot`, `head`); the hips carry the clip's motion,
authored in model space (Z up, +Y forward) and converted into whatever joint space the rig
puts them in. `RIGS` name the cases: a root joint turned -90 degrees about X (the Khronos Fox),
a turned armature node (Blender), a Y-up armature, hips that start away from the origin and
face sideways.
"""
import math

import numpy as np

from authoring.gltf_writer import GltfBuilder

FPS = 30.0
HIPS_HEIGHT = 1.0
HEAD_ABOVE_HIPS = 0.7
#: Model height: the feet (0.05 above ground) to the head.
HEIGHT = HIPS_HEIGHT + HEAD_ABOVE_HIPS


def quat_axis(axis, degrees):
    """Unit quaternion (w, x, y, z) turning `degrees` about `axis` (right-handed, column vectors)."""
    axis = np.asarray(axis, dtype=float) / np.linalg.norm(axis)
    half = math.radians(degrees) / 2.0
    return np.concatenate([[math.cos(half)], math.sin(half) * axis])


def qmul(a, b):
    """Hamilton product a*b: rotate by b, then by a."""
    w1, x1, y1, z1 = a
    w2, x2, y2, z2 = b
    return np.array([w1 * w2 - x1 * x2 - y1 * y2 - z1 * z2, w1 * x2 + x1 * w2 + y1 * z2 - z1 * y2,
                     w1 * y2 - x1 * z2 + y1 * w2 + z1 * x2, w1 * z2 + x1 * y2 - y1 * x2 + z1 * w2])


def qinv(q):
    return np.array([q[0], -q[1], -q[2], -q[3]])


def qrot(q, v):
    """Vector v rotated by unit quaternion q."""
    return qmul(qmul(q, np.concatenate([[0.0], v])), qinv(q))[1:]


IDENTITY = np.array([1.0, 0.0, 0.0, 0.0])

#: name -> (armature node rotation, root joint's rest rotation in model space, hips start (x, y), hips heading)
RIGS = {
    "fox_root": (None, quat_axis((1, 0, 0), -90), (0.0, 0.0), 0.0),
    "turned_armature": (quat_axis((1, 0, 0), -90), IDENTITY, (0.0, 0.0), 0.0),
    "y_up_armature": (quat_axis((1, 0, 0), 90), quat_axis((1, 0, 0), -90), (0.0, 0.0), 0.0),
    "offset_hips": (None, IDENTITY, (0.3, -0.2), 30.0),
}

#: name -> (frames, forward metres per cycle, bob amplitude, heading sway, heading turned per cycle)
CLIPS = {
    "walk": (30, 1.2, 0.04, 5.0, 0.0),       # 1.0 s: a whole number of frames
    "stride32": (32, 1.5, 0.05, 0.0, 0.0),   # 1.0667 s, like the Knight's Walking_A
    "in_place": (30, 0.0, 0.03, 0.0, 0.0),   # a cycle authored in place, with vertical bob
    "turn": (30, 0.8, 0.02, 0.0, 90.0),
}


def hips_model(clip, t, start, heading):
    """Hips position and rotation in model space at `t` seconds of `clip` (a closed cycle)."""
    frames, forward, bob, sway, turn = CLIPS[clip]
    phase = t * FPS / frames
    h = heading + sway * math.sin(2 * math.pi * phase) + turn * phase
    # Travel along the hips' facing, integrated exactly for a constant turn rate.
    if turn:
        rate = math.radians(turn)
        h0 = math.radians(heading)
        along = forward / rate
        dx, dy = -along * (math.sin(h0 + rate * phase) - math.sin(h0)), along * (math.cos(h0 + rate * phase) - math.cos(h0))
    else:
        dx, dy = -forward * phase * math.sin(math.radians(heading)), forward * phase * math.cos(math.radians(heading))
    pos = np.array([start[0] + dx, start[1] + dy, HIPS_HEIGHT + bob * math.sin(2 * math.pi * phase)])
    return pos, quat_axis((0, 0, 1), h)


def write_rig(path, name):
    """Write rig `name` of RIGS with every clip of CLIPS to `path` (GLB); returns the path."""
    armature, root_rest, start, heading = RIGS[name]
    builder = GltfBuilder(name, root_rotation=armature)
    outer = IDENTITY if armature is None else np.asarray(armature)
    root_local = qmul(qinv(outer), root_rest)
    joints = {"root": builder.add_joint("root", rotation=root_local)}
    rest_pos, rest_rot = hips_model("walk", 0.0, start, heading)
    into_root = qinv(root_rest)  # model space -> the root joint's space (the root sits at the origin)
    joints["hips"] = builder.add_joint("hips", joints["root"], qrot(into_root, rest_pos), qmul(into_root, rest_rot))
    joints["leg"] = builder.add_joint("leg", joints["hips"], (0.1, 0.0, -0.5))
    joints["foot"] = builder.add_joint("foot", joints["leg"], (0.0, 0.1, -0.45))
    joints["head"] = builder.add_joint("head", joints["hips"], (0.0, 0.0, HEAD_ABOVE_HIPS))
    # A quad on the leg (bind pose, model space).
    corners = np.array([[0.05, 0, 0.05], [0.05, 0, 1.0], [0.15, 0, 1.0], [0.15, 0, 0.05]])
    builder.add_skinned_mesh("leg", corners, np.tile([0, -1.0, 0], (4, 1)),
                             np.array([[joints["leg"], 0, 0, 0]] * 4), np.array([[1.0, 0, 0, 0]] * 4),
                             np.array([[0, 1, 2], [0, 2, 3]]), builder.add_material("grey", (0.6, 0.6, 0.6)))
    for clip, (frames, *_rest) in CLIPS.items():
        times = np.arange(frames + 1) / FPS
        hips = [hips_model(clip, t, start, heading) for t in times]
        swing = [quat_axis((1, 0, 0), 30.0 * math.sin(2 * math.pi * t * FPS / frames)) for t in times]
        builder.add_animation(clip, [
            (joints["hips"], "translation", times, [qrot(into_root, p) for p, _ in hips], "LINEAR"),
            (joints["hips"], "rotation", times, [qmul(into_root, q) for _, q in hips], "LINEAR"),
            (joints["leg"], "rotation", times, swing, "LINEAR"),
        ])
    builder.write_glb(str(path))
    return path
