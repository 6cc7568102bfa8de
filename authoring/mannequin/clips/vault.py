"""The vault: a two-hand tuck vault over a 1.0 m high, 0.6 m deep box."""
import numpy as np

from ..contacts import EffectorPlan, Plant, box_obstacle, collect_contacts
from ..curves import curves
from ..ik import elbow_pole, flat_foot, hand_plant_rot, knee_pole
from ..skeleton import ANKLE_H, HIPS_H, SIDES, STAND_H
from .base import Clip, gripping_body

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
        pose, W, P = gripping_body(c, t, hand_plans, arm_out=0.08)
        for s, side in SIDES:
            target, w, plant = hand_plans[s](t)
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
