"""load_actor: clips baked correctly from sparse keys, and clear errors for bad input."""
import math
import re

import gltf._converter
import numpy as np
import pytest

from motionwarp import LoadError, MotionWarper, RootMotionDriver, load_actor
from motionwarp.animation import _gltf_fix, loader
from motionwarp.animation.actor_clips import clip_control, require_joint
from motionwarp.animation.rootmotion import extract

from .conftest import in_process
from .glb import read_glb, write_glb
from .gltf_samples import static_mesh, two_bone_quad

FPS = 30


def expected_linear(times, values, frame):
    """What a LINEAR glTF channel holds at frame/FPS (clamped to the key range)."""
    return np.array([np.interp(frame / FPS, times, np.asarray(values)[:, i]) for i in range(3)])


@pytest.fixture
def sparse_file(tmp_path):
    times = [0.0, 0.5, 1.3]  # uneven, and the last key is not on a frame boundary
    moves = [[0, 0, 0], [0.2, 1.0, 0.5], [0.2, 4.0, 0.0]]
    turn = [[1, 0, 0, 0], [math.cos(math.radians(45)), 0, 0, math.sin(math.radians(45))],
            [math.cos(math.radians(60)), 0, 0, math.sin(math.radians(60))]]  # 0, 90, 120 degrees heading
    path = two_bone_quad(tmp_path / "sparse.glb",
                         {"move": [("root", "translation", times, moves), ("root", "rotation", times, turn)]})
    return path, times, moves


def test_sparse_linear_keys_are_interpolated_and_final_key_sampled(base, sparse_file):
    path, times, moves = sparse_file
    actor = load_actor(path)
    bundle = clip_control(actor, "move").getAnim()
    # ceil(1.3 * 30) = 39 frames by panda3d-gltf's count, plus the frame that reaches the final key.
    assert bundle.getNumFrames() == 40
    track = extract(bundle, "root")
    for frame in range(39):
        np.testing.assert_allclose(track.positions[frame], expected_linear(times, moves, frame), atol=1e-5)
    np.testing.assert_allclose(track.positions[-1], moves[-1], atol=1e-5)
    # Heading keys 0 -> 90 -> 120 degrees, slerped: 45 degrees at a quarter second.
    assert track.heading(0.25 * FPS) == pytest.approx(45.0, abs=0.01)
    assert track.headings[-1] == pytest.approx(120.0, abs=0.01)
    actor.cleanup()


def test_fix_is_scoped_to_motionwarp_loads(base, sparse_file):
    original = gltf._converter.get_lerp_factor
    load_actor(sparse_file[0]).cleanup()
    assert gltf._converter.get_lerp_factor is original
    assert _gltf_fix.lerp_bug_present() == (original(0.25, 0.0, 1.0) != 0.25)


def test_actors_from_one_file_share_clips(base, sparse_file):
    first, second = load_actor(sparse_file[0]), load_actor(sparse_file[0])
    assert clip_control(first, "move").getAnim().this == clip_control(second, "move").getAnim().this
    first.cleanup()
    second.cleanup()


def test_missing_file(base, tmp_path):
    with pytest.raises(LoadError, match="nothing.glb: file not found"):
        load_actor(tmp_path / "nothing.glb")


def test_not_gltf(base, tmp_path):
    path = tmp_path / "notes.gltf"
    path.write_text("these are not the droids")
    with pytest.raises(LoadError, match="notes.gltf: not a readable glTF file"):
        load_actor(path)


def test_truncated_glb(base, tmp_path):
    path = tmp_path / "cut.glb"
    path.write_bytes(b"glTF\x02\x00\x00\x00")
    with pytest.raises(LoadError, match="cut.glb: not a readable glTF file"):
        load_actor(path)


def test_model_without_skeleton(base, tmp_path):
    with pytest.raises(LoadError, match="has no skeleton"):
        load_actor(static_mesh(tmp_path / "tri.gltf"))


def test_a_skin_no_clip_moves_is_a_model_without_animations(base, tmp_path, capsys):
    """A rig exported without its clips (a skin, joints, no animations, no skinned mesh): panda3d-gltf
    makes no Character of it; the message says what is missing, from the loader and from `inspect`."""
    doc, binary = read_glb(two_bone_quad(tmp_path / "rig.glb", {}))
    for node in doc["nodes"]:
        node.pop("mesh", None)
        node.pop("skin", None)
    path = write_glb(tmp_path / "bare.glb", doc, binary)
    words = "the model has no animations (its skin 'mannequin_skin' has 2 joints, but no clip moves them)"
    with pytest.raises(LoadError, match=re.escape(f"{path}: {words}")):
        load_actor(path)
    from motionwarp.__main__ import main
    status, stderr = in_process(main, ["inspect", str(path)], capsys)
    assert status == 2 and stderr.startswith(f"motionwarp: {path}: {words}") and stderr.count("\n") == 1


def test_unknown_clip_lists_the_clips(base, sparse_file):
    actor = load_actor(sparse_file[0])
    with pytest.raises(LoadError, match=r"clip 'vault' not found; the actor has: move"):
        clip_control(actor, "vault")
    actor.cleanup()


def test_unknown_joint_lists_the_joints(base, sparse_file):
    actor = load_actor(sparse_file[0])
    with pytest.raises(LoadError, match=r"joint 'pelvis' not found; the skeleton has: .*root, bone"):
        require_joint(actor, "pelvis")
    actor.cleanup()


def one_key_pair(tmp_path, seconds):
    """A clip whose root goes from y = 0 to y = `seconds` in `seconds` (two LINEAR keys)."""
    return two_bone_quad(tmp_path / f"clip_{seconds:.4f}.glb",
                         {"move": [("root", "translation", [0.0, seconds], [[0, 0, 0], [0, seconds, 0]])]})


@pytest.mark.parametrize("seconds", [1.0, 32 / FPS, 1.05, 0.5])
def test_final_key_is_sampled_exactly_once(base, tmp_path, seconds):
    """Whole numbers of frames (1.0 s, the Knight's 32 frames) and fractions alike."""
    actor = load_actor(one_key_pair(tmp_path, seconds))
    channel = clip_control(actor, "move").getAnim().findChild("root")
    ys = list(channel.getTable("y"))
    assert len(ys) == math.ceil(seconds * FPS - 1e-3) + 1  # frames 0 .. the first at or past the final key
    np.testing.assert_allclose(ys[:-1], np.arange(len(ys) - 1) / FPS, atol=1e-5)
    assert ys[-1] == pytest.approx(seconds, abs=1e-5) and ys[-2] < seconds - 1e-3
    actor.cleanup()


def test_many_uneven_keys_bake_to_the_linear_curve_through_them(base, tmp_path):
    """Keys on frames, between frames, two in one frame and a long gap: each baked frame is the
    straight line between the keys around its time (numpy's interp), and the final key is sampled."""
    times = [0.0, 1 / FPS, 0.05, 0.06, 0.1, 0.4, 0.41, 1.0, 1.2]
    ys = [0.0, 0.3, -0.2, 0.5, 0.5, 2.0, 1.0, 1.5, -1.0]
    path = two_bone_quad(tmp_path / "uneven.glb",
                         {"move": [("root", "translation", times, [[0, y, 0] for y in ys])]})
    actor = load_actor(path)
    baked = list(clip_control(actor, "move").getAnim().findChild("root").getTable("y"))
    frame_times = np.minimum(np.arange(len(baked)) / FPS, times[-1])
    assert len(baked) == math.ceil(times[-1] * FPS - 1e-3) + 1
    np.testing.assert_allclose(baked, np.interp(frame_times, times, ys), atol=1e-5)
    actor.cleanup()


def test_final_key_fix_switches_off_when_panda3d_gltf_samples_the_final_key(base, tmp_path, monkeypatch):
    """A panda3d-gltf that counts frames right gets no extra frame from motionwarp."""
    class FixedCount:  # `math` as a fixed converter would see it: one frame more than ceil, never short
        ceil = staticmethod(lambda x: math.ceil(x - 1e-3) + 1)
        floor = staticmethod(math.floor)

    monkeypatch.setattr(gltf._converter, "math", FixedCount)
    _gltf_fix.final_key_bug_present.cache_clear()
    try:
        assert not _gltf_fix.final_key_bug_present()
        actor = load_actor(one_key_pair(tmp_path, 1.0))
        assert clip_control(actor, "move").getAnim().getNumFrames() == 31
        actor.cleanup()
    finally:
        monkeypatch.undo()
        _gltf_fix.final_key_bug_present.cache_clear()
    assert _gltf_fix.final_key_bug_present()


@pytest.fixture
def fresh_model_cache(tmp_path, monkeypatch):
    """A model cache folder of this test's own, and no in-process share, so every load asks the disk."""
    from panda3d.core import BamCache, Filename
    cache = BamCache.getGlobalPtr()
    saved_root, saved_active, saved_models = cache.getRoot(), cache.getActive(), cache.getCacheModels()
    folder = tmp_path / "model-cache"
    folder.mkdir()
    cache.setRoot(Filename.fromOsSpecific(str(folder)))
    cache.setActive(True)
    cache.setCacheModels(True)
    monkeypatch.setattr(loader, "_model_cache", {})
    conversions = []
    real = _gltf_fix.convert
    monkeypatch.setattr(_gltf_fix, "convert", lambda *args: conversions.append(args[0]) or real(*args))
    yield folder, conversions
    cache.setRoot(saved_root)
    cache.setActive(saved_active)
    cache.setCacheModels(saved_models)


def test_a_second_start_loads_the_bake_from_panda3ds_model_cache(base, sparse_file, fresh_model_cache, monkeypatch):
    folder, conversions = fresh_model_cache
    first = load_actor(sparse_file[0])
    assert len(conversions) == 1 and any(folder.iterdir())
    monkeypatch.setattr(loader, "_model_cache", {})  # as a new process would start
    second = load_actor(sparse_file[0])
    assert len(conversions) == 1  # not converted again
    # The cached bake is the fixed one: same frames, same final key.
    tables = [list(clip_control(a, "move").getAnim().findChild("root").getTable("y")) for a in (first, second)]
    assert tables[0] == tables[1] and len(tables[0]) == 40
    first.cleanup()
    second.cleanup()


def test_the_cache_misses_when_the_file_the_settings_or_the_fix_change(base, sparse_file, fresh_model_cache, monkeypatch):
    import os
    from gltf import GltfSettings
    _, conversions = fresh_model_cache
    path = sparse_file[0]

    def load(settings=None):
        monkeypatch.setattr(loader, "_model_cache", {})
        load_actor(path, settings).cleanup()

    load()
    load(GltfSettings(animation_fps=60))
    assert len(conversions) == 2  # other settings, another bake
    stat = os.stat(path)
    os.utime(path, (stat.st_atime, stat.st_mtime + 10))
    load()
    assert len(conversions) == 3  # the file changed
    loader.bake_fingerprint.cache_clear()
    monkeypatch.setattr(_gltf_fix, "lerp_bug_present", lambda: False)  # as if the fix were different
    try:
        load()
        assert len(conversions) == 4
    finally:
        monkeypatch.undo()
        loader.bake_fingerprint.cache_clear()


@pytest.mark.parametrize("call,listing", [
    (lambda actor, base: RootMotionDriver(actor, "pelvis", task=False), r"joint 'pelvis' not found; the skeleton has: .*root, bone"),
    (lambda actor, base: RootMotionDriver(actor, clips=["walk"], task=False), r"clip 'walk' not found; the actor has: move"),
    (lambda actor, base: RootMotionDriver(actor, task=False).loop("walk"), r"clip 'walk' is not driven .*; it drives: move"),
    (lambda actor, base: RootMotionDriver(actor, task=False).play("walk"), r"clip 'walk' is not driven .*; it drives: move"),
    (lambda actor, base: RootMotionDriver(actor, task=False).loop_range("walk"), r"clip 'walk' is not driven .*; it drives: move"),
    (lambda actor, base: MotionWarper(actor, "pelvis", taskmgr=base.taskMgr, render=base.render),
     r"joint 'pelvis' not found; the skeleton has: .*root, bone"),
    (lambda actor, base: extract(clip_control(actor, "move").getAnim(), "pelvis"),
     r"no animation channel for joint 'pelvis'; it animates: root, bone"),
])
def test_every_unknown_clip_or_joint_is_a_load_error_listing_what_exists(base, sparse_file, call, listing):
    actor = load_actor(sparse_file[0])
    with pytest.raises(LoadError, match=listing):
        call(actor, base)
    actor.cleanup()


def test_a_warper_told_an_unknown_clip_names_the_clips_it_has(base, sparse_file):
    actor = load_actor(sparse_file[0])
    warper = MotionWarper(actor, taskmgr=base.taskMgr, render=base.render)
    try:
        with pytest.raises(LoadError, match=r"clip 'walk' is not driven .*; it drives: move"):
            warper.driver.loop("walk")
    finally:
        warper.destroy()
        actor.cleanup()
