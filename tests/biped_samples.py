"""Generated bipeds with known answers, for the character tools (inspect, contacts, author).

Every biped is authored in one canonical space (Z up, facing +Y, metres), then written in the
variant asked for: in centimetres, facing +Y, -Y (glTF's +Z forward) or +X, with the joints
Z-up or in a Y-up armature turned upright by its node (Blender); with a root bone at the feet or the
legs hanging from the top joint (`root_bone=False`: the hips at the top, Unreal or GDQuest style);
joints named for what they are or `bone1`, `bone2`... (`names="bones"`: no name tells a foot).
tests/scaled_rigs.py wraps any of them in scaled and turned armature nodes. Only joint translations are
animated, from closed-form paths, so each clip's contact windows, speeds, travel and roles are
known here without running the code under test:

Left is -X facing +Y (the left foot, hand and leg on the character's left).

- `Idle` (loop): feet planted throughout, hips and hands sway a little.
- `Walk` (loop): each foot slides back at SPEED for STANCE of the cycle, then swings
  forward; the root stays. Played at SPEED, planted feet stand still.
- `Walk_Travel` (loop): the same steps with the root carrying SPEED forward; planted feet are still.
- `Jump` (once): both feet planted until TAKE_OFF, in the air (up to LIFT) until TOUCH_DOWN,
  planted to the end; in place, the root does not move.
- `Fall` (loop): feet hang LIFT above the ground.
- `Attack` (once): the right hand thrusts forward and back, from rest to rest, feet planted.
- `Vault` (once, travelling VAULT_TRAVEL): feet planted until VAULT_PLANT, hands planted on
  the top (VAULT_HEIGHT, VAULT_EDGE ahead) from VAULT_PLANT to VAULT_RELEASE, feet land at
  VAULT_LAND and stay.
"""
import math

import numpy as np

from authoring.gltf_writer import GltfBuilder

from .rig_samples import IDENTITY, qinv, qmul, qrot, quat_axis

FPS = 30.0
SPEED = 1.2          # m/s, the walks
CYCLE = 1.0          # s
STANCE = 0.6         # share of the cycle a foot is planted
STRIDE = SPEED * STANCE * CYCLE
HIPS = 0.9
ANKLE = 0.06         # the ankle's height when standing; the toes are at TOE
TOE = 0.02
HEAD_ABOVE_HIPS = 0.75
MESH_HEIGHT = 1.8    # the body box, feet to crown
TAKE_OFF, TOUCH_DOWN, JUMP_LENGTH, LIFT = 0.3, 0.9, 1.2, 0.35
ATTACK_LENGTH = 1.0
VAULT_LENGTH, VAULT_TRAVEL, VAULT_HEIGHT, VAULT_EDGE = 2.0, 2.4, 0.8, 0.7
VAULT_PLANT, VAULT_RELEASE, VAULT_LAND = 0.6, 1.0, 1.5

#: Facing (Panda3D model space) -> the turn about Z from canonical (+Y), and the `turn` that undoes it.
FACINGS = {"+Y": 0.0, "-Y": 180.0, "+X": -90.0}
UNITS = {"m": 1.0, "cm": 100.0}
#: Up: joints authored Z-up, or in a Y-up armature node turned -90 degrees about X.
UPS = {"z": None, "y": quat_axis((1, 0, 0), -90)}

CLIPS = {"Idle": 2.0, "Walk": CYCLE, "Walk_Travel": CYCLE, "Jump": JUMP_LENGTH, "Fall": 0.8,
         "Attack": ATTACK_LENGTH, "Vault": VAULT_LENGTH}
LOOPS = {"Idle", "Walk", "Walk_Travel", "Fall"}
#: Expected contact windows (seconds) per clip: (limb role, start, end).
CONTACTS = {
    "Idle": [("foot_l", 0.0, 2.0), ("foot_r", 0.0, 2.0)],
    "Walk": [("foot_l", 0.0, STANCE), ("foot_r", 0.0, STANCE - 0.5), ("foot_r", 0.5, 1.0)],
    "Walk_Travel": [("foot_l", 0.0, STANCE), ("foot_r", 0.0, STANCE - 0.5), ("foot_r", 0.5, 1.0)],
    "Jump": [("foot_l", 0.0, TAKE_OFF), ("foot_r", 0.0, TAKE_OFF), ("foot_l", TOUCH_DOWN, JUMP_LENGTH),
             ("foot_r", TOUCH_DOWN, JUMP_LENGTH)],
    "Fall": [],
    "Attack": [("foot_l", 0.0, ATTACK_LENGTH), ("foot_r", 0.0, ATTACK_LENGTH)],
    "Vault": [("foot_l", 0.0, VAULT_PLANT), ("foot_r", 0.0, VAULT_PLANT), ("hand_l", VAULT_PLANT, VAULT_RELEASE),
              ("hand_r", VAULT_PLANT, VAULT_RELEASE), ("foot_l", VAULT_LAND, VAULT_LENGTH),
              ("foot_r", VAULT_LAND, VAULT_LENGTH)],
}
ROLES = {"Idle": "idle", "Walk": "walk", "Walk_Travel": "walk", "Jump": "jump", "Fall": "fall",
         "Attack": "attack", "Vault": "vault"}


def _smooth(u):
    """0 to 1 with zero slope at both ends."""
    u = min(max(u, 0.0), 1.0)
    return 0.5 - 0.5 * math.cos(math.pi * u)


def _step_foot(u):
    """(y, z) of a walking foot at cycle phase u: planted sliding back for STANCE, then a swing."""
    if u < STANCE:
        return STRIDE / 2 - STRIDE * (u / STANCE), ANKLE
    w = (u - STANCE) / (1.0 - STANCE)
    return -STRIDE / 2 + STRIDE * _smooth(w), ANKLE + 0.12 * math.sin(math.pi * w)


def pose(clip, t):
    """Canonical model-space points at `t` s of `clip`: root, hips, feet and hands by side."""
    root = np.zeros(3)
    hips = np.array([0.0, 0.0, HIPS])
    feet = {side: np.array([x, 0.0, ANKLE]) for side, x in (("l", -0.1), ("r", 0.1))}
    hands = {side: np.array([x, 0.0, HIPS - 0.05]) for side, x in (("l", -0.25), ("r", 0.25))}
    if clip == "Idle":
        hips[2] += 0.01 * math.sin(math.pi * t)
        for side in hands:
            hands[side][1] += 0.005 * math.sin(math.pi * t)
    elif clip in ("Walk", "Walk_Travel"):
        root[1] = SPEED * t if clip == "Walk_Travel" else 0.0
        for side, offset in (("l", 0.0), ("r", 0.5)):
            y, z = _step_foot((t / CYCLE + offset) % 1.0)
            feet[side][1:] = (root[1] + y, z)
            hands[side][1] = root[1] - 0.5 * y
        hips += (0.0, root[1], 0.02 * math.cos(4 * math.pi * t / CYCLE))
    elif clip == "Jump":
        flight = (t - TAKE_OFF) / (TOUCH_DOWN - TAKE_OFF)
        lift = LIFT * math.sin(math.pi * flight) if 0.0 < flight < 1.0 else 0.0
        crouch = 0.12 * (math.exp(-((t - TAKE_OFF) / 0.1) ** 2) + math.exp(-((t - TOUCH_DOWN) / 0.1) ** 2))
        hips[2] += lift - crouch
        for side in feet:
            feet[side][2] += lift
            hands[side][2] += lift - crouch
    elif clip == "Fall":
        hips[2] += LIFT
        for side, phase in (("l", 0.0), ("r", math.pi)):
            feet[side][2] += LIFT + 0.03 * math.sin(2 * math.pi * t / 0.8 + phase)
            hands[side][2] += LIFT + 0.2
    elif clip == "Attack":
        half = ATTACK_LENGTH / 2
        reach = 0.6 * _smooth(t / half) * (1.0 - _smooth((t - half) / half))
        hands["r"] += (0.0, reach, 0.4 * reach)
    elif clip == "Vault":
        root[1] = VAULT_TRAVEL * _smooth(t / VAULT_LENGTH)
        over = _smooth((t - VAULT_PLANT) / (VAULT_LAND - VAULT_PLANT))
        hips += (0.0, root[1], (VAULT_HEIGHT + 0.1) * math.sin(math.pi * over))
        for side in feet:
            feet[side] += (0.0, VAULT_TRAVEL * over, (VAULT_HEIGHT + 0.2) * math.sin(math.pi * over))
        for side in hands:
            hanging = hips + (hands[side][0], 0.0, -0.05)
            planted = np.array([hands[side][0], VAULT_EDGE, VAULT_HEIGHT])
            if t < VAULT_PLANT:
                hands[side] = hanging + (planted - hanging) * _smooth(t / VAULT_PLANT)
            elif t <= VAULT_RELEASE:
                hands[side] = planted
            else:
                hands[side] = planted + (hanging - planted) * _smooth((t - VAULT_RELEASE) / 0.4)
    return {"root": root, "hips": hips, "feet": feet, "hands": hands}


#: The spine joint's place above the hips; arms and head hang from it.
SPINE = 0.2


def write_biped(path, facing="+Y", units="m", up="z", root_bone=True, names="plain"):
    """Write the biped in the variant asked for to `path` (GLB); returns the path."""
    turn, scale, armature = FACINGS[facing], UNITS[units], UPS[up]
    face = quat_axis((0, 0, 1), turn)
    outer = IDENTITY if armature is None else np.asarray(armature)
    into_joints = qinv(outer)   # model space -> the armature's joint space

    def model(p):
        return scale * qrot(face, np.asarray(p, dtype=float))

    builder = GltfBuilder(f"biped_{facing}_{units}_{up}", root_rotation=armature)
    rest = pose("Idle", 0.0)
    joints = {}

    def add(name, parent=None, translation=(0.0, 0.0, 0.0), rotation=(1.0, 0.0, 0.0, 0.0)):
        shown = name if names == "plain" else f"bone{len(joints) + 1}"
        joints[name] = builder.add_joint(shown, None if parent is None else joints[parent], translation, rotation)
    if root_bone:
        add("root", rotation=qmul(into_joints, face))
        add("hips", "root", scale * (rest["hips"] - rest["root"]))
    else:
        add("hips", translation=qrot(into_joints, model(rest["hips"])), rotation=qmul(into_joints, face))
    add("spine", "hips", scale * np.array([0.0, 0.0, SPINE]))
    for side, sign in (("l", -1.0), ("r", 1.0)):
        add(f"upperleg.{side}", "hips", scale * np.array([0.1 * sign, 0.0, -0.05]))
        add(f"foot.{side}", f"upperleg.{side}", scale * (rest["feet"][side] - rest["hips"] - (0.1 * sign, 0.0, -0.05)))
        add(f"toes.{side}", f"foot.{side}", scale * np.array([0.0, 0.12, TOE - ANKLE]))
        add(f"upperarm.{side}", "spine", scale * np.array([0.2 * sign, 0.0, 0.45 - SPINE]))
        add(f"hand.{side}", f"upperarm.{side}", scale * (rest["hands"][side] - rest["hips"] - (0.2 * sign, 0.0, 0.45)))
    add("head", "spine", scale * np.array([0.0, 0.0, HEAD_ABOVE_HIPS - SPINE]))
    # A box body from the ground to MESH_HEIGHT, on the hips (bind pose, model space).
    corners = np.array([[x, y, z] for z in (0.0, MESH_HEIGHT) for y in (-0.15, 0.15) for x in (-0.25, 0.25)])
    corners = np.array([model(c) for c in corners])
    faces = np.array([[0, 1, 3], [0, 3, 2], [4, 6, 7], [4, 7, 5], [0, 4, 5], [0, 5, 1],
                      [2, 3, 7], [2, 7, 6], [0, 2, 6], [0, 6, 4], [1, 5, 7], [1, 7, 3]])
    builder.add_skinned_mesh("body", corners, np.tile([0, 0, 1.0], (8, 1)), np.array([[joints["hips"], 0, 0, 0]] * 8),
                             np.array([[1.0, 0, 0, 0]] * 8), faces, builder.add_material("grey", (0.6, 0.6, 0.6)))
    for clip, seconds in CLIPS.items():
        frames = int(round(seconds * FPS))
        times = np.arange(frames + 1) / FPS
        poses = [pose(clip, t) for t in times]
        if root_bone:
            channels = [(joints["root"], "translation", times,
                         [qrot(into_joints, model(p["root"])) for p in poses], "LINEAR"),
                        (joints["hips"], "translation", times, [scale * (p["hips"] - p["root"]) for p in poses],
                         "LINEAR")]
        else:
            channels = [(joints["hips"], "translation", times, [qrot(into_joints, model(p["hips"])) for p in poses],
                         "LINEAR")]
        for side, sign in (("l", -1.0), ("r", 1.0)):
            channels.append((joints[f"foot.{side}"], "translation", times,
                             [scale * (p["feet"][side] - p["hips"] - (0.1 * sign, 0.0, -0.05)) for p in poses], "LINEAR"))
            channels.append((joints[f"hand.{side}"], "translation", times,
                             [scale * (p["hands"][side] - p["hips"] - (0.2 * sign, 0.0, 0.45)) for p in poses],
                             "LINEAR"))
        builder.add_animation(clip, channels)
    builder.write_glb(str(path))
    return path
