"""A small, dependency-free (stdlib + numpy) glTF 2.0 binary (GLB) writer for skinned characters.

All inputs are given in Panda3D space (Z up, the character faces +Y, metres) and converted
to glTF's Y-up space on write: a point (x, y, z) becomes (x, z, -y) and a quaternion
(w, x, y, z) becomes glTF's [x, z, -y, w].  panda3d-gltf converts back on load.

Usage::

    b = GltfBuilder()
    mat = b.add_material("skin", (0.9, 0.7, 0.6, 1.0))
    root = b.add_joint("root")
    hips = b.add_joint("hips", parent=root, translation=(0, 0, 0.95))
    b.add_skinned_mesh("body", positions, normals, joints, weights, indices, mat)
    b.add_animation("idle", [(hips, "rotation", times, quats_wxyz, "LINEAR")])
    b.write_glb("character.glb")

The output is byte-for-byte deterministic: no timestamps, insertion-ordered everything,
JSON with sorted keys, and every float rounded to DECIMALS places before it is stored, so
last-bit differences between numpy builds and CPUs (noise around zero) do not reach the file.
"""
import json
import struct

import numpy as np

__all__ = ["GltfBuilder", "panda_to_gltf_point", "panda_to_gltf_quat"]

# glTF constants
_FLOAT = 5126
_UNSIGNED_BYTE = 5121
_UNSIGNED_SHORT = 5123
_UNSIGNED_INT = 5125
_ARRAY_BUFFER = 34962
_ELEMENT_ARRAY_BUFFER = 34963
_TRIANGLES = 4

_NUM_COMPONENTS = {"SCALAR": 1, "VEC2": 2, "VEC3": 3, "VEC4": 4, "MAT4": 16}

# Every float is rounded to this many decimals (0.1 µm; about float32's own precision near 1).
DECIMALS = 7

# Rotation taking Panda3D (Z-up) coordinates to glTF (Y-up): (x, y, z) -> (x, z, -y).
_P2G = np.array([[1.0, 0.0, 0.0],
                 [0.0, 0.0, 1.0],
                 [0.0, -1.0, 0.0]])


def panda_to_gltf_point(p):
    """Nx3 (or 3,) Panda3D points/vectors -> glTF space."""
    p = np.asarray(p, dtype=np.float64)
    return p @ _P2G.T


def panda_to_gltf_quat(q):
    """Nx4 (or 4,) Panda3D quaternions (w, x, y, z) -> glTF [x, y, z, w] in glTF space."""
    q = np.asarray(q, dtype=np.float64)
    w, x, y, z = q[..., 0], q[..., 1], q[..., 2], q[..., 3]
    return np.stack([x, z, -y, w], axis=-1)


def _quat_to_matrix(q):
    """(w, x, y, z) unit quaternion -> 3x3 rotation matrix."""
    w, x, y, z = (float(c) for c in q)
    n = w * w + x * x + y * y + z * z
    s = 2.0 / n if n > 0 else 0.0
    return np.array([
        [1 - s * (y * y + z * z), s * (x * y - w * z), s * (x * z + w * y)],
        [s * (x * y + w * z), 1 - s * (x * x + z * z), s * (y * z - w * x)],
        [s * (x * z - w * y), s * (y * z + w * x), 1 - s * (x * x + y * y)],
    ])


def _exact(values):
    """float64 values rounded to DECIMALS places, with -0.0 made 0.0, so every machine stores the same bits."""
    return np.round(np.asarray(values, dtype=np.float64), DECIMALS) + 0.0


def _round_floats(values):
    """Python floats from float32 values (so JSON min/max match the binary data exactly)."""
    return [float(v) for v in np.asarray(values, dtype=np.float32).ravel()]


class GltfBuilder:
    """Collects materials, one skeleton (one skin), skinned and static meshes and animations; writes GLB."""

    def __init__(self, scene_name="mannequin", root_rotation=None):
        self.scene_name = scene_name
        #: Rotation (Panda3D quaternion w, x, y, z) of the scene's root node: an armature node turned
        #: the way some exporters leave it (Blender's Y-up armatures, the Khronos Fox).
        self.root_rotation = root_rotation
        self._materials = []
        self._joints = []          # dicts: name, parent, translation, rotation (Panda space)
        self._meshes = []          # dicts: name, arrays, material
        self._animations = []      # (name, channels)
        self._empties = []         # dicts: name, parent (empty index), translation, rotation, extras

    # ------------------------------------------------------------------ authoring API
    def add_material(self, name, rgba, roughness=0.7):
        """Add a plain PBR material; returns its index."""
        rgba = [float(c) for c in rgba]
        if len(rgba) == 3:
            rgba.append(1.0)
        self._materials.append({
            "name": str(name),
            "pbrMetallicRoughness": {
                "baseColorFactor": rgba,
                "metallicFactor": 0.0,
                "roughnessFactor": float(roughness),
            },
        })
        return len(self._materials) - 1

    def add_joint(self, name, parent=None, translation=(0.0, 0.0, 0.0), rotation=(1.0, 0.0, 0.0, 0.0)):
        """Add a joint with its local rest transform (Panda3D space, quaternion w,x,y,z)."""
        if parent is not None and not 0 <= parent < len(self._joints):
            raise ValueError(f"joint {name!r}: unknown parent index {parent}")
        q = np.asarray(rotation, dtype=np.float64)
        q = q / np.linalg.norm(q)
        self._joints.append({
            "name": str(name),
            "parent": parent,
            "translation": np.asarray(translation, dtype=np.float64).reshape(3),
            "rotation": q,
        })
        return len(self._joints) - 1

    def add_skinned_mesh(self, name, positions, normals, joints, weights, indices, material):
        """Add a mesh (one primitive) skinned to the skeleton; positions are bind-pose model space."""
        positions = np.asarray(positions, dtype=np.float64).reshape(-1, 3)
        normals = np.asarray(normals, dtype=np.float64).reshape(-1, 3)
        joints = np.asarray(joints, dtype=np.int64).reshape(-1, 4)
        weights = np.asarray(weights, dtype=np.float64).reshape(-1, 4)
        indices = np.asarray(indices, dtype=np.int64).reshape(-1, 3)
        n = len(positions)
        if not (len(normals) == len(joints) == len(weights) == n):
            raise ValueError(f"mesh {name!r}: attribute arrays differ in length")
        if indices.size and (indices.min() < 0 or indices.max() >= n):
            raise ValueError(f"mesh {name!r}: triangle index out of range")
        if joints.size and (joints.min() < 0 or joints.max() >= max(len(self._joints), 1)):
            raise ValueError(f"mesh {name!r}: joint index out of range (add joints first)")
        if not 0 <= material < len(self._materials):
            raise ValueError(f"mesh {name!r}: unknown material {material}")
        norms = np.linalg.norm(normals, axis=1, keepdims=True)
        normals = normals / np.where(norms > 0, norms, 1.0)
        wsum = weights.sum(axis=1, keepdims=True)
        weights = weights / np.where(wsum > 0, wsum, 1.0)
        self._meshes.append({
            "name": str(name), "positions": positions, "normals": normals,
            "joints": joints, "weights": weights, "indices": indices, "material": int(material),
        })
        return len(self._meshes) - 1

    def add_static_mesh(self, name, positions, normals, indices, material):
        """Add a mesh (one primitive) with no skin, e.g. level geometry; Panda3D space."""
        positions = np.asarray(positions, dtype=np.float64).reshape(-1, 3)
        normals = np.asarray(normals, dtype=np.float64).reshape(-1, 3)
        indices = np.asarray(indices, dtype=np.int64).reshape(-1, 3)
        if len(normals) != len(positions):
            raise ValueError(f"mesh {name!r}: attribute arrays differ in length")
        if indices.size and (indices.min() < 0 or indices.max() >= len(positions)):
            raise ValueError(f"mesh {name!r}: triangle index out of range")
        if not 0 <= material < len(self._materials):
            raise ValueError(f"mesh {name!r}: unknown material {material}")
        norms = np.linalg.norm(normals, axis=1, keepdims=True)
        self._meshes.append({"name": str(name), "positions": positions,
                             "normals": normals / np.where(norms > 0, norms, 1.0),
                             "joints": None, "weights": None, "indices": indices, "material": int(material)})
        return len(self._meshes) - 1

    def add_empty(self, name, translation=(0.0, 0.0, 0.0), rotation=(1.0, 0.0, 0.0, 0.0), extras=None,
                  parent=None, mesh=None):
        """Add a node with no mesh (Blender's empty): a marker a level designer places, with `extras`
        (Blender's custom properties; panda3d-gltf turns them into tags). Its parent is another empty
        (`parent`, an index), or a static mesh's node (`mesh`, an index: the prop it is placed on), else
        the scene root; its transform is relative to that parent. Panda3D space, quaternion w, x, y, z.
        Returns its index."""
        if parent is not None and not 0 <= parent < len(self._empties):
            raise ValueError(f"empty {name!r}: unknown parent index {parent}")
        if mesh is not None and not (0 <= mesh < len(self._meshes) and self._meshes[mesh]["joints"] is None):
            raise ValueError(f"empty {name!r}: {mesh} is not the index of a static mesh")
        q = np.asarray(rotation, dtype=np.float64)
        self._empties.append({"name": str(name), "parent": parent, "mesh": mesh,
                              "translation": np.asarray(translation, dtype=np.float64).reshape(3),
                              "rotation": q / np.linalg.norm(q), "extras": dict(extras or {})})
        return len(self._empties) - 1

    def add_animation(self, name, channels):
        """Add a clip: channels = [(joint_index, path, times, values, interpolation), ...]."""
        checked = []
        for joint, path, times, values, interp in channels:
            if not 0 <= joint < len(self._joints):
                raise ValueError(f"animation {name!r}: unknown joint {joint}")
            if path not in ("translation", "rotation"):
                raise ValueError(f"animation {name!r}: unsupported path {path!r}")
            if interp not in ("LINEAR", "STEP"):
                raise ValueError(f"animation {name!r}: unsupported interpolation {interp!r}")
            times = np.asarray(times, dtype=np.float64).reshape(-1)
            width = 3 if path == "translation" else 4
            values = np.asarray(values, dtype=np.float64).reshape(-1, width)
            if len(times) != len(values) or len(times) == 0:
                raise ValueError(f"animation {name!r}: times/values length mismatch")
            if np.any(np.diff(times) <= 0):
                raise ValueError(f"animation {name!r}: times must be strictly ascending")
            checked.append((int(joint), path, times, values, interp))
        self._animations.append((str(name), checked))
        return len(self._animations) - 1

    # ------------------------------------------------------------------ rest pose helpers
    def joint_global_matrices(self):
        """4x4 model-space rest matrices of all joints, Panda3D space (column-vector convention)."""
        top = np.eye(4)
        if self.root_rotation is not None:
            top[:3, :3] = _quat_to_matrix(self.root_rotation)
        mats = []
        for j in self._joints:
            local = np.eye(4)
            local[:3, :3] = _quat_to_matrix(j["rotation"])
            local[:3, 3] = j["translation"]
            mats.append(top @ local if j["parent"] is None else mats[j["parent"]] @ local)
        return mats

    # ------------------------------------------------------------------ writing
    def to_gltf(self):
        """Return (json_dict, binary_blob)."""
        if not self._joints and not self._meshes and not self._empties:
            raise ValueError("nothing to write: no joints and no meshes")
        blob = bytearray()
        buffer_views = []
        accessors = []

        def add_view(data, target=None):
            while len(blob) % 4:
                blob.append(0)
            view = {"buffer": 0, "byteOffset": len(blob), "byteLength": len(data)}
            if target is not None:
                view["target"] = target
            blob.extend(data)
            buffer_views.append(view)
            return len(buffer_views) - 1

        def add_accessor(array, component_type, acc_type, target=None, minmax=False):
            dtype = {_FLOAT: "<f4", _UNSIGNED_BYTE: "u1",
                     _UNSIGNED_SHORT: "<u2", _UNSIGNED_INT: "<u4"}[component_type]
            values = _exact(array) if component_type == _FLOAT else np.asarray(array)
            arr = np.ascontiguousarray(values.astype(dtype))
            ncomp = _NUM_COMPONENTS[acc_type]
            count = arr.size // ncomp
            acc = {"bufferView": add_view(arr.tobytes(), target), "componentType": component_type,
                   "count": int(count), "type": acc_type}
            if minmax:
                flat = arr.reshape(count, ncomp)
                acc["min"] = _round_floats(flat.min(axis=0))
                acc["max"] = _round_floats(flat.max(axis=0))
            accessors.append(acc)
            return len(accessors) - 1

        # --- nodes: 0 = scene root, 1..J = joints, then one node per mesh
        nodes = [{"name": self.scene_name, "children": []}]
        if self.root_rotation is not None:
            nodes[0]["rotation"] = [float(v) for v in _exact(panda_to_gltf_quat(self.root_rotation))]
        joint_node = lambda j: 1 + j  # noqa: E731
        for idx, j in enumerate(self._joints):
            node = {"name": j["name"]}
            t = _exact(panda_to_gltf_point(j["translation"]))
            if np.any(t != 0.0):
                node["translation"] = [float(v) for v in t]
            q = _exact(panda_to_gltf_quat(j["rotation"]))
            if not np.allclose(q, [0, 0, 0, 1], atol=0.0):
                node["rotation"] = [float(v) for v in q]
            children = [joint_node(c) for c, cj in enumerate(self._joints) if cj["parent"] == idx]
            if children:
                node["children"] = children
            nodes.append(node)
        roots = [joint_node(i) for i, j in enumerate(self._joints) if j["parent"] is None]
        nodes[0]["children"].extend(roots)

        # --- skin: inverse bind matrices in glTF space (column-major)
        skin = None
        if self._joints:
            c4 = np.eye(4)
            c4[:3, :3] = _P2G
            ibms = []
            for m in self.joint_global_matrices():
                g = c4 @ m @ c4.T
                ibms.append(np.linalg.inv(g).T.reshape(16))   # transpose -> column-major order
            ibm_acc = add_accessor(np.array(ibms), _FLOAT, "MAT4")
            skin = {"name": self.scene_name + "_skin",
                    "joints": [joint_node(i) for i in range(len(self._joints))],
                    "inverseBindMatrices": ibm_acc,
                    "skeleton": roots[0]}

        # --- meshes
        meshes = []
        joint_type = _UNSIGNED_BYTE if len(self._joints) <= 256 else _UNSIGNED_SHORT
        for mesh in self._meshes:
            pos = add_accessor(panda_to_gltf_point(mesh["positions"]), _FLOAT, "VEC3",
                               _ARRAY_BUFFER, minmax=True)
            nrm = add_accessor(panda_to_gltf_point(mesh["normals"]), _FLOAT, "VEC3", _ARRAY_BUFFER)
            attributes = {"POSITION": pos, "NORMAL": nrm}
            if mesh["joints"] is not None:
                attributes["JOINTS_0"] = add_accessor(mesh["joints"], joint_type, "VEC4", _ARRAY_BUFFER)
                attributes["WEIGHTS_0"] = add_accessor(mesh["weights"], _FLOAT, "VEC4", _ARRAY_BUFFER)
            n = len(mesh["positions"])
            index_type = _UNSIGNED_SHORT if n <= 65535 else _UNSIGNED_INT
            idx = add_accessor(mesh["indices"].reshape(-1), index_type, "SCALAR",
                               _ELEMENT_ARRAY_BUFFER)
            meshes.append({"name": mesh["name"], "primitives": [{
                "attributes": attributes, "indices": idx, "material": mesh["material"], "mode": _TRIANGLES}]})
            nodes.append({"name": mesh["name"], "mesh": len(meshes) - 1})
            if mesh["joints"] is not None:
                nodes[-1]["skin"] = 0
            nodes[0]["children"].append(len(nodes) - 1)

        # --- empties, after the meshes
        first = len(nodes)
        mesh_nodes = [i for i, node in enumerate(nodes) if "mesh" in node]
        for empty in self._empties:
            node = {"name": empty["name"], "translation": [float(v) for v in _exact(panda_to_gltf_point(empty["translation"]))],
                    "rotation": [float(v) for v in _exact(panda_to_gltf_quat(empty["rotation"]))]}
            if empty["extras"]:
                node["extras"] = empty["extras"]
            nodes.append(node)
            if empty["parent"] is not None:
                parent = nodes[first + empty["parent"]]
            else:
                parent = nodes[0] if empty["mesh"] is None else nodes[mesh_nodes[empty["mesh"]]]
            parent.setdefault("children", []).append(len(nodes) - 1)

        # --- animations (identical time arrays share one input accessor)
        animations = []
        time_cache = {}
        for name, channels in self._animations:
            samplers, chans = [], []
            for joint, path, times, values, interp in channels:
                key = np.asarray(times, dtype="<f4").tobytes()
                if key not in time_cache:
                    time_cache[key] = add_accessor(times, _FLOAT, "SCALAR", minmax=True)
                if path == "translation":
                    out = add_accessor(panda_to_gltf_point(values), _FLOAT, "VEC3")
                else:
                    out = add_accessor(panda_to_gltf_quat(values), _FLOAT, "VEC4")
                samplers.append({"input": time_cache[key], "output": out, "interpolation": interp})
                chans.append({"sampler": len(samplers) - 1,
                              "target": {"node": joint_node(joint), "path": path}})
            animations.append({"name": name, "samplers": samplers, "channels": chans})

        while len(blob) % 4:
            blob.append(0)
        doc = {
            "asset": {"version": "2.0", "generator": "motionwarp authoring/gltf_writer.py"},
            "scene": 0,
            "scenes": [{"name": self.scene_name, "nodes": [0]}],
            "nodes": nodes,
            "buffers": [{"byteLength": len(blob)}],
            "bufferViews": buffer_views,
            "accessors": accessors,
        }
        if skin is not None:
            doc["skins"] = [skin]
        if self._materials:
            doc["materials"] = self._materials
        if meshes:
            doc["meshes"] = meshes
        if animations:
            doc["animations"] = animations
        return doc, bytes(blob)

    def to_glb_bytes(self):
        doc, blob = self.to_gltf()
        js = json.dumps(doc, sort_keys=True, separators=(",", ":")).encode("utf-8")
        js += b" " * (-len(js) % 4)
        total = 12 + 8 + len(js) + 8 + len(blob)
        out = bytearray(struct.pack("<4sII", b"glTF", 2, total))
        out += struct.pack("<I4s", len(js), b"JSON") + js
        out += struct.pack("<I4s", len(blob), b"BIN\x00") + blob
        return bytes(out)

    def write_glb(self, path):
        """Write the GLB file (deterministic bytes)."""
        data = self.to_glb_bytes()
        with open(path, "wb") as f:
            f.write(data)
        return len(data)
