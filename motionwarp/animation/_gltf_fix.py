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
"""
import base64
import bisect
import functools
import struct

import gltf._converter as _conv


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


class _FinalKeyConverter(_conv.Converter):
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
        return max((max(self.get_buffer_from_accessor(data, sampler["input"]))
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
    converter_class = _conv.Converter
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
