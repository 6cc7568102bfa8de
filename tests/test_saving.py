"""Saving never loses or corrupts a user's data: symlinks stay links, strings stay as typed, a
copy in another folder still finds its model, and killed saves leave nothing behind for long."""
import json
import os
import time

import pytest

from motionwarp import WarpAsset
from motionwarp.base.atomicfile import STALE_SECONDS, write_text_atomic
from motionwarp.base.jsonfields import dumps

from .test_asset import good, model  # noqa: F401  (model is a fixture: a 1 s clip in tmp_path)


def saved_asset(folder):
    path = folder / "hop.warp.json"
    path.write_text(json.dumps(good()))
    return WarpAsset.load(path)


def test_saving_through_a_symlink_writes_its_target(base, model):
    real = saved_asset(model)
    link = model / "link.warp.json"
    link.symlink_to(real.path)
    asset = WarpAsset.load(link)
    asset.phases[0].t_offset = (0.0, -0.25, 0.0)
    asset.save()
    assert link.is_symlink() and os.readlink(link) == str(real.path)
    assert json.loads(open(real.path).read())["phases"][0]["t_offset"] == [0.0, -0.25, 0.0]


def test_the_writer_keeps_text_inside_strings(base, model):
    data = {"model": "hero[ 1 ].glb", "name": "a [ 1, 2 ] b", "quote": 'say "[ 3 ]"', "numbers": [1, -2.5, 3e+20],
            "nested": [[1, 2], [3, 4]]}
    text = dumps(data)
    assert json.loads(text) == data
    assert '"hero[ 1 ].glb"' in text and '"a [ 1, 2 ] b"' in text and '"say \\"[ 3 ]\\""' in text
    assert '"numbers": [1, -2.5, 3e+20]' in text  # number lists still on one line


def test_a_model_path_with_brackets_survives_a_save(base, model):
    (model / "hop.glb").rename(model / "hero[ 1 ].glb")
    data = good()
    data["model"] = "hero[ 1 ].glb"
    path = model / "hop.warp.json"
    path.write_text(json.dumps(data))
    WarpAsset.load(path).save()
    assert WarpAsset.load(path).model == "hero[ 1 ].glb"


def test_saving_into_another_folder_keeps_naming_the_same_model(base, model):
    asset = saved_asset(model)
    elsewhere = model / "copies" / "deeper"
    elsewhere.mkdir(parents=True)
    asset.save(elsewhere / "hop.warp.json")
    written = json.loads((elsewhere / "hop.warp.json").read_text())["model"]
    assert written == "../../hop.glb"  # independent of motionwarp: two folders up from the copy
    copy = WarpAsset.load(elsewhere / "hop.warp.json")
    assert os.path.samefile(copy.model_path, model / "hop.glb")
    assert [p.total_root_motion for p in copy.phases] == [p.total_root_motion for p in asset.phases]


def test_saving_in_place_keeps_the_model_text(base, model):
    data = good()
    data["model"] = "./hop.glb"
    path = model / "hop.warp.json"
    path.write_text(json.dumps(data))
    WarpAsset.load(path).save()
    assert json.loads(path.read_text())["model"] == "./hop.glb"


def test_an_absolute_model_path_stays_absolute(base, model, tmp_path_factory):
    data = good()
    data["model"] = str(model / "hop.glb")
    path = model / "hop.warp.json"
    path.write_text(json.dumps(data))
    other = tmp_path_factory.mktemp("other")
    WarpAsset.load(path).save(other / "hop.warp.json")
    assert json.loads((other / "hop.warp.json").read_text())["model"] == str(model / "hop.glb")


def test_stale_temporary_files_of_killed_saves_are_removed(tmp_path):
    old = [tmp_path / ".motionwarp-abc123.tmp", tmp_path / ".motionwarp-def456.tmp.png"]
    fresh = tmp_path / ".motionwarp-ghi789.tmp"  # a save in progress elsewhere: not ours to remove
    unrelated = [tmp_path / "notes.tmp", tmp_path / ".motionwarp-notes.txt"]
    for path in old + [fresh] + unrelated:
        path.write_text("partial")
    long_ago = time.time() - STALE_SECONDS - 60
    for path in old + unrelated:
        os.utime(path, (long_ago, long_ago))
    write_text_atomic(tmp_path / "out.json", "{}\n")
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(["out.json", fresh.name] + [p.name for p in unrelated])


def test_a_failed_save_names_the_users_path_not_the_temporary_file(tmp_path):
    target = tmp_path / "missing" / "out.json"
    with pytest.raises(OSError) as caught:
        write_text_atomic(target, "{}\n")
    assert caught.value.filename == str(target) and ".motionwarp-" not in str(caught.value)
