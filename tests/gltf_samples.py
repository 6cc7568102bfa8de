"""Small glTF files built on the fly for loader tests (with authoring/gltf_writer.py)."""
import json
import struct

import numpy as np

from authoring.gltf_writer import GltfBuilder


def two_bone_quad(path, animations):
    """A quad skinned to `root` -> `bone`, with `animations` = {name: [(joint, path, times, values[,
    interpolation])]}: values in Panda3D space, channels LINEAR unless they say STEP.

    Joint names map to indices 0 (root) and 1 (bone).
    """
    builder = GltfBuilder()
    joints = {"root": builder.add_joint("root")}
    joints["bone"] = builder.add_joint("bone", parent=joints["root"], translation=(0, 0, 1))
    positions = np.array([[0, 0, 0], [0, 0, 1], [0.1, 0, 1], [0.1, 0, 0]], dtype=float)
    normals = np.tile([0.0, -1.0, 0.0], (4, 1))
    builder.add_skinned_mesh("quad", positions, normals, np.array([[1, 0, 0, 0]] * 4),
                             np.array([[1.0, 0, 0, 0]] * 4), np.array([[0, 1, 2], [0, 2, 3]]),
                             builder.add_material("white", (1, 1, 1, 1)))
    for name, channels in animations.items():
        builder.add_animation(name, [(joints[joint], chan, list(times), [list(v) for v in values], *(mode or ["LINEAR"]))
                                     for joint, chan, times, values, *mode in channels])
    builder.write_glb(str(path))
    return path


def static_mesh(path):
    """A glTF with one unskinned triangle: a model without a skeleton."""
    import base64
    data = struct.pack("<9f", 0, 0, 0, 1, 0, 0, 0, 0, 1)
    gltf = {
        "asset": {"version": "2.0"},
        "scene": 0, "scenes": [{"nodes": [0]}],
        "nodes": [{"name": "tri", "mesh": 0}],
        "meshes": [{"primitives": [{"attributes": {"POSITION": 0}}]}],
        "buffers": [{"byteLength": len(data),
                     "uri": "data:application/octet-stream;base64," + base64.b64encode(data).decode()}],
        "bufferViews": [{"buffer": 0, "byteLength": len(data)}],
        "accessors": [{"bufferView": 0, "componentType": 5126, "count": 3, "type": "VEC3",
                       "min": [0, 0, 0], "max": [1, 0, 1]}],
    }
    path.write_text(json.dumps(gltf))
    return path
