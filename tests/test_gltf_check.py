"""glTF files are checked before panda3d-gltf or Bullet sees them (docs/design.md 3.3): each broken
structure built here gets one LoadError naming the file and what is wrong, without the converter
ever running (it would crash, hang or read without end), from the loader and from a scene."""
import json
import os
import struct

import pytest

from motionwarp_demo.level.scene import Scene, SceneError
from motionwarp import LoadError, load_actor
from motionwarp.animation import gltf_check
from motionwarp.animation.gltf_check import MAX_CLIP_SECONDS, check_gltf

from .conftest import SAMPLES
from .glb import read_glb, write_glb
from .gltf_samples import two_bone_quad

STEP = [("root", "translation", [0.0, 0.5, 1.0], [[0, 0, 0], [0, 1, 0], [0, 2, 0]])]


@pytest.fixture
def glb(tmp_path):
    """A valid two-bone GLB with one clip: (path, its JSON, its binary chunk)."""
    path = two_bone_quad(tmp_path / "hero.glb", {"step": STEP})
    return (path,) + read_glb(path)


@pytest.fixture
def no_converter(monkeypatch):
    """Fails the test if panda3d-gltf is asked to convert anything."""
    monkeypatch.setattr("motionwarp.animation._gltf_fix.convert",
                        lambda *args: pytest.fail("panda3d-gltf was handed a file the check should refuse"))


def refused(path, no_converter):
    """The message load_actor gives for `path`; check_gltf gives the same."""
    with pytest.raises(LoadError) as caught:
        load_actor(path)
    message = str(caught.value)
    assert message.startswith(f"{path}: not a readable glTF file (") and "\n" not in message
    with pytest.raises(LoadError, match="^" + message.replace("(", r"\(").replace(")", r"\)").replace("[", r"\[")
                       .replace("]", r"\]").replace(".", r"\.").replace("+", r"\+") + "$"):
        check_gltf(path)
    return message


def edited(glb, change):
    path, doc, binary = glb
    binary = change(doc, binary) or binary
    return write_glb(path.with_name("edited.glb"), doc, binary)


# -- the container ------------------------------------------------------------------------------

@pytest.mark.parametrize("cut", [1, 4, 40])
def test_a_glb_cut_inside_its_binary_chunk(glb, no_converter, cut):
    path = glb[0]
    data = path.read_bytes()
    path.write_bytes(data[:-cut])
    assert f"the GLB header says {len(data)} bytes, the file has {len(data) - cut} (cut short or padded)" in refused(
        path, no_converter)


def test_a_glb_whose_header_was_mended_but_whose_chunk_runs_past_the_end(glb, no_converter):
    path = glb[0]
    data = path.read_bytes()[:-16]
    path.write_bytes(data[:8] + struct.pack("<I", len(data)) + data[12:])
    assert "says" in refused(path, no_converter) and "only" in refused(path, no_converter)


def test_glb_json_that_does_not_parse(glb, no_converter):
    path = glb[0]
    data = bytearray(path.read_bytes())
    data[20] = ord("[")   # the JSON's opening brace
    data[21] = ord("[")
    path.write_bytes(bytes(data))
    assert "its JSON does not parse" in refused(path, no_converter)


# -- buffers, views, accessors ------------------------------------------------------------------

def test_a_buffer_longer_than_the_binary_chunk(glb, no_converter):
    def grow(doc, binary):
        doc["buffers"][0]["byteLength"] = len(binary) + 400
    message = refused(edited(glb, grow), no_converter)
    assert f"buffers[0] says {len(glb[2]) + 400} bytes, its data has {len(glb[2])} (cut short)" in message


def test_a_view_outside_its_buffer(glb, no_converter):
    def shift(doc, binary):
        doc["bufferViews"][0]["byteOffset"] = len(binary)
    assert "bufferViews[0]: bytes" in refused(edited(glb, shift), no_converter)


def test_a_view_of_a_buffer_that_does_not_exist(glb, no_converter):
    def point(doc, binary):
        doc["bufferViews"][0]["buffer"] = 3
    assert "bufferViews[0].buffer: expected a whole number from 0 to 0, got 3" in refused(edited(glb, point), no_converter)


def test_an_accessor_counting_past_its_view(glb, no_converter):
    def count(doc, binary):
        doc["accessors"][0]["count"] = 1_000_000
    assert "accessors[0]: 1000000 elements from byte 0 need" in refused(edited(glb, count), no_converter)


def test_an_accessor_beyond_the_count_limit(glb, no_converter):
    def count(doc, binary):
        doc["accessors"][0]["count"] = 10**12
    assert "accessors[0].count: expected a whole number from 1 to 4000000" in refused(edited(glb, count), no_converter)


# -- buffers that are not regular files ---------------------------------------------------------

def as_gltf(glb, tmp_path):
    """The sample as a .gltf whose buffer is `hero.bin` beside it."""
    path, doc, binary = glb
    doc["buffers"][0]["uri"] = "hero.bin"
    (tmp_path / "hero.bin").write_bytes(binary)
    gltf = tmp_path / "hero.gltf"
    gltf.write_text(json.dumps(doc))
    return gltf


def test_a_separate_buffer_loads(base, glb, tmp_path):
    assert "step" in load_actor(as_gltf(glb, tmp_path)).getAnimNames()


@pytest.mark.parametrize("make, kind", [(os.mkfifo, "is a FIFO (named pipe)"),
                                        (lambda p: os.symlink("/dev/zero", p), "is a character device"),
                                        (os.mkdir, "is a directory")])
def test_a_buffer_uri_that_is_not_a_regular_file_is_never_opened(glb, tmp_path, no_converter, make, kind):
    gltf = as_gltf(glb, tmp_path)
    os.unlink(tmp_path / "hero.bin")
    make(tmp_path / "hero.bin")
    assert f"buffers[0].uri (hero.bin) {kind}; expected a regular file" in refused(gltf, no_converter)


def test_a_buffer_uri_with_a_scheme_is_refused(glb, tmp_path, no_converter):
    path, doc, binary = glb
    doc["buffers"][0]["uri"] = "https://example.com/hero.bin"
    gltf = tmp_path / "web.gltf"
    gltf.write_text(json.dumps(doc))
    assert "expected a file next to the model or a data URI" in refused(gltf, no_converter)


def test_an_image_uri_that_is_a_fifo_is_refused(glb, tmp_path, no_converter):
    def texture(doc, binary):
        doc["images"] = [{"uri": "skin.png"}]
        doc["textures"] = [{"source": 0}]
    os.mkfifo(tmp_path / "skin.png")
    assert "images[0].uri (skin.png) is a FIFO (named pipe)" in refused(edited(glb, texture), no_converter)


# -- the node graph -----------------------------------------------------------------------------

@pytest.mark.parametrize("children, expected", [
    ({0: [1], 1: [0]}, "is its own ancestor"),
    ({1: [1]}, "node 1 already has a parent"),
    ({0: [1, 1]}, "node 1 already has a parent"),
    ({0: [1, 99]}, "nodes[0].children: expected a whole number from 0 to"),
])
def test_a_node_graph_that_is_not_a_tree(glb, no_converter, children, expected):
    def link(doc, binary):
        for node, kids in children.items():
            doc["nodes"][node]["children"] = kids
    assert expected in refused(edited(glb, link), no_converter)


# -- meshes -------------------------------------------------------------------------------------

def first_index_set_to(value):
    """An edit that sets the first vertex index of the mesh to `value`."""
    def edit(doc, binary):
        primitive = doc["meshes"][0]["primitives"][0]
        accessor = doc["accessors"][primitive["indices"]]
        view = doc["bufferViews"][accessor["bufferView"]]
        start = view.get("byteOffset", 0) + accessor.get("byteOffset", 0)
        width = {5121: 1, 5123: 2, 5125: 4}[accessor["componentType"]]
        return binary[:start] + value.to_bytes(width, "little") + binary[start + width:]
    return edit


def test_an_index_past_the_vertices(glb, no_converter):
    assert "indices: index 200 is past the 4 vertices" in refused(edited(glb, first_index_set_to(200)), no_converter)


def test_a_primitive_without_positions(glb, no_converter):
    def drop(doc, binary):
        del doc["meshes"][0]["primitives"][0]["attributes"]["POSITION"]
    assert "attributes: expected an object with POSITION" in refused(edited(glb, drop), no_converter)


def test_attributes_of_different_lengths(glb, no_converter):
    def shorten(doc, binary):
        normal = doc["meshes"][0]["primitives"][0]["attributes"]["NORMAL"]
        doc["accessors"][normal]["count"] = 3
    assert "expected every attribute to have as many elements, got [3, 4]" in refused(edited(glb, shorten), no_converter)


# -- animations ---------------------------------------------------------------------------------

def test_an_hour_long_clip_is_refused_fast(tmp_path, no_converter):
    path = two_bone_quad(tmp_path / "long.glb", {"hour": [("root", "translation", [0.0, 3600.0], [[0, 0, 0], [0, 1, 0]])]})
    assert f"animations[0] ('hour'): lasts 3600 s, above the {MAX_CLIP_SECONDS:g} s limit" in refused(path, no_converter)


@pytest.mark.parametrize("times", [(0.0, 1.0, 0.5), (0.0, float("nan"), 1.0), (-1.0, 0.5, 1.0)])
def test_key_times_that_go_back_or_are_not_finite_are_refused(glb, no_converter, times):
    def rewrite(doc, binary):
        accessor = doc["accessors"][doc["animations"][0]["samplers"][0]["input"]]
        view = doc["bufferViews"][accessor["bufferView"]]
        start = view.get("byteOffset", 0) + accessor.get("byteOffset", 0)
        return binary[:start] + struct.pack("<3f", *times) + binary[start + 12:]
    assert "samplers[0].input: expected key times from 0 up, finite and increasing" in refused(
        edited(glb, rewrite), no_converter)


@pytest.mark.parametrize("bad", [float("nan"), float("inf")])
def test_key_values_that_are_not_finite_name_the_file_animation_and_channel(glb, no_converter, bad):
    """A NaN in one key (the second key's y) would bake into every joint below: refused, naming the
    animation, the channel and its joint, with how many keys are bad."""
    def rewrite(doc, binary):
        accessor = doc["accessors"][doc["animations"][0]["samplers"][0]["output"]]
        view = doc["bufferViews"][accessor["bufferView"]]
        start = view.get("byteOffset", 0) + accessor.get("byteOffset", 0) + 4 * 4   # key 1, component y
        return binary[:start] + struct.pack("<f", bad) + binary[start + 4:]
    message = refused(edited(glb, rewrite), no_converter)
    assert ("animations[0] ('step').channels[0] ('root' translation): 1 of its 3 key values are not finite "
            "(NaN or infinity); expected numbers") in message


def test_a_sampler_with_too_few_values(glb, no_converter):
    def fewer(doc, binary):
        output = doc["animations"][0]["samplers"][0]["output"]
        doc["accessors"][output]["count"] = 2
    assert "samplers[0].output: 2 values for 3 keys" in refused(edited(glb, fewer), no_converter)


@pytest.mark.parametrize("times", [[0.0], [0.0, 1e-6]])
def test_a_pose_or_a_blink_loads_as_a_clip(base, tmp_path, times):
    """A one-key clip (a pose, as rigs ship them) or a microsecond one is valid glTF: it loads;
    what plays it decides (the demo refuses it as a walk or run cycle)."""
    values = [[0, 0, 0], [0, 1, 0]][:len(times)]
    actor = load_actor(two_bone_quad(tmp_path / "pose.glb", {"pose": [("root", "translation", times, values)]}))
    assert "pose" in actor.getAnimNames()


# -- the same check for a scene's models ---------------------------------------------------------

def test_a_scene_model_cut_short_is_a_scene_error_before_loading(base, glb, tmp_path, monkeypatch):
    path = glb[0]
    path.write_bytes(path.read_bytes()[:-8])
    scene = json.loads((SAMPLES / "scenes" / "course.json").read_text())
    scene["obstacles"] = [{"name": "rock", "shape": "model", "path": "hero.glb", "pos": [3, 3, 0]}]
    (tmp_path / "scene.json").write_text(json.dumps(scene))
    loaded = Scene.load(tmp_path / "scene.json")
    monkeypatch.setattr(base.loader, "loadModel", lambda *a, **k: pytest.fail("Panda3D's loader got the file"))
    with pytest.raises(SceneError, match=r"obstacles\[0\].path: expected a model Panda3D can load, .*hero.glb is not "
                                         r"\(the GLB header says \d+ bytes, the file has \d+ \(cut short or padded\)\)$"):
        loaded.build(base.render, base.loader)


def test_the_shipped_models_pass(no_converter):
    for path in [SAMPLES / "assets" / "mannequin.glb", *sorted((SAMPLES / "scenes" / "meshes").glob("*.glb"))]:
        check_gltf(path)
    assert gltf_check.is_gltf(SAMPLES / "assets" / "mannequin.glb")


# -- the bounds exactly (one byte, one element, one index past) ----------------------------------

def test_a_glb_with_bytes_after_its_declared_length(glb, no_converter):
    path = glb[0]
    size = path.stat().st_size
    path.write_bytes(path.read_bytes() + b"\0" * 4)
    assert f"the GLB header says {size} bytes, the file has {size + 4}" in refused(path, no_converter)


def view_end(doc, binary):
    """Stretch bufferViews[0] to end exactly at the buffer's end; its length."""
    view = doc["bufferViews"][0]
    view["byteLength"] = doc["buffers"][0]["byteLength"] - view.get("byteOffset", 0)
    return view["byteLength"]


def test_a_view_ending_exactly_at_its_buffers_end_passes_and_one_byte_more_does_not(glb, no_converter):
    check_gltf(edited(glb, lambda doc, binary: view_end(doc, binary) and None))

    def one_more(doc, binary):
        doc["bufferViews"][0]["byteLength"] = view_end(doc, binary) + 1
    assert "bufferViews[0]: bytes" in refused(edited(glb, one_more), no_converter)


def test_an_accessor_one_element_past_its_view(glb, no_converter):
    def fill(doc, binary):
        """Accessor 0 grown to exactly fill its view, then one element more."""
        accessor = doc["accessors"][0]
        view = doc["bufferViews"][accessor["bufferView"]]
        element = 4 * {"SCALAR": 1, "VEC2": 2, "VEC3": 3, "VEC4": 4, "MAT4": 16}[accessor["type"]]
        assert accessor["componentType"] == 5126 and "byteStride" not in view
        accessor["count"] = (view["byteLength"] - accessor.get("byteOffset", 0)) // element
        return accessor
    fitted = {}

    def exact(doc, binary):
        fitted.update(fill(doc, binary))
    check_gltf(edited(glb, exact))

    def over(doc, binary):
        fill(doc, binary)["count"] += 1
    assert f"accessors[0]: {fitted['count'] + 1} elements from byte" in refused(edited(glb, over), no_converter)


@pytest.mark.parametrize("index, ok", [(3, True), (4, False)])
def test_the_last_vertex_index_passes_and_the_next_does_not(glb, no_converter, index, ok):
    path = edited(glb, first_index_set_to(index))
    if ok:
        check_gltf(path)
    else:
        assert "indices: index 4 is past the 4 vertices" in refused(path, no_converter)


@pytest.mark.parametrize("keys, values", [(3, 1), (2, 3)])
def test_a_sampler_whose_values_do_not_match_its_keys(glb, no_converter, keys, values):
    def count(doc, binary):
        sampler = doc["animations"][0]["samplers"][0]
        doc["accessors"][sampler["input"]]["count"] = keys
        doc["accessors"][sampler["output"]]["count"] = values
    assert f"samplers[0].output: {values} values for {keys} keys" in refused(edited(glb, count), no_converter)


def test_an_index_into_a_list_the_file_lacks_says_so(glb, no_converter):
    def texture(doc, binary):
        doc["textures"] = [{"source": 4}]
    assert "textures[0].source: refers to images[4], and the file has no images" in refused(
        edited(glb, texture), no_converter)
