"""The KayKit Knight re-exported the ways real pipelines export armatures, made from its own bytes.

Each variant keeps the Knight's world exactly (every joint and skinned vertex where the glTF spec
puts the Knight's) while its data changes units and axes under an armature node that undoes them:

- `cm`: data in centimetres (x100) under an armature node scaled 0.01 (an FBX character through
  Blender);
- `hundred`: data x0.01 under an armature node scaled 100;
- `zup`: data turned Z-up under an armature node turned -90 degrees about X;
- `mixamo`: centimetres and Z-up together (a Mixamo character through Blender);
- `skin_offset`: the skinned mesh nodes given a transform of their own, which the spec ignores.

`spec_vertices` computes skinned vertex positions by the spec's own formula (joint matrix times
inverse bind matrix, weighted) from a file's bytes, for any pose of its joints' local transforms.
"""
import numpy as np

from .glb import accessor, glb_bytes, node_matrix, quat_matrix, read_glb, world_matrices

#: A quarter turn about glTF's X: Z-up armature data to glTF's Y-up (x, y, z, w).
Z_UP_TURN = (-np.sqrt(0.5), 0.0, 0.0, np.sqrt(0.5))
#: Variant name -> (data scale k, armature turn or None, skinned mesh nodes' own transform or None).
VARIANTS = {
    "cm": (100.0, None, None),
    "hundred": (0.01, None, None),
    "zup": (1.0, Z_UP_TURN, None),
    "mixamo": (100.0, Z_UP_TURN, None),
    "skin_offset": (1.0, None, {"translation": [0.4, 0.9, -0.3], "rotation": [0.0, 0.0, np.sqrt(0.5), np.sqrt(0.5)]}),
}


class Glb:
    """A GLB's JSON and binary chunk, with typed access to accessors; written back whole."""

    def __init__(self, doc, blob):
        self.doc, self.blob = doc, bytearray(blob)

    @classmethod
    def read(cls, path):
        return cls(*read_glb(path))

    def accessor(self, index):
        """An accessor's values as float64 rows (count x width); matrices as (count, 4, 4) column-vector."""
        values = accessor(self.doc, self.blob, index).astype(np.float64)
        return values.reshape(-1, 4, 4).transpose(0, 2, 1) if values.shape[1] == 16 else values

    def replace_float_accessor(self, index, values):
        """Point a float accessor at new values, appended to the binary chunk (min and max kept true)."""
        acc = self.doc["accessors"][index]
        values = np.asarray(values, dtype=np.float64)
        if acc["type"] == "MAT4":
            values = values.transpose(0, 2, 1)
        data = np.ascontiguousarray(values.reshape(acc["count"], -1), dtype="<f4")
        while len(self.blob) % 4:
            self.blob.append(0)
        self.doc["bufferViews"].append({"buffer": 0, "byteOffset": len(self.blob), "byteLength": data.nbytes})
        self.blob.extend(data.tobytes())
        acc.update(bufferView=len(self.doc["bufferViews"]) - 1, byteOffset=0)
        if "min" in acc:
            acc.update(min=[float(v) for v in data.min(axis=0)], max=[float(v) for v in data.max(axis=0)])

    def to_bytes(self):
        self.doc["buffers"][0]["byteLength"] = len(self.blob) + (-len(self.blob) % 4)
        return glb_bytes(self.doc, self.blob)

    def parents(self):
        found = {}
        for index, node in enumerate(self.doc["nodes"]):
            for child in node.get("children", []):
                found[child] = index
        return found


def quat_mul(a, b):
    """Hamilton product of glTF quaternions (x, y, z, w): rotate by b, then by a."""
    ax, ay, az, aw = a
    bx, by, bz, bw = b
    return np.array([aw * bx + ax * bw + ay * bz - az * by, aw * by - ax * bz + ay * bw + az * bx,
                     aw * bz + ax * by - ay * bx + az * bw, aw * bw - ax * bx - ay * by - az * bz])


def armature_of(glb):
    """The node whose children are the skin's top joint and its skinned meshes (the Knight's `Rig`)."""
    parents = glb.parents()
    top = next(j for j in glb.doc["skins"][0]["joints"] if parents.get(j) not in glb.doc["skins"][0]["joints"])
    return parents[top]


def wrap(source, variant):
    """The GLB bytes of the Knight at `source` re-exported as `variant` (a key of VARIANTS)."""
    k, turn, skin_transform = VARIANTS[variant]
    glb = Glb.read(source)
    nodes, parents = glb.doc["nodes"], glb.parents()
    rig = armature_of(glb)
    undo = np.eye(3) if turn is None else quat_matrix(turn).T   # world -> the armature's data axes
    undo_q = None if turn is None else quat_mul((0, 0, 0, 1), (-turn[0], -turn[1], -turn[2], turn[3]))

    def under_rig(index):
        while index in parents:
            index = parents[index]
            if index == rig:
                return True
        return False
    top_level = set(nodes[rig].get("children", []))
    skinned = {i for i, n in enumerate(nodes) if "skin" in n}
    for index, node in enumerate(nodes):
        if not under_rig(index) or index in skinned:
            continue
        t = k * np.asarray(node.get("translation", (0, 0, 0)), dtype=np.float64)
        if index in top_level:
            t = undo @ t
            if undo_q is not None:
                node["rotation"] = [float(v) for v in quat_mul(undo_q, node.get("rotation", (0, 0, 0, 1)))]
        if np.any(t):
            node["translation"] = [float(v) for v in t]
    if turn is not None:
        nodes[rig]["rotation"] = [float(v) for v in turn]
    if k != 1.0:
        nodes[rig]["scale"] = [1.0 / k] * 3
    # animation: translations x k, the top joint's turned into the armature's axes
    done = set()
    for animation in glb.doc.get("animations", []):
        for channel in animation["channels"]:
            target, sampler = channel["target"], animation["samplers"][channel["sampler"]]
            if (sampler["output"], target["path"]) in done or target["path"] not in ("translation", "rotation"):
                continue
            done.add((sampler["output"], target["path"]))
            values = glb.accessor(sampler["output"])
            if target["path"] == "translation":
                values = k * values
                if target["node"] in top_level:
                    values = values @ undo.T
            elif target["node"] in top_level and undo_q is not None:
                values = np.array([quat_mul(undo_q, q) for q in values])
            else:
                continue
            glb.replace_float_accessor(sampler["output"], values)
    # skinned vertices into the armature's axes and units; inverse binds to match (K IBM A^-1)
    to_data = np.eye(4)
    to_data[:3, :3] = k * undo
    scale_k = np.diag([k, k, k, 1.0])
    skin = glb.doc["skins"][0]
    glb.replace_float_accessor(skin["inverseBindMatrices"],
                               scale_k @ glb.accessor(skin["inverseBindMatrices"]) @ np.linalg.inv(to_data))
    moved = set()
    for index, node in enumerate(nodes):
        if "mesh" not in node or not (index in skinned or under_rig(index)):
            continue
        for primitive in glb.doc["meshes"][node["mesh"]]["primitives"]:
            attributes = primitive["attributes"]
            for name in ("POSITION", "NORMAL", "TANGENT"):
                if name not in attributes or attributes[name] in moved:
                    continue
                moved.add(attributes[name])
                values = glb.accessor(attributes[name])
                linear = (k * undo if name == "POSITION" else undo) if index in skinned else \
                    (k * np.eye(3) if name == "POSITION" else np.eye(3))
                values[:, :3] = values[:, :3] @ linear.T
                glb.replace_float_accessor(attributes[name], values)
    if skin_transform is not None:
        for index in skinned:
            nodes[index].update({key: [float(v) for v in value] for key, value in skin_transform.items()})
    return glb.to_bytes()


def write_variant(source, variant, path):
    """Write the Knight at `source` as `variant` to `path`; returns the path."""
    with open(path, "wb") as out:
        out.write(wrap(source, variant))
    return path


def spec_vertices(glb, mesh_node, local=None):
    """The skinned vertex positions (glTF world axes) of `mesh_node`'s first primitive by the spec: the
    sum over its joints of weight x joint world matrix x inverse bind matrix x position; the mesh
    node's own transform takes no part."""
    worlds = world_matrices(glb.doc, local)
    skin = glb.doc["skins"][glb.doc["nodes"][mesh_node]["skin"]]
    ibms = glb.accessor(skin["inverseBindMatrices"])
    joint_mats = np.array([worlds[j] @ ibm for j, ibm in zip(skin["joints"], ibms)])
    attributes = glb.doc["meshes"][glb.doc["nodes"][mesh_node]["mesh"]]["primitives"][0]["attributes"]
    positions = glb.accessor(attributes["POSITION"])
    joints = glb.accessor(attributes["JOINTS_0"]).astype(int)
    weights = glb.accessor(attributes["WEIGHTS_0"])
    blended = np.einsum("vi,vijk->vjk", weights, joint_mats[joints])
    return np.einsum("vjk,vk->vj", blended, np.column_stack([positions, np.ones(len(positions))]))[:, :3]


def clip_locals(glb, clip, time):
    """{node: 4x4 local matrix} of the nodes `clip` animates, at `time` (s), read from its keys: LINEAR
    translations and scales, rotations normalised-lerped (exact on a key, which is where tests sample)."""
    animation = next(a for a in glb.doc["animations"] if a.get("name") == clip)
    trs = {}
    for channel in animation["channels"]:
        sampler = animation["samplers"][channel["sampler"]]
        keys, values = glb.accessor(sampler["input"])[:, 0], glb.accessor(sampler["output"])
        after = int(np.clip(np.searchsorted(keys, time, side="right"), 1, len(keys) - 1))
        span = keys[after] - keys[after - 1]
        u = float(np.clip((time - keys[after - 1]) / span, 0.0, 1.0)) if span > 0 else 1.0
        first, second = values[after - 1], values[after]
        if channel["target"]["path"] == "rotation" and np.dot(first, second) < 0:
            second = -second
        value = first + (second - first) * u
        trs.setdefault(channel["target"]["node"], {})[channel["target"]["path"]] = value
    return {node: node_matrix(glb.doc["nodes"][node], **paths) for node, paths in trs.items()}
