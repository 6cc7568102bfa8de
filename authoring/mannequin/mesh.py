"""The body mesh: capsules and (super)ellipsoids per body part, skinned rigidly to one bone and
blended with the neighbour bone at elbows and knees; plus skinning for the penetration check.
"""
import math

import numpy as np

from .rotations import I3, frame_matrix, unit
from .skeleton import JOINT_INDEX, JOINT_NAMES, REST, SIDES, arm_dir, palm_normal


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
