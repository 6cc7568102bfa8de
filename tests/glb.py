"""The suite's one reader of GLB files, as the glTF 2.0 spec reads them: the tests' oracle for what the
loader must produce is computed from these bytes, never from motionwarp or panda3d-gltf."""
import json
import pathlib
import struct

import numpy as np

_COMPONENTS = {5120: "i1", 5121: "u1", 5122: "i2", 5123: "u2", 5125: "u4", 5126: "f4"}
_WIDTH = {"SCALAR": 1, "VEC2": 2, "VEC3": 3, "VEC4": 4, "MAT4": 16}


def read_glb(path):
    """(the JSON, the binary chunk or b"") of a GLB file, its container checked as the spec lays it out."""
    data = pathlib.Path(path).read_bytes()
    magic, version, length = struct.unpack_from("<4sII", data, 0)
    if (magic, version, length) != (b"glTF", 2, len(data)):
        raise ValueError(f"{path}: not a glTF 2.0 GLB of its stated length ({magic!r}, {version}, {length})")
    json_length, json_type = struct.unpack_from("<I4s", data, 12)
    if json_type != b"JSON":
        raise ValueError(f"{path}: the first chunk is {json_type!r}, not JSON")
    doc = json.loads(data[20:20 + json_length])
    if len(data) <= 20 + json_length:
        return doc, b""
    bin_length, bin_type = struct.unpack_from("<I4s", data, 20 + json_length)
    if bin_type != b"BIN\0":
        raise ValueError(f"{path}: the second chunk is {bin_type!r}, not BIN")
    return doc, data[28 + json_length:28 + json_length + bin_length]


def accessor(doc, binary, index):
    """An accessor's values (count, width) as stored, or as floats when `normalized` (the spec's rule)."""
    info = doc["accessors"][index]
    view = doc["bufferViews"][info["bufferView"]]
    dtype = np.dtype("<" + _COMPONENTS[info["componentType"]])
    width, count = _WIDTH[info["type"]], info["count"]
    start = view.get("byteOffset", 0) + info.get("byteOffset", 0)
    stride = view.get("byteStride") or dtype.itemsize * width
    rows = np.frombuffer(binary, np.uint8, count=stride * (count - 1) + dtype.itemsize * width, offset=start)
    values = np.lib.stride_tricks.as_strided(rows.view(dtype), (count, width), (stride, dtype.itemsize)).copy()
    return values / np.iinfo(dtype).max if info.get("normalized") else values


def quat_matrix(q):
    """3x3 column-vector rotation of a glTF quaternion (x, y, z, w)."""
    x, y, z, w = np.asarray(q, dtype=np.float64) / np.linalg.norm(q)
    return np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
                     [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
                     [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]])


def node_matrix(node, translation=None, rotation=None, scale=None):
    """4x4 column-vector local matrix of a glTF node (T R S), its TRS overridden by the arguments."""
    if "matrix" in node:
        return np.array(node["matrix"], dtype=np.float64).reshape(4, 4).T
    mat = np.eye(4)
    mat[:3, :3] = quat_matrix(node.get("rotation", (0, 0, 0, 1)) if rotation is None else rotation) \
        * np.asarray(node.get("scale", (1, 1, 1)) if scale is None else scale)
    mat[:3, 3] = node.get("translation", (0, 0, 0)) if translation is None else translation
    return mat


def world_matrices(doc, local=None):
    """{node: 4x4 world matrix (glTF axes)} of every node of the default scene, with `local` ({node:
    4x4}) replacing some nodes' own transforms (a pose)."""
    local = local or {}
    nodes, found = doc["nodes"], {}
    stack = [(index, np.eye(4)) for index in doc["scenes"][doc.get("scene", 0)]["nodes"]]
    while stack:
        index, above = stack.pop()
        found[index] = above @ local.get(index, node_matrix(nodes[index]))
        stack.extend((child, found[index]) for child in nodes[index].get("children", []))
    return found


def glb_bytes(doc, binary):
    """A GLB of `doc` and `binary`, each chunk padded to 4 bytes."""
    text = json.dumps(doc, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 4)
    binary = bytes(binary) + b"\0" * (-len(binary) % 4)
    body = struct.pack("<I4s", len(text), b"JSON") + text + struct.pack("<I4s", len(binary), b"BIN\0") + binary
    return struct.pack("<4sII", b"glTF", 2, 12 + len(body)) + body


def write_glb(path, doc, binary):
    path = pathlib.Path(path)
    path.write_bytes(glb_bytes(doc, binary))
    return path
