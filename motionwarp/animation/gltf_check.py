"""A glTF file's structure and sizes checked BEFORE panda3d-gltf or Bullet sees it (docs/design.md 3.3).

panda3d-gltf trusts what a file says: a GLB cut inside its binary chunk crashes it natively, a
child index that loops hangs it, a buffer whose URI names a FIFO or a device blocks or reads
without end, and an index past its vertices reaches Bullet's assertions. `check_gltf` reads
the file (bounded), its JSON and the binary data it points at, and raises a LoadError naming
the file and what is wrong; both the plugin's loader and the demo's scene models call it.
"""
import base64
import binascii
import json
import os
import struct
import urllib.parse

import numpy as np

from ..base.errors import LoadError, os_reason, shown, shown_text
from ..base.filekind import not_regular

#: Largest glTF/GLB file, and largest buffer (a `.bin` or an embedded one), read.
MAX_FILE_BYTES = 256 * 2**20
#: Most elements in one accessor (vertices, indices, keys).
MAX_ACCESSOR_COUNT = 4_000_000
#: Most triangles in one file (all primitives together): what the scene probe builds into Bullet.
MAX_TRIANGLES = 2_000_000
#: Most nodes, and most keys of one animation sampler.
MAX_NODES = 100_000
#: Longest clip: panda3d-gltf bakes every frame of every joint (an hour-long clip took 95 s).
MAX_CLIP_SECONDS = 120.0
_GLB_MAGIC, _JSON_CHUNK, _BIN_CHUNK = b"glTF", 0x4E4F534A, 0x004E4942
_DTYPES = {5120: np.dtype("<i1"), 5121: np.dtype("<u1"), 5122: np.dtype("<i2"), 5123: np.dtype("<u2"),
           5125: np.dtype("<u4"), 5126: np.dtype("<f4")}
_INDEX_TYPES = (5121, 5123, 5125)
_TYPE_SIZES = {"SCALAR": 1, "VEC2": 2, "VEC3": 3, "VEC4": 4, "MAT2": 4, "MAT3": 9, "MAT4": 16}
_MODES = range(7)
_TRIANGLE_MODES = {4: lambda n: n // 3, 5: lambda n: max(n - 2, 0), 6: lambda n: max(n - 2, 0)}
_CHANNEL_PATHS = ("translation", "rotation", "scale", "weights")


class GltfProblem(LoadError):
    """A glTF file check_gltf refused: `path` and `problem` (what is wrong) apart, for a caller that
    words its own message (a scene names its field)."""

    def __init__(self, path, problem):
        self.path, self.problem = path, problem
        super().__init__(f"{shown_text(path)}: not a readable glTF file ({problem})")


def is_gltf(path):
    """True for a file named .gltf/.glb or starting with the GLB magic: what check_gltf applies to."""
    if os.path.splitext(os.fspath(path))[1].lower() in (".gltf", ".glb"):
        return True
    try:
        with open(path, "rb") as stream:
            return stream.read(4) == _GLB_MAGIC
    except OSError:
        return False


def check_gltf(path):
    """Raise a LoadError (a GltfProblem: `FILE: not a readable glTF file (what is wrong)`) unless the glTF or GLB file at `path` is whole,
    consistent and within the documented limits."""
    _GltfCheck(os.path.abspath(os.fspath(path))).run()


def missing_character(path):
    """Why the file at `path` (checked by check_gltf) converts to no Character: a skin that no clip moves
    (and no mesh is skinned to, or panda3d-gltf would make a Character) is a model without animations,
    not one without a skeleton."""
    check = _GltfCheck(os.path.abspath(os.fspath(path)))
    check.doc = check._parse(check._read_file()[0])
    skins = check.doc.get("skins") or []
    if skins and not check.doc.get("animations"):
        joints = len(skins[0].get("joints", []))
        return (f"the model has no animations (its skin {shown(skins[0].get('name', 'skins[0]'))} has {joints} "
                "joints, but no clip moves them): export it with its clips")
    return "the model has no skeleton (no skinned character to animate)"


def model_files(path):
    """{field: path} of the local files the glTF file at `path` reads besides itself (a `.gltf`'s
    `.bin` buffers, its textures): inputs a tool must never write onto. Empty when the file cannot be
    read as glTF (the loader then says why)."""
    check = _GltfCheck(os.path.abspath(os.fspath(path)))
    try:
        check.doc = check._parse(check._read_file()[0])
        found = {}
        for key in ("buffers", "images"):
            for i, item in enumerate(check.items(key)):
                uri = item.get("uri")
                if isinstance(uri, str) and not uri.startswith("data:"):
                    found[f"{key}[{i}].uri"] = check._local_file(uri, f"{key}[{i}].uri")
        return found
    except GltfProblem:
        return {}


def clip_ends(path):
    """{clip name: the time of its last key} of the glTF file at `path` (checked on the way): the
    bake's frames are 1/fps apart, so a clip whose end is not on a frame ends a shorter step after
    the frame before its last (docs/design.md 3.1). Names as panda3d-gltf gives them (`anim0`...)."""
    check = _GltfCheck(os.path.abspath(os.fspath(path)))
    check.run()
    return {animation.get("name", f"anim{i}"): max(check._key_ends[sampler["input"]] for sampler in animation["samplers"])
            for i, animation in enumerate(check.items("animations"))}


class _GltfCheck:
    """One file's check: `fail` names the file; the JSON's parts are checked in dependency order."""

    def __init__(self, path):
        self.path = path
        self.folder = os.path.dirname(path)
        self.buffers = []   # bytes of each buffer, as long as its byteLength says
        self._key_ends = {}   # accessor of key times checked -> its last time

    def fail(self, what):
        raise GltfProblem(self.path, what)

    def run(self):
        data, binary = self._read_file()
        self.doc = self._parse(data)
        self.sizes = {key: len(value) for key, value in self.doc.items() if isinstance(value, list)}
        self._check_buffers(binary)
        self._check_views()
        self._check_accessors()
        self._check_nodes()
        self._check_meshes()
        self._check_skins()
        self._check_animations()
        self._check_images()

    # -- the file -------------------------------------------------------------------------
    def _read_file(self):
        """(JSON bytes, the GLB's binary chunk or None)."""
        content = self._read_bounded(self.path)
        if content[:4] != _GLB_MAGIC:
            return content, None
        if len(content) < 20:
            self.fail(f"a GLB needs a 12-byte header and a chunk header, the file has {len(content)} bytes")
        _, version, length = struct.unpack_from("<4sII", content)
        if version != 2:
            self.fail(f"expected GLB version 2, the header says {version}")
        if length != len(content):
            self.fail(f"the GLB header says {length} bytes, the file has {len(content)} (cut short or padded)")
        chunks, offset = [], 12
        while offset < length:
            if offset + 8 > length:
                self.fail(f"a GLB chunk header at byte {offset} runs past the end of the file")
            size, kind = struct.unpack_from("<II", content, offset)
            if offset + 8 + size > length:
                self.fail(f"a GLB chunk at byte {offset} says {size} bytes, only {length - offset - 8} follow "
                          "(the file is cut short)")
            chunks.append((kind, content[offset + 8:offset + 8 + size]))
            offset += 8 + size
        if not chunks or chunks[0][0] != _JSON_CHUNK:
            self.fail("a GLB's first chunk must be its JSON")
        binary = chunks[1][1] if len(chunks) > 1 and chunks[1][0] == _BIN_CHUNK else None
        return chunks[0][1], binary

    def _read_bounded(self, file, label=""):
        """The bytes of `file`: the model itself, or (`label`: 'buffers[0].uri (x.bin) ') what it names."""
        kind = not_regular(file)
        if kind:
            self.fail(f"{label or 'this '}{kind}; expected a regular file")
        size = os.path.getsize(file)
        if size > MAX_FILE_BYTES:
            self.fail(f"{label or 'the file '}has {size / 2**20:.0f} MB, above the {MAX_FILE_BYTES // 2**20} MB limit")
        try:
            with open(file, "rb") as stream:
                return stream.read(MAX_FILE_BYTES + 1)
        except OSError as exc:
            self.fail(f"{label}cannot be read ({os_reason(exc, self.path)})")

    def _parse(self, data):
        try:
            doc = json.loads(data.decode("utf-8"))
        except (UnicodeDecodeError, ValueError, RecursionError) as exc:
            self.fail(f"its JSON does not parse ({shown_text(exc)})")
        if not isinstance(doc, dict) or not isinstance(doc.get("asset"), dict):
            self.fail("expected a JSON object with an \"asset\"")
        version = doc["asset"].get("version")
        if not (isinstance(version, str) and version.startswith("2.")):
            self.fail(f"expected glTF 2.x, asset.version is {shown(version)}")
        return doc

    # -- JSON helpers ---------------------------------------------------------------------
    def items(self, key):
        value = self.doc.get(key, [])
        if not isinstance(value, list) or not all(isinstance(item, dict) for item in value):
            self.fail(f"{key}: expected a list of objects")
        return value

    def count(self, value, field, low=0, high=MAX_FILE_BYTES):
        if type(value) is not int or not low <= value <= high:   # bool is not int here
            self.fail(f"{field}: expected a whole number from {low} to {high}, got {shown(value)}")
        return value

    def index(self, value, field, key):
        """`value` checked as an index into the top-level list `key` (None when absent)."""
        size = self.sizes.get(key, 0)
        if value is None or (type(value) is int and 0 <= value < size):
            return value
        if not size:
            self.fail(f"{field}: refers to {key}[{shown(value)}], and the file has no {key}")
        return self.count(value, field, 0, size - 1)

    # -- buffers, views, accessors --------------------------------------------------------
    def _check_buffers(self, binary):
        for i, buffer in enumerate(self.items("buffers")):
            length = self.count(buffer.get("byteLength"), f"buffers[{i}].byteLength", 1)
            uri = buffer.get("uri")
            if uri is None:
                if i != 0 or binary is None:
                    self.fail(f"buffers[{i}] has no uri and is not the GLB's binary chunk")
                data = binary
            elif not isinstance(uri, str):
                self.fail(f"buffers[{i}].uri: expected a string, got {shown(uri)}")
            else:
                data = self._uri_bytes(uri, f"buffers[{i}].uri")
            if len(data) < length:
                self.fail(f"buffers[{i}] says {length} bytes, its data has {len(data)} (cut short)")
            self.buffers.append(data[:length])

    def _uri_bytes(self, uri, field):
        if uri.startswith("data:"):
            head, _, payload = uri.partition(",")
            if not head.endswith(";base64"):
                self.fail(f"{field}: expected a base64 data URI")
            try:
                return base64.b64decode(payload, validate=True)
            except (binascii.Error, ValueError):
                self.fail(f"{field}: the data URI is not valid base64")
        return self._read_bounded(self._local_file(uri, field), f"{field} ({shown_text(uri)}) ")

    def _local_file(self, uri, field):
        """The file a relative URI names (percent-escapes decoded); another scheme is refused."""
        scheme = urllib.parse.urlsplit(uri).scheme
        if scheme and len(scheme) > 1:   # one letter is a Windows drive
            self.fail(f"{field}: expected a file next to the model or a data URI, got {shown(uri)}")
        return os.path.join(self.folder, urllib.parse.unquote(uri))

    def _check_views(self):
        for i, view in enumerate(self.items("bufferViews")):
            field = f"bufferViews[{i}]"
            buffer = self.index(view.get("buffer"), f"{field}.buffer", "buffers")
            if buffer is None:
                self.fail(f"{field}.buffer: missing")
            offset = self.count(view.get("byteOffset", 0), f"{field}.byteOffset")
            length = self.count(view.get("byteLength"), f"{field}.byteLength", 1)
            if offset + length > len(self.buffers[buffer]):
                self.fail(f"{field}: bytes {offset} to {offset + length} lie outside buffers[{buffer}] "
                          f"({len(self.buffers[buffer])} bytes)")
            if "byteStride" in view:
                self.count(view["byteStride"], f"{field}.byteStride", 4, 252)

    def _check_accessors(self):
        views = self.items("bufferViews")
        for i, accessor in enumerate(self.items("accessors")):
            field = f"accessors[{i}]"
            component = accessor.get("componentType")
            kind = accessor.get("type")
            if component not in _DTYPES or kind not in _TYPE_SIZES:
                self.fail(f"{field}: expected a glTF componentType and type, got {shown(component)}, {shown(kind)}")
            count = self.count(accessor.get("count"), f"{field}.count", 1, MAX_ACCESSOR_COUNT)
            if "sparse" in accessor:
                self.fail(f"{field}: sparse accessors are not supported")
            view = self.index(accessor.get("bufferView"), f"{field}.bufferView", "bufferViews")
            if view is None:
                continue   # all zeros
            element = _DTYPES[component].itemsize * _TYPE_SIZES[kind]
            stride = views[view].get("byteStride", element)
            offset = self.count(accessor.get("byteOffset", 0), f"{field}.byteOffset")
            end = offset + (count - 1) * stride + element
            if end > views[view]["byteLength"]:
                self.fail(f"{field}: {count} elements from byte {offset} need {end} bytes, "
                          f"bufferViews[{view}] has {views[view]['byteLength']}")

    def values(self, index):
        """Accessor `index`'s data as a numpy array (count x components); zeros without a bufferView."""
        accessor = self.doc["accessors"][index]
        size, count, dtype = _TYPE_SIZES[accessor["type"]], accessor["count"], _DTYPES[accessor["componentType"]]
        if accessor.get("bufferView") is None:
            return np.zeros((count, size), dtype)
        view = self.doc["bufferViews"][accessor["bufferView"]]
        start = view.get("byteOffset", 0) + accessor.get("byteOffset", 0)
        stride = view.get("byteStride", dtype.itemsize * size)
        data = self.buffers[view["buffer"]]
        return np.ndarray((count, size), dtype, data, start, (stride, dtype.itemsize))

    # -- nodes and scenes -----------------------------------------------------------------
    def _check_nodes(self):
        nodes = self.items("nodes")
        if len(nodes) > MAX_NODES:
            self.fail(f"nodes: {len(nodes)} nodes, above the {MAX_NODES} limit")
        parent = {}
        for i, node in enumerate(nodes):
            children = node.get("children", [])
            if not isinstance(children, list):
                self.fail(f"nodes[{i}].children: expected a list of node indices")
            for child in children:
                self.index(child, f"nodes[{i}].children", "nodes")
                if child in parent or child == i:
                    self.fail(f"nodes[{i}].children: node {child} already has a parent (the node graph must be a tree)")
                parent[child] = i
            for key, top in (("mesh", "meshes"), ("skin", "skins"), ("camera", "cameras")):
                self.index(node.get(key), f"nodes[{i}].{key}", top)
        # With one parent each, a node no root reaches sits on (or under) a loop of children.
        reached, stack = set(), [i for i in range(len(nodes)) if i not in parent]
        while stack:
            node = stack.pop()
            reached.add(node)
            stack.extend(nodes[node].get("children", []))
        if len(reached) < len(nodes):
            looped = min(set(range(len(nodes))) - reached)
            self.fail(f"nodes: node {looped} is its own ancestor (the node graph must be a tree)")
        for i, scene in enumerate(self.items("scenes")):
            for node in scene.get("nodes", []):
                self.index(node, f"scenes[{i}].nodes", "nodes")
        self.index(self.doc.get("scene"), "scene", "scenes")

    def _check_meshes(self):
        triangles = 0
        for i, mesh in enumerate(self.items("meshes")):
            primitives = mesh.get("primitives")
            if not isinstance(primitives, list) or not primitives:
                self.fail(f"meshes[{i}].primitives: expected a non-empty list")
            for j, primitive in enumerate(primitives):
                triangles += self._check_primitive(primitive, f"meshes[{i}].primitives[{j}]")
        if triangles > MAX_TRIANGLES:
            self.fail(f"meshes: {triangles} triangles, above the {MAX_TRIANGLES} limit")

    def _check_primitive(self, primitive, field):
        """Check one primitive's attributes and indices; its triangle count."""
        attributes = primitive.get("attributes")
        if not isinstance(attributes, dict) or "POSITION" not in attributes:
            self.fail(f"{field}.attributes: expected an object with POSITION")
        counts = {self.doc["accessors"][self.index(a, f"{field}.attributes.{name}", "accessors")]["count"]
                  for name, a in attributes.items()}
        if len(counts) != 1:
            self.fail(f"{field}.attributes: expected every attribute to have as many elements, got {sorted(counts)}")
        vertices = counts.pop()
        mode = primitive.get("mode", 4)
        if mode not in _MODES:
            self.fail(f"{field}.mode: expected 0 to 6, got {shown(mode)}")
        index = self.index(primitive.get("indices"), f"{field}.indices", "accessors")
        if index is None:
            return _TRIANGLE_MODES.get(mode, lambda n: 0)(vertices)
        accessor = self.doc["accessors"][index]
        if accessor["componentType"] not in _INDEX_TYPES or accessor["type"] != "SCALAR":
            self.fail(f"{field}.indices: expected unsigned SCALAR indices")
        indices = self.values(index)
        if len(indices) and int(indices.max()) >= vertices:
            self.fail(f"{field}.indices: index {int(indices.max())} is past the {vertices} vertices")
        return _TRIANGLE_MODES.get(mode, lambda n: 0)(len(indices))

    def _check_skins(self):
        for i, skin in enumerate(self.items("skins")):
            joints = skin.get("joints")
            if not isinstance(joints, list) or not joints:
                self.fail(f"skins[{i}].joints: expected a non-empty list of node indices")
            for joint in joints:
                self.index(joint, f"skins[{i}].joints", "nodes")
            matrices = self.index(skin.get("inverseBindMatrices"), f"skins[{i}].inverseBindMatrices", "accessors")
            if matrices is not None and self.doc["accessors"][matrices]["count"] < len(joints):
                self.fail(f"skins[{i}].inverseBindMatrices: fewer matrices than its {len(joints)} joints")
            self.index(skin.get("skeleton"), f"skins[{i}].skeleton", "nodes")

    # -- animations -----------------------------------------------------------------------
    def _check_animations(self):
        for i, animation in enumerate(self.items("animations")):
            name = f"animations[{i}] ({shown(animation.get('name', ''))})"
            samplers, channels = animation.get("samplers"), animation.get("channels")
            if not isinstance(samplers, list) or not isinstance(channels, list) or not samplers or not channels:
                self.fail(f"{name}: expected non-empty lists of samplers and channels")
            for j, channel in enumerate(channels):
                target = channel.get("target") if isinstance(channel, dict) else None
                if not isinstance(target, dict) or target.get("path") not in _CHANNEL_PATHS:
                    self.fail(f"{name}.channels[{j}].target: expected a node and one of {', '.join(_CHANNEL_PATHS)}")
                self.count(channel.get("sampler"), f"{name}.channels[{j}].sampler", 0, len(samplers) - 1)
                self.index(target.get("node"), f"{name}.channels[{j}].target.node", "nodes")
                self._check_key_values(samplers[channel["sampler"]], f"{name}.channels[{j}]", target)
            end = max(self._sampler_end(sampler, f"{name}.samplers[{j}]") for j, sampler in enumerate(samplers))
            if end > MAX_CLIP_SECONDS:
                self.fail(f"{name}: lasts {end:.0f} s, above the {MAX_CLIP_SECONDS:g} s limit")

    def _check_key_values(self, sampler, field, target):
        """A channel's key values are finite: a NaN would bake into every joint below it."""
        if not isinstance(sampler, dict):
            return   # _sampler_end says what is wrong with it
        output = self.index(sampler.get("output"), f"{field}.sampler's output", "accessors")
        if output is None or self.doc["accessors"][output]["componentType"] != 5126:
            return   # integer keys (normalised rotations, weights) are always finite
        values = self.values(output)
        if not np.isfinite(values).all():
            node = self.doc["nodes"][target["node"]]
            joint = shown(node.get("name", f"nodes[{target['node']}]")) if isinstance(node, dict) else target["node"]
            bad = int(np.count_nonzero(~np.isfinite(values).all(axis=1)))
            self.fail(f"{field} ({joint} {target['path']}): {bad} of its {len(values)} key values are not finite "
                      f"(NaN or infinity); expected numbers")

    def _sampler_end(self, sampler, field):
        """The time of the sampler's last key, its keys and values checked."""
        if not isinstance(sampler, dict):
            self.fail(f"{field}: expected an object")
        key_input = self.index(sampler.get("input"), f"{field}.input", "accessors")
        key_output = self.index(sampler.get("output"), f"{field}.output", "accessors")
        if key_input is None or key_output is None:
            self.fail(f"{field}: expected an input and an output accessor")
        if key_input not in self._key_ends:   # clips share one accessor of times among their samplers
            accessor = self.doc["accessors"][key_input]
            if accessor["componentType"] != 5126 or accessor["type"] != "SCALAR":
                self.fail(f"{field}.input: expected float SCALAR key times")
            times = self.values(key_input)[:, 0].astype(np.float64)
            if not (np.isfinite(times).all() and times[0] >= 0 and (times[1:] > times[:-1]).all()):
                self.fail(f"{field}.input: expected key times from 0 up, finite and increasing")
            self._key_ends[key_input] = float(times[-1])
        keys = self.doc["accessors"][key_input]["count"]
        per_key = 3 if sampler.get("interpolation") == "CUBICSPLINE" else 1
        outputs = self.doc["accessors"][key_output]["count"]
        if outputs < per_key * keys or outputs % (per_key * keys):
            self.fail(f"{field}.output: {outputs} values for {keys} keys")
        return self._key_ends[key_input]

    def _check_images(self):
        for i, image in enumerate(self.items("images")):
            uri = image.get("uri")
            if isinstance(uri, str) and not uri.startswith("data:"):
                kind = not_regular(self._local_file(uri, f"images[{i}].uri"))
                if kind:
                    self.fail(f"images[{i}].uri ({shown_text(uri)}) {kind}; expected a regular file")
            else:
                self.index(image.get("bufferView"), f"images[{i}].bufferView", "bufferViews")
        for i, texture in enumerate(self.items("textures")):
            self.index(texture.get("source"), f"textures[{i}].source", "images")
