"""Hostile JSON in warp assets and scenes: each gets one AssetError/SceneError line naming the file,
the field (when there is one) and what was expected; nothing hangs, overflows or echoes megabytes."""
import json
import re
import shutil

import numpy as np
import pytest

from motionwarp_demo.level.scene import Scene, SceneError
from motionwarp import AssetError, WarpAsset

from .conftest import SAMPLES
from .test_asset import good, model  # noqa: F401  (model is a fixture: a 1 s clip in tmp_path)

#: A number written into each document where a bad number is then substituted.
MARK = 12345.678


def asset_text(data=None):
    return json.dumps(data or good())


def scene_text():
    return (SAMPLES / "scenes" / "course.json").read_text()


def load_asset(folder, text):
    path = folder / "hop.warp.json"
    path.write_text(text)
    return path, lambda: WarpAsset.load(path)


def load_scene(folder, text):
    path = folder / "scene.json"
    path.write_text(text)
    shutil.copytree(SAMPLES / "scenes" / "meshes", folder / "meshes", dirs_exist_ok=True)  # the course's models
    return path, lambda: Scene.load(path)


def with_number(kind, number_text):
    """(document text, field path) with one number replaced by `number_text`."""
    if kind == "asset":
        data = good()
        data["phases"][0]["t_offset"] = [0, MARK, 0]
        return asset_text(data).replace(str(MARK), number_text), "phases[0].t_offset"
    data = json.loads(scene_text())
    data["spawn"]["h"] = MARK
    return json.dumps(data).replace(str(MARK), number_text), "spawn.h"


LOADERS = {"asset": (load_asset, AssetError), "scene": (load_scene, SceneError)}


def one_line_error(kind, folder, text):
    """The error loading `text` as a `kind` gives; it must be one line starting with the file's path."""
    loader, error = LOADERS[kind]
    path, load = loader(folder, text)
    with pytest.raises(error) as caught:
        load()
    message = str(caught.value)
    assert message.startswith(f"{path}: ") and "\n" not in message and len(message) < 400, message[:500]
    return message


@pytest.mark.parametrize("kind", LOADERS)
def test_deep_nesting_is_refused(base, model, kind):
    text = '{"format": ' + "[" * 100_000 + "]" * 100_000 + "}"
    assert "nests lists or objects too deeply" in one_line_error(kind, model, text)


@pytest.mark.parametrize("digits", [5000, 400])
@pytest.mark.parametrize("kind", LOADERS)
def test_huge_integers_are_out_of_range(base, model, kind, digits):
    text, field = with_number(kind, "7" * digits)
    message = one_line_error(kind, model, text)
    assert f": {field}: expected" in message and "from -100000 to 100000" in message


@pytest.mark.parametrize("number", ["1e39", "1e308", "-3.5e38"])
@pytest.mark.parametrize("kind", LOADERS)
def test_numbers_beyond_float32_are_out_of_range(base, model, kind, number):
    with np.errstate(over="ignore"):
        assert not np.isfinite(np.float32(float(number)))  # finite in Python, inf in Panda3D's float32
    text, field = with_number(kind, number)
    message = one_line_error(kind, model, text)
    assert f": {field}: expected" in message and "from -100000 to 100000" in message


@pytest.mark.parametrize("kind", LOADERS)
def test_the_range_limit_itself_is_accepted(base, model, kind):
    text, _ = with_number(kind, "100000")
    _, load = LOADERS[kind][0](model, text)
    if kind == "scene":
        assert load().spawn_h == 100000.0
    else:  # the asset's loader accepts the number, then the warp limits judge it at play time
        assert load().phases[0].t_offset == (0.0, 100000.0, 0.0)


@pytest.mark.parametrize("kind", LOADERS)
def test_duplicate_keys_are_an_error_naming_the_key(base, model, kind):
    text = asset_text() if kind == "asset" else scene_text()
    text = '{"format": "motionwarp.x", ' + text.lstrip()[1:]  # "format" now comes twice
    message = one_line_error(kind, model, text)
    assert ": format: key given twice in one object; expected each key once" in message


def test_duplicate_key_inside_a_phase_is_named(base, model):
    text = asset_text().replace('"start": 0.5', '"start": 0.5, "start": 0.6')
    assert ": start: key given twice" in one_line_error("asset", model, text)


@pytest.mark.parametrize("kind", LOADERS)
def test_a_device_is_not_read(base, model, kind):
    loader, error = LOADERS[kind]
    path = "/dev/zero" if kind == "scene" else model  # a device, and a directory
    with pytest.raises(error, match=re.escape(f"{path}: expected a regular JSON file")):
        (Scene.load if kind == "scene" else WarpAsset.load)(path)


@pytest.mark.parametrize("kind", LOADERS)
def test_a_huge_file_is_refused_before_reading(base, model, kind):
    path = model / "huge.json"
    with open(path, "wb") as stream:
        stream.truncate(64 * 2**20)  # sparse: 64 MB that take no disk space
    loader = Scene.load if kind == "scene" else WarpAsset.load
    with pytest.raises(LOADERS[kind][1], match=re.escape(f"{path}: expected a JSON file of at most 4 MB, "
                                                         "this one has 64.0 MB")):
        loader(path)


def test_a_long_string_is_not_echoed_whole(base, model):
    data = good()
    data["clip"] = "x" * 3_000_000
    message = one_line_error("asset", model, asset_text(data))
    assert (": clip: expected a non-empty string of at most 4096 printable characters (no control characters, "
            "line breaks or lone surrogates), got 'xxx") in message


def test_a_long_unknown_key_is_shortened_in_the_field_path(base, model):
    data = good()
    data["k" * 1_000_000] = 1
    message = one_line_error("asset", model, asset_text(data))
    assert ": " + "k" * 40 + "...: unknown key" in message


def test_a_long_wrong_clip_name_is_not_echoed_whole(base, model):
    data = good()
    data["clip"] = "y" * 150  # a valid string, but not a clip of the model
    message = one_line_error("asset", model, asset_text(data))
    assert ": clip: expected a clip of hop.glb: hop; got 'yyy" in message and "y" * 100 not in message


def many_phases(count):
    """An asset whose 1 s clip is cut into `count` back-to-back phases."""
    data = good()
    data["phases"] = [{"name": f"p{i}", "start": i / count, "end": (i + 1) / count} for i in range(count)]
    return data


def test_a_phase_per_clip_frame_loads(base, model):
    path, load = load_asset(model, asset_text(many_phases(30)))   # the 1 s clip has 30 frames
    asset = load()
    assert len(asset.phases) == 30 and asset.phases[-1].end == 1.0
    total = np.sum([p.total_root_motion for p in asset.phases], axis=0)
    assert total == pytest.approx((0.0, 2.0, 1.0), abs=1e-3)  # the clip: 2 m forward, up 0.5 m and down


def test_ten_thousand_phases_in_a_one_second_clip_are_refused_at_the_first(base, model):
    message = one_line_error("asset", model, asset_text(many_phases(10_000)))
    assert ": phases[0].end: expected a phase at least one clip frame long (0.0333 s at 30 fps)" in message


def test_a_repeated_name_among_ten_thousand_phases_is_found(base, model):
    data = many_phases(10_000)
    data["phases"][-1]["name"] = "p17"
    message = one_line_error("asset", model, asset_text(data))
    assert ": phases[9999].name: expected a unique phase name, 'p17' is used twice" in message


@pytest.mark.parametrize("kind", LOADERS)
def test_a_file_that_is_not_utf8(base, model, kind):
    path = model / "latin1.json"
    path.write_bytes('{"format": "caf\u00e9"}'.encode("latin-1"))
    loader = Scene.load if kind == "scene" else WarpAsset.load
    with pytest.raises(LOADERS[kind][1], match=re.escape(f"{path}: cannot be read ('utf-8' codec can't decode")):
        loader(path)
