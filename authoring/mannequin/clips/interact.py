"""Interactions at a point a level marks: pick up an item (from the ground or a table), press a
button on a wall, and sit on a seat then stand up. Each plants the hand (or the seat) on one
point, recorded as contact ground truth so the warp assets align it with the level's marker.
"""
import math

import numpy as np

from ..contacts import EffectorPlan, Plant, box_obstacle, contact_record
from ..curves import Curve, curves
from ..ik import elbow_pole, flat_foot, hand_plant_rot, knee_pole, reach_correct, relaxed_hand, torso_fk, torso_pose
from ..skeleton import ANKLE_H, HIPS_H, SIDES, STAND_H
from .base import Clip, body_pose

#: Where the right wrist meets each reach clip's target (model space, the clip starting at the origin
#: facing +Y), the body's lowest hips and deepest lean there, and what the hand does afterwards.
REACHES = {
    "pick_up": {"grab": (0.12, 0.80, 0.14), "hips": 0.52, "lean": 1.05, "carry": True,
                "obstacle": ((0.07, 0.78, 0.0), (0.17, 0.88, 0.06))},                     # an item on the ground
    "pick_up_table": {"grab": (0.12, 0.80, 0.90), "hips": 0.92, "lean": 0.35, "carry": True,
                      "obstacle": ((-0.5, 0.72, 0.0), (0.5, 1.32, 0.76))},                 # a table 0.76 m high
    "use": {"grab": (0.12, 0.82, 1.15), "hips": STAND_H - 0.01, "lean": 0.08, "carry": False,
            "obstacle": ((-1.0, 0.90, 0.0), (1.0, 1.10, 2.2))},                           # a button on a wall
}
REACH_T, T_GRAB, T_RELEASE = 2.4, 1.1, 1.45


def reach_clip(name):
    """Two steps in, reach the right hand to the target and hold it (pick up: lift it to the chest)."""
    spec = REACHES[name]
    grab = np.array(spec["grab"])
    low, bend = spec["hips"], spec["lean"]
    c = curves({
        "root_y": [(0.0, 0.0), (0.2, 0.04), (0.65, 0.30), (REACH_T, 0.32)],
        "root_z": [(0.0, 0.0), (REACH_T, 0.0)],
        "body_y": [(0.0, 0.0), (0.2, 0.05), (0.65, 0.30), (T_GRAB, 0.30 - 0.12 * bend), (T_RELEASE, 0.30 - 0.12 * bend),
                   (1.95, 0.30), (REACH_T, 0.31)],
        "body_z": [(0.0, HIPS_H), (0.4, 0.95), (0.7, 0.95), (T_GRAB, low), (T_RELEASE, low), (1.95, STAND_H),
                   (REACH_T, STAND_H)],
        "lean": [(0.0, 0.03), (0.6, 0.08), (T_GRAB, bend), (T_RELEASE, bend), (1.95, 0.06), (REACH_T, 0.03)],
        "look": [(0.0, 0.1), (0.6, 0.35), (T_GRAB, 0.3), (1.9, 0.15), (REACH_T, 0.0)],
    })
    palm = (-1.0, 0.0, 0.0) if spec["carry"] else (0.0, 1.0, 0.0)       # grip from the side, or press forward
    fingers = (0.0, 0.6, -1.0) if spec["carry"] else (0.0, 0.0, 1.0)
    hand = EffectorPlan([Plant(T_GRAB, T_RELEASE, grab, grab[2], reach_in=0.5, reach_out=0.45,
                               rot=hand_plant_rot("r", fingers=fingers, palm=palm),
                               surface=(grab[0], grab[1], spec["obstacle"][1][2]) if spec["carry"] else
                               (grab[0], spec["obstacle"][0][1], grab[2]))])
    feet = {"r": EffectorPlan([Plant(0.0, 0.15, (0.10, 0.0, ANKLE_H), 0.0),
                               Plant(0.42, REACH_T, (0.12, 0.42, ANKLE_H), 0.0)], lift=0.08),
            "l": EffectorPlan([Plant(0.0, 0.4, (-0.10, 0.0, ANKLE_H), 0.0),
                               Plant(0.65, REACH_T, (-0.13, 0.24, ANKLE_H), 0.0)], lift=0.08)}

    def pose_fn(t):
        pose = body_pose(c, t)
        W, P = torso_fk(pose)
        rest = relaxed_hand(W, P, "r", 0.06, 0.03, -0.5)
        carry = relaxed_hand(W, P, "r", 0.02, 0.28, -0.28) if spec["carry"] else rest
        hand.free = lambda tt: carry if tt > T_RELEASE else rest
        W, P = reach_correct(pose, {"r": hand(t)[0]}, hand.weight(t))
        target, w, plant = hand(t)
        pose.hands["r"] = {"target": target, "pole": elbow_pole(W, "r", out=0.6, back=0.8, down=0.3),
                           "rot": plant.rot if plant is not None else None, "weight": w}
        pose.hands["l"] = {"target": relaxed_hand(W, P, "l", 0.10, 0.10 + 0.1 * bend, -0.48),
                           "pole": elbow_pole(W, "l")}
        for s, _ in SIDES:
            target, _, _ = feet[s](t)
            pose.feet[s] = {"target": target, "pole": knee_pole(W, s, out=0.2, up=0.3), "rot": flat_foot()}
        return pose

    contacts = hand.contacts("hand_r") + feet["l"].contacts("foot_l") + feet["r"].contacts("foot_r")
    contacts.sort(key=lambda c_: (c_["start"], c_["joint"]))
    return Clip(name, REACH_T, False, pose_fn, contacts, box_obstacle(*spec["obstacle"]))


#: The seat: its top centre (model space, facing -Y once seated), and the hips above it when seated.
SEAT = (0.0, 1.12, 0.45)
SEATED_HIPS_UP = 0.15
SIT_T = 4.2
T_TURNED, T_SEATED, T_RISE, T_UP, T_AWAY = 1.0, 1.8, 2.6, 3.3, 3.9
SIT_FEET_Y, AWAY_Y = 0.66, 0.26


def sit_clip():
    """Walk up to a seat, turn round, sit, stay, stand up and step away from it (ends facing -Y)."""
    seat = np.array(SEAT)
    seated = seat + (0.0, 0.0, SEATED_HIPS_UP)
    standing = {"y": SIT_FEET_Y - 0.02, "z": STAND_H}
    c = curves({
        "root_y": [(0.0, 0.0), (0.2, 0.02), (T_TURNED, SIT_FEET_Y - 0.04), (T_UP, SIT_FEET_Y - 0.04),
                   (T_AWAY, AWAY_Y), (SIT_T, AWAY_Y)],
        "heading": [(0.0, 0.0), (0.2, 0.0), (T_TURNED, math.pi), (SIT_T, math.pi)],
        "body_y": [(0.0, 0.0), (0.2, 0.02), (T_TURNED, standing["y"]), (1.15, standing["y"]), (1.55, seated[1] - 0.04),
                   (T_SEATED, seated[1]), (T_RISE, seated[1]), (2.95, seated[1] - 0.3), (T_UP, standing["y"] - 0.04),
                   (T_AWAY, AWAY_Y), (SIT_T, AWAY_Y)],
        "body_z": [(0.0, HIPS_H), (0.5, 0.95), (T_TURNED, standing["z"]), (1.15, 0.93), (1.55, seated[2] + 0.06),
                   (T_SEATED, seated[2]), (T_RISE, seated[2]), (2.95, 0.78), (T_UP, STAND_H), (T_AWAY, 0.95),
                   (SIT_T, STAND_H)],
        "lean": [(0.0, 0.03), (T_TURNED, 0.05), (1.45, 0.55), (T_SEATED, 0.12), (T_RISE, 0.12), (2.85, 0.7),
                 (T_UP, 0.08), (SIT_T, 0.03)],
        "look": [(0.0, 0.1), (T_TURNED, 0.0), (1.45, 0.3), (T_SEATED, 0.05), (T_RISE, 0.05), (2.85, 0.2),
                 (SIT_T, 0.0)],
        "hands_on_thighs": [(0.0, 0.0), (1.2, 0.0), (T_SEATED, 1.0), (T_RISE, 1.0), (T_UP, 0.0), (SIT_T, 0.0)],
    })
    # Feet: (x, y) planted from t0 to t1, heading of the foot; facing -Y the right foot is at -x.
    plants = {"r": [((0.0, 0.2), (0.10, 0.0), 0.0), ((0.45, 0.62), (0.04, 0.42), math.pi / 2),
                    ((0.88, 3.35), (-0.12, SIT_FEET_Y), math.pi), ((3.6, SIT_T), (-0.12, AWAY_Y + 0.06), math.pi)],
              "l": [((0.0, 0.42), (-0.10, 0.0), 0.0), ((0.8, 3.42), (0.12, SIT_FEET_Y), math.pi),
                    ((3.85, SIT_T), (0.12, AWAY_Y - 0.04), math.pi)]}
    feet, turns = {}, {}
    for s, _ in SIDES:
        feet[s] = EffectorPlan([Plant(a, b, (x, y, ANKLE_H), 0.0) for (a, b), (x, y), _ in plants[s]], lift=0.09)
        keys = []
        for (a, b), _, h in plants[s]:
            keys += [(a, h), (b, h)]
        turns[s] = Curve(keys)

    def pose_fn(t):
        h = c["heading"](t)
        root = np.array([0.0, c["root_y"](t), 0.0])
        hips_world = np.array([0.0, c["body_y"](t), c["body_z"](t)])
        cos_h, sin_h = math.cos(h), math.sin(h)
        d = hips_world - root
        hips = np.array([cos_h * d[0] + sin_h * d[1], -sin_h * d[0] + cos_h * d[1], d[2]])   # in the root's frame
        pose = torso_pose(root=root, hips=hips, heading=h, lean_fwd=c["lean"](t), look=c["look"](t))
        W, P = torso_fk(pose)
        on = c["hands_on_thighs"](t)
        for s, _ in SIDES:
            hang = relaxed_hand(W, P, s, 0.06, 0.03, -0.5)
            thigh = relaxed_hand(W, P, s, -0.02, 0.38, -0.30)
            pose.hands[s] = {"target": hang + on * (thigh - hang), "pole": elbow_pole(W, s)}
            target, _, _ = feet[s](t)
            pose.feet[s] = {"target": target, "pole": knee_pole(W, s, out=0.15, up=0.3), "rot": flat_foot(turns[s](t))}
        return pose

    contacts = feet["l"].contacts("foot_l") + feet["r"].contacts("foot_r")
    contacts.append(contact_record("hips", T_SEATED, T_RISE, seated, seat))
    contacts.sort(key=lambda c_: (c_["start"], c_["joint"]))
    bench = box_obstacle((-0.6, seat[1] - 0.2, 0.0), (0.6, seat[1] + 0.2, seat[2]))
    return Clip("sit", SIT_T, False, pose_fn, contacts, bench)
