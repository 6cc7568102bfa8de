"""Write the mesh obstacles of the shipped scenes (motionwarp/samples/scenes/meshes/*.glb) with the project's glTF writer.

Each is a prism: a convex profile extruded along an axis, with its caps, standing on z = 0
and centred on x = y = 0 like the scene format's boxes (docs/design.md 6), so providers meet
round, sloped and bevelled faces instead of boxes.

    python -m authoring.make_obstacle_meshes        # rewrites motionwarp/samples/scenes/meshes/*.glb
"""
import math
import pathlib

import numpy as np

from authoring.gltf_writer import GltfBuilder

OUT = pathlib.Path(__file__).resolve().parent.parent / "motionwarp" / "samples" / "scenes" / "meshes"


def circle(radius, segments, centre=(0.0, 0.0)):
    """A regular polygon, counter-clockwise, one vertex on top (+v)."""
    return [(centre[0] - radius * math.sin(2 * math.pi * i / segments),
             centre[1] + radius * math.cos(2 * math.pi * i / segments)) for i in range(segments)]


def prism(profile, length, axis, smooth=False):
    """Positions, normals and triangles of `profile` (counter-clockwise (u, v) points) extruded `length` along `axis`.

    axis "x": the profile lies in the (y, z) plane (a log lying across +Y); axis "z": in (x, y) (a barrel).
    With `smooth`, side normals point away from the profile's centre (round shapes).
    """
    def place(u, v, w):
        return (w, u, v) if axis == "x" else (u, v, w)
    profile = np.asarray(profile, dtype=np.float64)
    centre = profile.mean(axis=0)
    positions, normals, triangles = [], [], []
    half = length / 2 if axis == "x" else None
    w0, w1 = (-half, half) if axis == "x" else (0.0, length)
    count = len(profile)
    for i in range(count):
        a, b = profile[i], profile[(i + 1) % count]
        edge = b - a
        flat = np.array([edge[1], -edge[0]]) / np.linalg.norm(edge)  # outward for a counter-clockwise profile
        base = len(positions)
        for point in (a, b):
            radial = (point - centre) / np.linalg.norm(point - centre)
            n2 = radial if smooth else flat
            for w in (w0, w1):
                positions.append(place(point[0], point[1], w))
                normals.append(place(n2[0], n2[1], 0.0))
        # a0 a1 b0 b1: outward winding is counter-clockwise seen from outside
        triangles += _oriented([(base, base + 2, base + 3), (base, base + 3, base + 1)], positions, flat, place)
    for w, sign in ((w0, -1.0), (w1, 1.0)):
        base = len(positions)
        for point in profile:
            positions.append(place(point[0], point[1], w))
            normals.append(place(0.0, 0.0, sign))
        fan = [(base, base + i, base + i + 1) for i in range(1, count - 1)]
        triangles += _oriented(fan, positions, None, place, cap=sign)
    return positions, normals, triangles


def _oriented(tris, positions, flat, place, cap=None):
    """Triangles wound so their geometric normal points outward (counter-clockwise from outside)."""
    out = []
    for tri in tris:
        p = np.array([positions[k] for k in tri])
        normal = np.cross(p[1] - p[0], p[2] - p[0])
        wanted = np.array(place(flat[0], flat[1], 0.0)) if cap is None else np.array(place(0.0, 0.0, cap))
        out.append(tri if normal.dot(wanted) > 0 else (tri[0], tri[2], tri[1]))
    return out


#: name: (profile, length, axis, smooth, colour); sizes in metres.
OBSTACLES = {
    # A log lying across the path: 0.8 m high, 2.4 m long.
    "log": (circle(0.4, 32, (0.0, 0.4)), 2.4, "x", True, (0.45, 0.3, 0.18)),
    # A barrel standing up: 0.9 m high, 0.9 m across.
    "barrel": (circle(0.45, 32), 0.9, "z", True, (0.35, 0.42, 0.5)),
    # A crate with a sloping lid: 0.9 m at the front, 1.1 m at the back, 0.8 m deep.
    "wedge_crate": ([(-0.4, 0.0), (0.4, 0.0), (0.4, 1.1), (-0.4, 0.9)], 1.4, "x", False, (0.6, 0.42, 0.22)),
    # A battered stone wall: 0.9 m high, 0.9 m thick at the foot and 0.5 m at the top.
    "stone_wall": ([(-0.45, 0.0), (0.45, 0.0), (0.25, 0.9), (-0.25, 0.9)], 3.0, "x", False, (0.55, 0.55, 0.52)),
    # A 1.6 m ledge, 2.4 m deep, whose front top edge is chamfered 0.15 m at 45 degrees.
    "chamfered_ledge": ([(-1.2, 0.0), (1.2, 0.0), (1.2, 1.6), (-1.05, 1.6), (-1.2, 1.45)], 3.0, "x", False,
                        (0.7, 0.68, 0.62)),
}


def main():
    OUT.mkdir(parents=True, exist_ok=True)
    for name, (profile, length, axis, smooth, colour) in OBSTACLES.items():
        builder = GltfBuilder(scene_name=name)
        material = builder.add_material(name, colour)
        builder.add_static_mesh(name, *prism(profile, length, axis, smooth), material)
        size = builder.write_glb(OUT / f"{name}.glb")
        print(f"wrote motionwarp/samples/scenes/meshes/{name}.glb ({size} bytes)")


if __name__ == "__main__":
    main()
