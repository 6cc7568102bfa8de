"""The running jump: from a run, take off at the edge of a 1.5 m gap and land past it."""
import numpy as np

from ..contacts import EffectorPlan, Plant, box_obstacle
from ..curves import Curve, curves
from ..ik import elbow_pole, flat_foot, knee_pole, relaxed_hand, torso_fk
from ..skeleton import ANKLE_H, SIDES, STAND_H
from .base import Clip, body_pose

#: The gap the clip was authored over (model space, running along +Y): its near and far edge.
GAP_NEAR, GAP_FAR = 1.5, 3.0
JUMP_T, T_TAKE_OFF, T_LAND = 1.5, 0.35, 0.85
#: Where the root touches down: the landing point.
LANDING_Y = 3.55


def running_jump_clip():
    """Run in at 4 m/s, take off from the left foot at the near edge, fly (right knee leading), land on
    the right foot 0.55 m past the far edge, bring the left through, absorb and come to a stand."""
    c = curves({
        "root_y": [(0.0, 0.0), (0.1, 0.4), (T_TAKE_OFF, 1.40), (0.6, 2.48), (T_LAND, LANDING_Y), (1.05, 3.75), (JUMP_T, 3.80)],
        "root_z": [(0.0, 0.0), (T_TAKE_OFF, 0.0), (0.6, 0.45), (T_LAND, 0.0), (JUMP_T, 0.0)],
        "body_y": [(0.0, 0.0), (0.1, 0.4), (T_TAKE_OFF, 1.40), (0.6, 2.48), (T_LAND, LANDING_Y - 0.05), (1.05, 3.72),
                   (JUMP_T, 3.80)],
        "body_z": [(0.0, 0.895), (0.22, 0.86), (T_TAKE_OFF, 0.98), (0.6, 1.38), (T_LAND, 0.90), (0.97, 0.72),
                   (1.2, 0.86), (JUMP_T, STAND_H)],
        "lean": [(0.0, 0.2), (0.22, 0.3), (T_TAKE_OFF, 0.25), (0.6, 0.15), (T_LAND, 0.3), (0.97, 0.5), (1.2, 0.2),
                 (JUMP_T, 0.03)],
        "look": [(0.0, 0.0), (T_TAKE_OFF, 0.15), (0.7, 0.3), (1.0, 0.15), (JUMP_T, 0.0)],
        # arms (relative to the shoulders): up and forward at take-off, out in flight, down after landing
        "arm_fwd": [(0.0, 0.0), (0.2, -0.15), (T_TAKE_OFF, 0.35), (0.6, 0.25), (T_LAND, 0.2), (JUMP_T, 0.04)],
        "arm_up": [(0.0, -0.4), (T_TAKE_OFF, -0.05), (0.6, -0.15), (T_LAND, -0.3), (1.0, -0.35), (JUMP_T, -0.5)],
    })
    # Feet off the ground, relative to the hips (world axes): (forward, up).
    swing = {"r": Curve([(0.0, (0.1, -0.8)), (0.2, (0.25, -0.55)), (0.5, (0.35, -0.45)), (0.75, (0.3, -0.8))]),
             "l": Curve([(0.0, (-0.3, -0.72)), (0.12, (0.0, -0.65)), (0.3, (-0.25, -0.8)), (0.5, (-0.35, -0.55)),
                         (0.7, (-0.1, -0.5)), (0.9, (0.2, -0.6))])}
    plants = {"r": [((0.0, 0.08), (0.08, 0.10)), ((T_LAND, JUMP_T), (0.11, LANDING_Y + 0.07))],
              "l": [((0.24, T_TAKE_OFF), (-0.08, GAP_NEAR - 0.15)), ((1.02, JUMP_T), (-0.11, LANDING_Y + 0.31))]}
    feet = {}
    for s, _ in SIDES:
        marks = [Plant(a, b, (x, y, ANKLE_H), 0.0, reach_in=0.12, reach_out=0.12) for (a, b), (x, y) in plants[s]]
        feet[s] = EffectorPlan(marks, gaps=["free"], lift=0.1)

    def pose_fn(t):
        pose = body_pose(c, t)
        W, P = torso_fk(pose)
        for s, side in SIDES:
            swing_arm = (1 if s == "r" else -1) * 0.12 * np.sin(2 * np.pi * t / 0.7) * max(0.0, 1 - t / 0.25)
            pose.hands[s] = {"target": relaxed_hand(W, P, s, 0.10, c["arm_fwd"](t) + swing_arm, c["arm_up"](t)),
                             "pole": elbow_pole(W, s, out=0.4, back=0.8, down=0.4)}
            feet[s].free = lambda tt, s=s, side=side: P["hips"] + np.array([side * 0.09, *swing[s](tt)])
            target, w, _ = feet[s](t)
            pose.feet[s] = {"target": target, "pole": knee_pole(W, s, out=0.1, up=0.5), "rot": flat_foot(0.0, -0.3 * (1 - w))}
        return pose

    return Clip("running_jump", JUMP_T, False, pose_fn, _feet_contacts(feet),
                box_obstacle((-1.5, GAP_NEAR, -1.0), (1.5, GAP_FAR, 0.0)))


def _feet_contacts(feet):
    contacts = feet["l"].contacts("foot_l") + feet["r"].contacts("foot_r")
    contacts.sort(key=lambda c_: (c_["start"], c_["joint"]))
    return contacts
