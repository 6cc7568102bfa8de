"""Regenerate the shipped data: `mannequin.glb`, its ground truth `mannequin.contacts.json`,
and the warp assets derived from them (this overwrites tuned `*.warp.json` in OUT_DIR).

Usage:  python -m authoring.generate_mannequin [OUT_DIR] [--check]   (default: the assets folder)

The pieces live in authoring/mannequin/ (skeleton, mesh, ik, contacts, gait, clips/); this
module bakes every clip frame by frame and writes the files. `--check` also prints IK
shortfalls and where the body goes into the ground or the obstacle.
Rerunning reproduces the files (see the README's "The character and its clips").
"""
import json
import math
import os
import sys

import numpy as np

from authoring.gltf_writer import GltfBuilder
from authoring.make_warp_assets import write_warp_assets
from authoring.mannequin.clips import FPS, all_clips
from authoring.mannequin.ik import solve_pose
from authoring.mannequin.mesh import MATERIALS, body_parts, build_meshes, skinned_vertices
from authoring.mannequin.rotations import mat_to_quat
from authoring.mannequin.skeleton import JOINT_INDEX, JOINT_NAMES, SKELETON

ASSETS_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "motionwarp", "samples", "assets")


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
    write_warp_assets(out_dir, os.path.join(out_dir, "mannequin.glb"),
                      os.path.join(out_dir, "mannequin.contacts.json"))


if __name__ == "__main__":
    main(sys.argv)
