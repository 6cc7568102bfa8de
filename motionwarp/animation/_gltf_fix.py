"""A narrow, self-detecting fix for panda3d-gltf's animation baking (docs/design.md 3).

panda3d-gltf 1.3.0 bakes each clip into one sample per frame at `gltf-animation-fps`, with
two bugs (upstream issue #143):

* `get_lerp_factor` returns `max(x, 1)` instead of clamping to [0, 1], so every LINEAR
  sample snaps to the *next* key: sparse-key clips play a whole key interval early.
* the clip gets `ceil(duration * fps)` frames, so when the duration is not a whole number
  of frames no frame is sampled at the final key time: the clip never reaches its last pose.
  (When it is, float rounding decides: the Knight's 32-frame Walking_A gets its final key.)

`convert()` swaps in corrected functions only while motionwarp converts a file, and only
when the installed panda3d-gltf still has the bugs. Both are detected by behaviour, so an
upstream fix switches its patch off by itself: the lerp factor by one call, the final key
by converting a tiny in-memory glTF and looking at its last frame. The final-key patch then
adds a frame only to the clips whose frames stop short of their final key.

Skinned meshes rest and are bound as the glTF spec draws them (`_VectorBakeConverter._skeleton_joints`,
`combine_mesh_skin`, `_characters_at_the_top`): panda3d-gltf rests the joints in their bind pose (the inverse
bind matrices, taken in the armature node's frame), keeps the skinned mesh node's own transform, and an Actor
drops the nodes above the Character. Here a joint rests at its node's transform, the inverse binds only skin,
and the Character carries its world transform.

Skeleton clips are baked by `_VectorBakeConverter` in numpy, all frames of all joints at once,
with the fixed rules whether or not the installed panda3d-gltf needs the patches (its own
frame-by-frame Python bake took ~2 s of CPU for the Knight), STEP channels reaching their final
key and CUBICSPLINE read by the glTF spec (panda3d-gltf gets both wrong); morph targets keep its baker.
"""
import base64
import bisect
import functools
import struct

import gltf._converter as _conv
from gltf._converter_maps import COMPONENT_FORMT_STR_MAP, COMPONENT_NUM_MAP
import numpy as np
from panda3d.core import (CS_yup_right, CS_zup_right, AnimChannelMatrixXfmTable, CharacterJoint, CPTA_stdfloat, LMatrix4, LQuaternion,
                          LVector3, NodePath, PandaNode, PTA_stdfloat, TransformState, decompose_matrix,
                          get_default_coordinate_system)


def _lerp_factor(currtime, lasttime, nexttime):
    """Fraction of the way from the last key to the next one, clamped to [0, 1]."""
    span = nexttime - lasttime
    if span <= 0.0:
        return 1.0
    return min(max((currtime - lasttime) / span, 0.0), 1.0)


def _next_time_index(currtime, time_buffer):
    """Index of the first key after `currtime` (so a sample on a key gets that key), from 1 up to the
    last. A binary search: the converter asks once per joint, channel and frame (a scan made the
    Knight's 76 clips take 1.5 s longer to bake)."""
    return min(max(bisect.bisect_right(time_buffer, currtime), 1), len(time_buffer) - 1)


def lerp_bug_present():
    """True when the installed panda3d-gltf snaps LINEAR samples to the next key."""
    return _conv.get_lerp_factor(0.25, 0.0, 1.0) != 0.25


@functools.lru_cache(maxsize=None)
def final_key_bug_present():
    """True when the installed panda3d-gltf bakes a clip without a frame at its final key.

    Converts a one-joint glTF whose clip moves x from 0 to 1 in 1.0 s (30 whole frames at
    30 fps) and checks that the last baked frame is at x = 1 and the one before is not.
    """
    from gltf import GltfSettings
    times, values = struct.pack("<2f", 0.0, 1.0), struct.pack("<6f", 0, 0, 0, 1, 0, 0)
    uri = "data:application/octet-stream;base64," + base64.b64encode(times + values).decode()
    probe = {
        "asset": {"version": "2.0"}, "scene": 0, "scenes": [{"nodes": [0]}],
        "nodes": [{"name": "probe"}], "skins": [{"joints": [0]}],
        "buffers": [{"byteLength": 32, "uri": uri}],
        "bufferViews": [{"buffer": 0, "byteLength": 8}, {"buffer": 0, "byteOffset": 8, "byteLength": 24}],
        "accessors": [{"bufferView": 0, "componentType": 5126, "count": 2, "type": "SCALAR", "min": [0], "max": [1]},
                      {"bufferView": 1, "componentType": 5126, "count": 2, "type": "VEC3"}],
        "animations": [{"name": "probe", "samplers": [{"input": 0, "output": 1}],
                        "channels": [{"sampler": 0, "target": {"node": 0, "path": "translation"}}]}],
    }
    converter = _conv.Converter("probe.gltf", settings=GltfSettings(animation_fps=30))
    saved = _conv.get_lerp_factor
    try:
        if lerp_bug_present():  # the lerp bug snaps the last frames to the final key: take it out first
            _conv.get_lerp_factor = _lerp_factor
        converter.update(probe)
    finally:
        _conv.get_lerp_factor = saved
    bundle = converter.active_scene.find("**/+AnimBundleNode").node().getBundle()
    xs = list(bundle.findChild("probe").getTable("x"))
    return not (len(xs) >= 2 and abs(xs[-1] - 1.0) < 1e-6 and abs(xs[-2] - 1.0) > 1e-6)


#: A frame this close before a key (seconds) is on it: key times are float32 (1.2 s is 1.2000000477).
KEY_TOLERANCE = 1e-5


class _KeySearch:
    """Where each frame time of a clip falls among one accessor's keys, for all frames at once, by the
    rules of `_next_time_index` (a time on a key gets that key; the search stops at the last key) and
    `_lerp_factor` (clamped to [0, 1]); a single key holds at every time. `held` is the key a STEP
    channel holds: the last key at or before the frame (the final key from its time on)."""

    def __init__(self, times, keys):
        self.held = np.clip(np.searchsorted(keys, times + KEY_TOLERANCE, side="right") - 1, 0, len(keys) - 1)
        if len(keys) == 1:
            self.last = self.following = np.zeros(len(times), dtype=int)
            self.factor = self.span = np.zeros(len(times))
            return
        self.following = np.clip(np.searchsorted(keys, times, side="right"), 1, len(keys) - 1)
        self.last = self.following - 1
        self.span = keys[self.following] - keys[self.last]
        self.factor = np.ones(len(times))
        moving = self.span > 0.0
        self.factor[moving] = np.clip((times[moving] - keys[self.last][moving]) / self.span[moving], 0.0, 1.0)

    def ends(self, values, mode):
        """(value before, value after, factor) per frame; STEP holds its key, CUBICSPLINE is its value
        (as both ends, factor 0)."""
        if mode == "STEP":
            held = values[self.held]
            return held, held, np.zeros(len(self.held))
        if mode == "CUBICSPLINE":
            value = self.hermite(values)
            return value, value, np.zeros(len(self.last))
        return values[self.last], values[self.following], self.factor

    def hermite(self, values):
        """The glTF spec's cubic Hermite spline per frame: `values` holds (in-tangent, value, out-tangent)
        per key; tangents are per second, so they are scaled by the key interval."""
        tangent_in, value, tangent_out = (values[part::3].astype(np.float64) for part in range(3))
        s = self.factor[:, None]
        span = self.span[:, None]
        s2, s3 = s * s, s * s * s
        return ((2 * s3 - 3 * s2 + 1) * value[self.last] + span * (s3 - 2 * s2 + s) * tangent_out[self.last]
                + (-2 * s3 + 3 * s2) * value[self.following] + span * (s3 - s2) * tangent_in[self.following])


def _lerp(first, second, factor):
    """panda3d-gltf's `vlerp` in Panda3D's float32 arithmetic, so that a channel holding still between
    equal keys bakes the same rounding as panda3d-gltf's does (and is kept as one value alike)."""
    weights = np.stack([1.0 - factor, factor]).astype(np.float32)[:, :, None]
    return (first.astype(np.float32) * weights[0] + second.astype(np.float32) * weights[1]).astype(np.float64)


def _slerp(first, second, factor):
    """panda3d-gltf's `slerp`, row by row: along the shorter arc, a lerp when the quaternions are
    within a dot product of 0.9995 (which it normalises: `_joint_matrices` divides the length out)."""
    dot = np.einsum("ij,ij->i", first, second)
    first = np.where((dot < 0.0)[:, None], -first, first)
    dot = np.abs(dot)
    theta0 = np.arccos(np.minimum(dot, 1.0))
    theta = factor * theta0
    with np.errstate(divide="ignore", invalid="ignore"):  # theta0 = 0 only where the lerp is taken
        to_second = np.sin(theta) / np.sin(theta0)
    slerped = first * (np.cos(theta) - dot * to_second)[:, None] + second * to_second[:, None]
    lerped = first * (1.0 - factor[:, None]) + second * factor[:, None]
    return np.where((dot > 0.9995)[:, None], lerped, slerped)


def _joint_matrices(scale, rotation, translation):
    """Panda3D row-vector matrices (n, 4, 4) of `rotation * scale_mat(scale) * translate_mat(translation)`
    as panda3d-gltf composes them (its quaternion times a matrix rotates the columns: R @ S). The
    quaternions (w, x, y, z) need not be unit: Panda3D divides by their squared length."""
    w, x, y, z = rotation.T
    norm = np.einsum("ij,ij->i", rotation, rotation)
    s = np.divide(2.0, norm, out=np.zeros_like(norm), where=norm != 0.0)
    rot = np.stack([1 - s * (y * y + z * z), s * (x * y + w * z), s * (x * z - w * y),
                    s * (x * y - w * z), 1 - s * (x * x + z * z), s * (y * z + w * x),
                    s * (x * z + w * y), s * (y * z - w * x), 1 - s * (x * x + y * y)], axis=1).reshape(-1, 3, 3)
    mats = np.zeros((len(rotation), 4, 4))
    mats[:, :3, :3] = rot * scale[:, None, :]
    mats[:, 3, :3] = translation
    mats[:, 3, 3] = 1.0
    return mats


def _decomposed(mats):
    """(n, 9) rows of x y z h p r i j k, as Panda3D's `decompose_matrix` (Z-up right-handed) gives
    them: heading from the Y row, then pitch, then roll, each unwound before the next is read, and
    the scale left on the unwound diagonal (compose_matrix_src.cxx, `unwind_zup_rotation`)."""
    rows = mats[:, :3, :3].copy()  # the X, Y and Z rows of each matrix
    heading = -np.arctan2(rows[:, 1, 0], rows[:, 1, 1])
    _turn(rows, 0, 1, -heading)
    pitch = np.arctan2(rows[:, 1, 2], rows[:, 1, 1])
    _turn(rows, 1, 2, -pitch)
    roll = -np.arctan2(rows[:, 0, 2], rows[:, 0, 0])
    _turn(rows, 2, 0, -roll)
    hpr = np.degrees(np.stack([heading, pitch, roll], axis=1))
    return np.concatenate([mats[:, 3, :3], hpr, np.diagonal(rows, axis1=1, axis2=2)], axis=1)


def _turn(rows, i, j, angle):
    """Turns the row vectors of `rows` (n, 3, 3) in place by `angle` (radians, one per matrix,
    counterclockwise) in the plane of axes i -> j."""
    c, s = np.cos(angle)[:, None], np.sin(angle)[:, None]
    along_i, along_j = rows[:, :, i].copy(), rows[:, :, j].copy()
    rows[:, :, i] = c * along_i - s * along_j
    rows[:, :, j] = s * along_i + c * along_j


def _node_matrix(gltf_node):
    """A glTF node's local transform, glTF axes, row vectors (as panda3d-gltf reads it)."""
    if "matrix" in gltf_node:
        return LMatrix4(*gltf_node["matrix"])
    mat = LMatrix4.scale_mat(*gltf_node.get("scale", (1, 1, 1)))
    x, y, z, w = gltf_node.get("rotation", (0, 0, 0, 1))
    turn = LMatrix4()
    LQuaternion(w, x, y, z).extract_to_matrix(turn)
    return mat * turn * LMatrix4.translate_mat(*gltf_node.get("translation", (0, 0, 0)))


def _as_array(mat):
    return np.array([list(mat.get_row(i)) for i in range(4)])


class _VectorBakeConverter(_conv.Converter):
    """Bakes skeleton clips with numpy: every frame of every joint under a root at once (panda3d-gltf
    bakes one joint, channel and frame at a time in Python: ~2 s of CPU for the Knight). The tables
    equal panda3d-gltf's bake with `_lerp_factor` and `_next_time_index`, to float32 rounding, except
    where panda3d-gltf is wrong: STEP reaches its final key, CUBICSPLINE is the spec's Hermite spline."""

    _MODES = ("LINEAR", "STEP", "CUBICSPLINE")

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._rest_poses = {}  # (character, joint name): its rest pose, the same for every clip
        self._accessors = {}  # accessor index: its values (clips share key times)
        self._character_nodes = {}  # character: the glTF node it was made for

    def update(self, gltf_data):
        super().update(gltf_data)
        self._fold_morph_characters()
        self._unnest_joint_nodes()
        self._characters_at_the_top()

    def _characters_at_the_top(self):
        """Each skeleton's Character hangs from its scene's root, its transform its glTF world transform: an
        Actor keeps only the Character node of a model, so the nodes above it (CesiumMan's `Z_UP`, turned
        -90 degrees about X) were dropped and the character lay on its back."""
        for info in self.characters.values():
            character = NodePath(info.character)
            top = character.get_top()
            if character.get_parent() != top and not character.get_transform(top) == character.get_transform():
                character.wrt_reparent_to(top)

    def build_character(self, charinfo, nodeid, gltf_data, recurse=True):
        self._character_nodes[charinfo.character.this] = nodeid
        super().build_character(charinfo, nodeid, gltf_data, recurse)

    def _above_skeleton(self, char, root_nodeids, gltf_data):
        """The transform (Panda3D axes, row vectors) of the glTF nodes between the Character's node and
        the skeleton's top joints (RobotExpressive's `RobotArmature`, scaled 100 and turned; BrainStem's
        turned groups), identity when the top joints hang from the Character's node or their chains differ.
        panda3d-gltf leaves those nodes out of the joints: a top joint's rest and clips are its own
        transform, in the Character's frame, so the skeleton and its skinned meshes stood lying down or
        100 times too small while meshes on joints were drawn through those nodes."""
        top = self._character_nodes.get(char.this)
        parents = {child: nodeid for nodeid, node in enumerate(gltf_data["nodes"]) for child in node.get("children", [])}
        found = set()
        for root in root_nodeids:
            mat, node = LMatrix4.ident_mat(), parents.get(root)
            while node is not None and node != top:
                mat = mat * _node_matrix(gltf_data["nodes"][node])
                node = parents.get(node)
            if node != top:
                return LMatrix4.ident_mat()
            found.add(tuple(round(v, 9) for r in range(4) for v in mat.get_row(r)))
        if len(found) != 1:
            return LMatrix4.ident_mat()
        return self.csxform_inv * LMatrix4(*found.pop()) * self.csxform

    def _skeleton_joints(self, char, root_nodeids, affected_nodeids, skinid, gltf_data):
        """panda3d-gltf 1.3.0's `build_character_joints`, with the glTF spec's rest pose and skinning: every
        joint's default value is its node's own transform (what the spec shows when no clip plays, and what
        a clip without a channel for it holds), and every listed joint's initial net transform, which
        Panda3D skins from (vertex = net * initial net inverse * vertex), is its inverse bind matrix
        inverted, in the Character's frame. panda3d-gltf built the defaults from the inverse binds, so a
        file whose binds differ from its nodes (BrainStem's by 5% of its height, RobotExpressive's hands)
        stood in its bind pose, not the spec's. Panda3D takes a joint's initial net transform as its
        default value times its parent's net transform at construction: each listed joint is made while
        its parent (or, for a top joint, the bundle's root transform) is held at the net transform that
        gives the bind. A node under the skeleton that the skin does not list rests at its own transform
        too (RobotExpressive's `FootL_end`, `Torso` holding a mesh)."""
        gltf_skin = gltf_data["skins"][skinid]
        nodes, listed = gltf_data["nodes"], gltf_skin["joints"]
        bundle = char.get_bundle(0)
        skeleton = _conv.PartGroup(bundle, "<skeleton>")
        jvtmap = {}
        binds = {}
        if "inverseBindMatrices" in gltf_skin:
            for i, matdata in enumerate(self.get_buffer_from_accessor(gltf_data, gltf_skin["inverseBindMatrices"])):
                mat = self.load_matrix(matdata)
                mat.invert_in_place()
                binds[i] = self.csxform_inv * mat * self.csxform
        held = {}  # joint held while its children are made: the node its value follows

        def hold_parent_at(parent, net):
            """Makes `parent`'s net transform (or the root transform, above a top joint) `net` for now."""
            if not isinstance(parent, CharacterJoint):
                bundle.set_root_xform(net)
                return
            above, parent_net = LMatrix4(parent.get_transform()), LMatrix4()
            parent.get_net_transform(parent_net)
            above.invert_in_place()
            above = above * parent_net  # the grandparent's net transform
            above.invert_in_place()
            if parent not in held:
                held[parent] = PandaNode("bind-holder")
                parent.apply_control(held[parent])
            held[parent].set_transform(TransformState.make_mat(net * above))
            bundle.force_update()

        def create_joint(parent, nodeid):
            node = nodes[nodeid]
            if "mesh" in node:
                self.joint_parents[nodeid] = parent
                return
            rest = self.csxform_inv * _node_matrix(node) * self.csxform
            joint_index = listed.index(nodeid) if nodeid in listed else None
            if joint_index is not None:
                self._joint_nodes.add(nodeid)
                unrest = LMatrix4(rest)
                if unrest.invert_in_place():
                    hold_parent_at(parent, unrest * binds.get(joint_index, LMatrix4.ident_mat()))
            joint = _conv.CharacterJoint(char, bundle, parent, node.get("name", "bone" + str(nodeid)), rest)
            if joint_index is not None:
                jvtmap[joint_index] = _conv.JointVertexTransform(joint)
            affected_nodeids.add(nodeid)
            for child in node.get("children", []):
                create_joint(joint, child)
            if held.pop(joint, None) is not None:
                joint.clear_forced_channel()

        for root_nodeid in root_nodeids:
            create_joint(skeleton, root_nodeid)
        for joint in held:
            joint.clear_forced_channel()
        bundle.set_root_xform(LMatrix4.ident_mat())
        bundle.force_update()
        return jvtmap

    def _unnest_joint_nodes(self):
        """Nodes that show a joint's net transform (a mesh on a joint: `FootL_1-parent`) sit directly under
        their Character: the net transform is the joint's place in the Character's frame, so under another
        node (the armature node, a node for a joint with a mesh) that node's transform was drawn twice."""
        for info in self.characters.values():
            character = NodePath(info.character)
            stack = [info.character.get_bundle(0)]
            while stack:
                group = stack.pop()
                if isinstance(group, CharacterJoint):
                    for shown in group.get_net_transforms():
                        if shown.get_parent() != character:
                            shown.reparent_to(character)
                stack.extend(group.get_child(i) for i in range(group.get_num_children()))

    def _fold_morph_characters(self):
        """A mesh with morph targets and no skin inside a skeleton's Character (RobotExpressive's face,
        rigid on the head joint) gets a Character of its own from panda3d-gltf, with a copy of every clip
        driving its sliders alone: the Actor then lists each clip twice more (`Idle.1`...), and readers
        of a model's clips find bundles without joints under the clips' names. The skeleton's Character
        already has that mesh's sliders and their channels in its clips (panda3d-gltf makes them for
        every mesh under its root): the mesh is bound to those and its own Character removed."""
        outers = {info.character.this: info for info in self.characters.values()}
        geom_meshes = {geom_node.this: meshid for meshid, geom_node in self.meshes.items()}
        for scene in self.scenes.values():
            for inner in scene.find_all_matches("**/+Character"):
                outer = self._enclosing(inner, outers)
                meshes = [child for child in inner.get_children() if child.node().this in geom_meshes]
                if outer is None or not meshes or not all(
                        self._has_sliders(outer, child.node(), geom_meshes[child.node().this]) for child in meshes):
                    continue
                for child in meshes:
                    self.combine_mesh_morphs(child.node(), geom_meshes[child.node().this], outer)
                    child.reparent_to(inner.get_parent())
                inner.remove_node()

    @staticmethod
    def _enclosing(inner, outers):
        """The CharInfo of the skeleton Character above `inner`, or None."""
        above = inner.get_parent()
        while not above.is_empty():
            if above.node().this in outers:
                return outers[above.node().this]
            above = above.get_parent()
        return None

    @staticmethod
    def _has_sliders(charinfo, geom_node, meshid):
        """True when `charinfo` has a slider for every morph target of the mesh's geoms."""
        names = {name for mesh, name in charinfo.cvsmap if mesh == meshid}
        for geom in geom_node.get_geoms():
            vformat = geom.get_vertex_data().get_format()
            if any(vformat.get_morph_delta(i).get_basename() not in names for i in range(vformat.get_num_morphs())):
                return False
        return True

    def load_skin(self, skinid, gltf_skin, gltf_data):
        """panda3d-gltf's skin, or, when an earlier skin already has the same skeleton root (the common
        ancestor of its joints and meshes), that earlier skin for this one's meshes. panda3d-gltf keeps
        one skin per root (`skeletons`), so it builds a Character for the last skin only and fails
        (KeyError: the first skin) on a mesh of another: RobotExpressive's 4 skins, BrainStem's 59, one
        per mesh, all alike. A skin that binds differently than the one kept cannot share its joints
        and is refused. The meshes are re-pointed here, before panda3d-gltf reads their `skin`."""
        kept = dict(self.skeletons)
        super().load_skin(skinid, gltf_skin, gltf_data)
        root = next(node for node, skin in self.skeletons.items() if skin == skinid)
        if root not in kept:
            return
        first = kept[root]
        self.skeletons[root] = first
        self._require_same_binds(first, skinid, root, gltf_data)
        for node in gltf_data["nodes"]:
            if node.get("skin") == skinid:
                node["skin"] = first

    def _require_same_binds(self, first, other, root, gltf_data):
        """ValueError unless skins `first` and `other` bind the same joints, in order, with the same inverse
        bind matrices (to float32 rounding; identity where a skin has none, as the spec says)."""
        skins, name = gltf_data["skins"], gltf_data["nodes"][root].get("name", f"node{root}")
        where = f"skins[{other}] and skins[{first}] share skeleton root node {root} ({name!r})"
        if skins[other]["joints"] != skins[first]["joints"]:
            raise ValueError(f"{where} but list different joints ({len(skins[other]['joints'])} and "
                             f"{len(skins[first]['joints'])}); expected one joint list per skeleton")
        binds = [self._inverse_binds(skins[i], gltf_data) for i in (first, other)]
        size = 1.0 + float(np.abs(binds[0]).max())
        worst = float(np.abs(binds[0] - binds[1]).max())
        if worst > 1e-5 * size:
            joint = int(np.abs(binds[0] - binds[1]).reshape(len(binds[0]), -1).max(axis=1).argmax())
            raise ValueError(f"{where} but bind joint {joint} differently (inverse bind matrices {worst:.6g} apart); "
                             "expected the same inverse bind matrices for one skeleton")

    def _inverse_binds(self, gltf_skin, gltf_data):
        """A skin's inverse bind matrices (n, 16), identity where the skin gives none."""
        if "inverseBindMatrices" not in gltf_skin:
            return np.tile(np.eye(4).ravel(), (len(gltf_skin["joints"]), 1))
        return self._accessor_array(gltf_data, gltf_skin["inverseBindMatrices"])[:len(gltf_skin["joints"])].astype(np.float64)

    def build_character_joints(self, char, root_nodeids, affected_nodeids, skinid, gltf_data):
        """The joints (`_skeleton_joints`), in the frame of the top joints' parent: the glTF nodes between the
        Character's node and the top joints become the bundle's root transform (`_above_skeleton`)."""
        joints = self._skeleton_joints(char, root_nodeids, affected_nodeids, skinid, gltf_data)
        above = self._above_skeleton(char, root_nodeids, gltf_data)
        if not above.almost_equal(LMatrix4.ident_mat(), 1e-9):
            char.get_bundle(0).set_root_xform(above)
            char.get_bundle(0).force_update()
        return joints

    def combine_mesh_skin(self, geom_node, charinfo):
        """panda3d-gltf's skinning of a mesh, drawn as the glTF spec says: in the Character's frame (the joints'
        initial net transforms are the inverse binds inverted there), the skinned mesh node's own transform
        ignored. Under a mesh node moved relative to the Character a node undoing that move is put between
        them. panda3d-gltf's own part runs with the mesh detached (nothing above it to undo)."""
        parent = geom_node.get_parent(0)
        moved = NodePath(parent).get_transform(charinfo.nodepath)
        parent.remove_child(geom_node)
        loose = PandaNode("loose")
        loose.add_child(geom_node)
        try:
            super().combine_mesh_skin(geom_node, charinfo)
        finally:
            loose.remove_child(geom_node)
        if moved.is_identity():
            parent.add_child(geom_node)
        else:
            undo = PandaNode(f"{geom_node.name}-unmoved")
            undo.set_transform(moved.get_inverse())
            parent.add_child(undo)
            undo.add_child(geom_node)

    def build_animation_skeleton(self, character, parent, boneid, num_frames, gltf_anim, gltf_data):
        if get_default_coordinate_system() != CS_zup_right:  # `_decomposed` reads HPR the Z-up way
            super().build_animation_skeleton(character, parent, boneid, num_frames, gltf_anim, gltf_data)
            return
        joints = list(self._joint_tree(gltf_data, boneid))
        times = np.arange(num_frames) / self.settings.animation_fps
        samplers = {}
        for chan in gltf_anim["channels"]:  # a joint's first channel for a path is the one baked
            samplers.setdefault((chan["target"]["node"], chan["target"]["path"]), gltf_anim["samplers"][chan["sampler"]])
        searches = {}
        ends = {"scale": [], "rotation": [], "translation": []}
        for nodeid, _, name in joints:
            for path, rest in zip(ends, self._rest_pose(character, name)):
                sampler = samplers.get((nodeid, path))
                if sampler is None:
                    held = np.tile(rest, (num_frames, 1))
                    ends[path].append((held, held, np.zeros(num_frames)))
                else:
                    ends[path].append(self._sampler_ends(gltf_data, sampler, f"{name}:{path}", times, searches))
        scale, rotation, translation = (
            blend(*(np.concatenate(part, dtype=np.float64) for part in zip(*ends[path])))
            for path, blend in (("scale", _lerp), ("rotation", _slerp), ("translation", _lerp)))
        mats = _as_array(self.csxform_inv) @ _joint_matrices(scale, rotation, translation) @ _as_array(self.csxform)
        tables = np.ascontiguousarray(_decomposed(mats).reshape(len(joints), num_frames, 9).transpose(0, 2, 1),
                                      dtype=np.float32)
        spread = tables.max(axis=2).astype(np.float64) - tables.min(axis=2)
        still = np.abs(spread) < 0.00001  # a still channel keeps one value, as panda3d-gltf's
        groups = []
        for (_, above, name), joint_tables, joint_still in zip(joints, tables, still.tolist()):
            group = AnimChannelMatrixXfmTable(parent if above is None else groups[above], name)
            for letter, values, one in zip(b"xyzhprijk", joint_tables, joint_still):
                group.set_table(bytes((letter,)), CPTA_stdfloat(PTA_stdfloat(values[:1] if one else values)))
            groups.append(group)

    @staticmethod
    def _joint_tree(gltf_data, rootid):
        """(node id, index of its parent in this listing or None, name) depth first, children in order,
        mesh nodes left out: the order panda3d-gltf makes the joints' tables in."""
        stack = [(rootid, None)]
        index = 0
        while stack:
            nodeid, above = stack.pop()
            node = gltf_data["nodes"][nodeid]
            yield nodeid, above, node.get("name", "bone" + str(nodeid))
            stack.extend((child, index) for child in reversed(node.get("children", []))
                         if "mesh" not in gltf_data["nodes"][child])
            index += 1

    def _rest_pose(self, character, bone_name):
        """The joint's (scale, quaternion w x y z, translation) in glTF axes, which frames of a clip
        without that channel hold: decomposed and turned into a quaternion as panda3d-gltf does."""
        key = (character.this, bone_name)
        if key not in self._rest_poses:
            self._rest_poses[key] = self._joint_rest_pose(character, bone_name)
        return self._rest_poses[key]

    def _joint_rest_pose(self, character, bone_name):
        translation, hpr, scale = LVector3(), LVector3(), LVector3()
        joint_mat = character.find_joint(bone_name).get_transform()
        decompose_matrix(self.csxform * joint_mat * self.csxform_inv, scale, hpr, translation, CS_yup_right)
        rotation = LQuaternion()
        rotation.set_hpr(hpr, CS_yup_right)
        return np.array(scale), np.array(rotation), np.array(translation)

    def _sampler_ends(self, gltf_data, sampler, where, times, searches):
        """(value before, value after, factor) per frame of one sampler; key searches shared per accessor."""
        mode = sampler.get("interpolation", "LINEAR")
        if mode not in self._MODES:
            raise ValueError(f"{where}: interpolation {mode!r}; expected LINEAR, STEP or CUBICSPLINE")
        if sampler["input"] not in searches:
            keys = self._accessor_array(gltf_data, sampler["input"])[:, 0].astype(np.float64)
            searches[sampler["input"]] = _KeySearch(times, keys)
        values = self._accessor_array(gltf_data, sampler["output"])
        if values.shape[1] == 4:
            values = values[:, [3, 0, 1, 2]]  # a rotation: glTF's x y z w as Panda3D's w x y z
        return searches[sampler["input"]].ends(values, mode)

    def _accessor_array(self, gltf_data, accid):
        """An accessor's values as rows of its own type, read as panda3d-gltf reads them (unnormalised), once."""
        if accid not in self._accessors:
            accessor = gltf_data["accessors"][accid]
            width = COMPONENT_NUM_MAP[accessor["type"]]
            dtype = np.dtype("<" + COMPONENT_FORMT_STR_MAP[accessor["componentType"]])
            raw = self.get_buffer_from_accessor(gltf_data, accid, unpack=False)
            self._accessors[accid] = np.frombuffer(raw, dtype, accessor["count"] * width).reshape(-1, width)
        return self._accessors[accid]


class _FinalKeyConverter(_VectorBakeConverter):
    """Bakes one more frame for each clip whose frames stop short of its final key.

    The frame count is decided where the bundle is made (`AnimBundle`, patched below);
    the per-joint baking must then fill that many frames.
    """

    def update(self, gltf_data):
        self._gltf_data = gltf_data
        super().update(gltf_data)

    def _clip_end(self, name):
        """The final key time of the clip called `name` (buffers are loaded by the time bundles are made)."""
        data = self._gltf_data
        return max((float(self._accessor_array(data, sampler["input"]).max())
                    for i, anim in enumerate(data.get("animations", [])) if anim.get("name", f"anim{i}") == name
                    for sampler in anim["samplers"]), default=0.0)

    def _bundle(self, name, fps, num_frames):
        short = (num_frames - 1) / fps < self._clip_end(name) - 1e-3 / fps
        self._baked_frames = num_frames + (1 if short else 0)
        return _ORIGINAL_ANIM_BUNDLE(name, fps, self._baked_frames)

    def build_animation_skeleton(self, character, parent, boneid, num_frames, gltf_anim, gltf_data):
        super().build_animation_skeleton(character, parent, boneid, self._baked_frames, gltf_anim, gltf_data)

    def build_animation_morph(self, parent, nodeid, num_frames, gltf_anim, gltf_data, recurse=True):
        super().build_animation_morph(parent, nodeid, self._baked_frames, gltf_anim, gltf_data, recurse)


_ORIGINAL_ANIM_BUNDLE = _conv.AnimBundle


def convert(path, settings):
    """Convert the glTF file at `path` into a ModelRoot node, with the fixes applied."""
    from gltf.parseutils import parse_gltf_file

    patches = {}
    converter_class = _VectorBakeConverter
    if lerp_bug_present():
        patches["get_lerp_factor"] = _lerp_factor
    if final_key_bug_present():
        # Sampling at the final key time needs a key search that stops at the last key.
        patches["get_next_time_index"] = _next_time_index
        converter_class = _FinalKeyConverter
    converter = converter_class(path, settings=settings)
    if converter_class is _FinalKeyConverter:
        patches["AnimBundle"] = converter._bundle
    saved = {name: getattr(_conv, name) for name in patches}
    try:
        for name, value in patches.items():
            setattr(_conv, name, value)
        converter.update(parse_gltf_file(path))
    finally:
        for name, value in saved.items():
            setattr(_conv, name, value)
    return converter.active_scene.node()
