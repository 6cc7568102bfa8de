"""The mantles: climb onto a 1.5 m ledge, or jump, hang and climb onto a 2.0 m one."""
import numpy as np

from ..contacts import EffectorPlan, Plant, box_obstacle, collect_contacts
from ..curves import Curve, curves, ramp
from ..ik import elbow_pole, flat_foot, hand_plant_rot, knee_pole
from ..skeleton import ANKLE_H, HIPS_H, SIDES, STAND_H
from .base import Clip, gripping_body

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
        pose, W, P = gripping_body(c, t, hand_plans, arm_out=0.1)
        press = ramp(t, 0.95 + dt, 1.2 + dt)    # elbows: down/out while pulling, back when pressing
        for s, side in SIDES:
            target, w, plant = hand_plans[s](t)
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
