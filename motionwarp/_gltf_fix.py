"""A narrow, version-guarded fix for panda3d-gltf's animation baking (DESIGN.md 3).

panda3d-gltf 1.3.0 bakes each clip into one sample per frame at `gltf-animation-fps`, with
two bugs (upstream issue #143):

* `get_lerp_factor` returns `max(x, 1)` instead of clamping to [0, 1], so every LINEAR
  sample snaps to the *next* key: sparse-key clips play a whole key interval early.
* the clip gets `ceil(duration * fps)` frames, so a frame at the final key time is never
  sampled: a non-looping clip never reaches its last pose.

`convert()` swaps in corrected functions only while motionwarp converts a file, and only
when the installed panda3d-gltf still has the bugs. The lerp bug is detected by behaviour
(an upstream fix switches that patch off by itself); the final-key bug is assumed from the
version (<= 1.3.0), so a release that still has it needs the version bound raised.
"""
import gltf._converter as _conv


def _lerp_factor(currtime, lasttime, nexttime):
    """Fraction of the way from the last key to the next one, clamped to [0, 1]."""
    span = nexttime - lasttime
    if span <= 0.0:
        return 1.0
    return min(max((currtime - lasttime) / span, 0.0), 1.0)


def _next_time_index(currtime, time_buffer):
    """Index of the first key after `currtime` (so a sample on a key gets that key), capped at the last."""
    last = len(time_buffer) - 1
    nextidx = 1
    while nextidx < last and currtime >= time_buffer[nextidx]:
        nextidx += 1
    return nextidx


def lerp_bug_present():
    """True when the installed panda3d-gltf snaps LINEAR samples to the next key."""
    return _conv.get_lerp_factor(0.25, 0.0, 1.0) != 0.25


def final_key_bug_present():
    """True for panda3d-gltf versions known to drop the final key (<= 1.3.0)."""
    from gltf import __version__
    parts = tuple(int(p) for p in __version__.split(".")[:3] if p.isdigit())
    return parts <= (1, 3, 0)


class _FinalKeyConverter(_conv.Converter):
    """Bakes one more frame per clip so the frame at the final key time exists.

    The frame count is decided where the bundle is made (`AnimBundle`, patched below);
    the per-joint baking must then fill that many frames.
    """

    def _bundle(self, name, fps, num_frames):
        self._baked_frames = num_frames + 1
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
