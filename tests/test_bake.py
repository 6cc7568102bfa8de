"""The numpy bake of skeleton clips (motionwarp/animation/_gltf_fix.py, docs/design.md 3.1).

Two oracles, neither of them the code under test: panda3d-gltf's own per-frame baker (run with
motionwarp's two fixes, the bake motionwarp shipped before) on every kind of rig the tests make,
the mannequin and the Knight; and values worked out by hand from the keys (numpy's interp,
angles of a slerp, a held STEP key, the joint's rest transform).
"""
import base64
import json
import math
import struct

import gltf._converter
import numpy as np
import pytest
from gltf import GltfSettings
from panda3d.core import AnimChannelMatrixXfmTable, LMatrix4f, LVecBase3f, NodePath, TransformState, decompose_matrix

from motionwarp import LoadError, load_actor
from motionwarp.animation import _gltf_fix

from .biped_samples import write_biped
from .conftest import MANNEQUIN
from .gltf_samples import two_bone_quad
from .pose_oracle import KNIGHT
from .rig_samples import RIGS, write_rig

FPS = 30
LETTERS = "xyzhprijk"
#: Joint matrices of the two bakes agree to float32 rounding: rotation entries within 2e-6
#: (1e-4 degrees), translations within 1e-5 model units (relative beyond one unit).
ROTATION_TOLERANCE, POSITION_TOLERANCE = 2e-6, 1e-5
#: Key times of quad_clips' "late" clip: the first after frame 0, one on frame 15, two in one frame.
LATE_KEYS = [0.1, 0.5, 0.52, 0.9]


def baked_tables(root):
    """{(clip, joint path...): ([table x, y, z, h, p, r, i, j, k], frames)} of every bundle under `root`."""
    found = {}
    for bundle_path in NodePath(root).findAllMatches("**/+AnimBundleNode"):
        bundle = bundle_path.node().getBundle()

        def walk(group, names):
            for i in range(group.getNumChildren()):
                child = group.getChild(i)
                key = names + (child.getName(),)
                if isinstance(child, AnimChannelMatrixXfmTable):
                    found[key] = ([list(child.getTable(letter)) for letter in LETTERS], bundle.getNumFrames())
                walk(child, key)
        walk(bundle, (bundle.getName(),))
    return found


def joint_matrices(tables, frames):
    """(frames, 4, 4): each frame's joint matrix composed by Panda3D from the tables' x y z h p r i j k."""
    rows = []
    for frame in range(frames):
        value = [table[frame] if len(table) > 1 else table[0] for table in tables]
        mat = TransformState.makePosHprScale(LVecBase3f(*value[0:3]), LVecBase3f(*value[3:6]),
                                             LVecBase3f(*value[6:9])).getMat()
        rows.append([list(mat.getRow(i)) for i in range(4)])
    return np.array(rows)


def both_bakes(path, monkeypatch):
    """(panda3d-gltf's per-frame bake with motionwarp's fixes, motionwarp's numpy bake) of `path`."""
    path, settings = str(path), GltfSettings(animation_fps=FPS)
    fast = baked_tables(_gltf_fix.convert(path, settings))
    with monkeypatch.context() as patch:
        patch.setattr(_gltf_fix._VectorBakeConverter, "build_animation_skeleton",
                      gltf._converter.Converter.build_animation_skeleton)
        reference = baked_tables(_gltf_fix.convert(path, settings))
    return reference, fast


def hpr_is_noise(reference, fast):
    """True for a joint whose HPR the float rounding chooses: pitch at +-90 degrees (gimbal lock) or
    heading/roll at +-180 (the same turn as its opposite), in either bake."""
    angles = np.concatenate([np.abs(np.asarray(t, dtype=float)) for t in reference[3:6] + fast[3:6]])
    pitches = np.concatenate([np.abs(reference[4]), np.abs(fast[4])])
    return bool((np.abs(pitches - 90.0) < 0.01).any() or (np.abs(angles - 180.0) < 0.01).any())


def assert_same_bake(reference, fast, exact_lengths=True):
    """Same channels in the same order, same frame counts, tables of one value or every frame,
    translation tables alike, and the joint matrices of every frame equal to float32 rounding.
    `exact_lengths`: HPR tables are kept whole or made one value alike too; otherwise they may
    differ only where the kept table moves by float noise or its HPR is noise (`hpr_is_noise`)."""
    assert list(reference) == list(fast)
    for key, (ref_tables, frames) in reference.items():
        fast_tables, fast_frames = fast[key]
        assert fast_frames == frames, key
        assert all(len(table) in (1, frames) for table in fast_tables), key
        for letter, ref_table, fast_table in zip(LETTERS, ref_tables, fast_tables):
            if len(ref_table) == len(fast_table):
                continue
            assert not exact_lengths and letter in "hpr", (key, letter, len(ref_table), len(fast_table))
            kept = ref_table if len(ref_table) > 1 else fast_table
            assert max(kept) - min(kept) < 1e-3 or hpr_is_noise(ref_tables, fast_tables), (key, letter)
        for ref_table, fast_table in zip(ref_tables[:3], fast_tables[:3]):
            assert len(ref_table) == len(fast_table), key
        ref_mats, fast_mats = joint_matrices(ref_tables, frames), joint_matrices(fast_tables, frames)
        rotation = np.abs(ref_mats[:, :3, :3] - fast_mats[:, :3, :3])
        assert rotation.max() < ROTATION_TOLERANCE * max(1.0, np.abs(ref_mats[:, :3, :3]).max()), key
        position = np.abs(ref_mats[:, 3, :3] - fast_mats[:, 3, :3])
        assert (position < POSITION_TOLERANCE * np.maximum(1.0, np.abs(ref_mats[:, 3, :3]))).all(), key


def one_joint_gltf(path, channels, rest=None, name="joint"):
    """A .gltf of joint `name` (rest TRS `rest`, glTF axes) with a child joint `tip` and one clip
    `clip` of `channels` = [(path, interpolation, times, flat values)] on `name`."""
    binary, views, accessors, samplers = b"", [], [], []

    def add(values, kind):
        nonlocal binary
        data = struct.pack(f"<{len(values)}f", *values)
        views.append({"buffer": 0, "byteOffset": len(binary), "byteLength": len(data)})
        count = len(values) // {"SCALAR": 1, "VEC3": 3, "VEC4": 4}[kind]
        accessor = {"bufferView": len(views) - 1, "componentType": 5126, "count": count, "type": kind}
        if kind == "SCALAR":
            accessor.update(min=[min(values)], max=[max(values)])
        accessors.append(accessor)
        binary += data
        return len(accessors) - 1

    for target, interpolation, times, values in channels:
        samplers.append({"input": add(times, "SCALAR"), "interpolation": interpolation,
                         "output": add(values, "VEC4" if target == "rotation" else "VEC3")})
    doc = {
        "asset": {"version": "2.0"}, "scene": 0, "scenes": [{"nodes": [0]}],
        "nodes": [dict(rest or {}, name=name, children=[1]), {"name": "tip", "translation": [0, 0.5, 0]}],
        "skins": [{"joints": [0, 1]}],
        "buffers": [{"byteLength": len(binary),
                     "uri": "data:application/octet-stream;base64," + base64.b64encode(binary).decode()}],
        "bufferViews": views, "accessors": accessors,
        "animations": [{"name": "clip", "samplers": samplers,
                        "channels": [{"sampler": i, "target": {"node": 0, "path": channel[0]}}
                                     for i, channel in enumerate(channels)]}],
    }
    path.write_text(json.dumps(doc))
    return path


def z_turn(degrees):
    """glTF quaternion (x, y, z, w) turning `degrees` about glTF's +Y (Panda3D's up)."""
    half = math.radians(degrees) / 2
    return [0.0, math.sin(half), 0.0, math.cos(half)]


def fast_tables(path):
    return baked_tables(_gltf_fix.convert(str(path), GltfSettings(animation_fps=FPS)))


def quad_clips(tmp_path):
    """two_bone_quad clips: sparse uneven LINEAR keys, STEP keys, a single key, keys from 0.1 s on."""
    times = [0.0, 0.5, 1.3]
    moves = [[0, 0, 0], [0.2, 1.0, 0.5], [0.2, 4.0, 0.0]]
    turn = [[1, 0, 0, 0], [math.cos(math.radians(45)), 0, 0, math.sin(math.radians(45))],
            [math.cos(math.radians(60)), 0, 0, math.sin(math.radians(60))]]
    return two_bone_quad(tmp_path / "quad.glb", {
        "sparse": [("root", "translation", times, moves), ("root", "rotation", times, turn)],
        "step": [("root", "translation", times, moves, "STEP"), ("bone", "rotation", times, turn, "STEP")],
        "single": [("root", "translation", [0.4], [[1.0, 2.0, 3.0]]), ("bone", "rotation", [0.0], [turn[1]])],
        "late": [("root", "translation", LATE_KEYS, [[0, 1, 0], [0, 2, 0], [0, -1, 0], [1, 1, 1]])],
    })


@pytest.mark.parametrize("rig", sorted(RIGS))
def test_generated_rigs_bake_as_panda3d_gltf_bakes(rig, tmp_path, monkeypatch):
    assert_same_bake(*both_bakes(write_rig(tmp_path / f"{rig}.glb", rig), monkeypatch))


@pytest.mark.parametrize("up, units", [("z", "m"), ("y", "m"), ("y", "cm")])
def test_generated_bipeds_bake_as_panda3d_gltf_bakes(up, units, tmp_path, monkeypatch):
    path = write_biped(tmp_path / f"biped_{up}_{units}.glb", "-Y", units, up)
    assert_same_bake(*both_bakes(path, monkeypatch))


def test_sparse_single_and_late_keys_bake_as_panda3d_gltf_bakes(tmp_path, monkeypatch):
    """The STEP clip is left out: panda3d-gltf never reaches a STEP channel's final key (its search
    stops before it); its frames are checked against the keys themselves below."""
    reference, fast = (({key: value for key, value in bake.items() if key[0] != "step"})
                       for bake in both_bakes(quad_clips(tmp_path), monkeypatch))
    assert_same_bake(reference, fast)


def test_scale_and_rest_pose_bake_as_panda3d_gltf_bakes(tmp_path, monkeypatch):
    """A scale channel, a joint at a turned and scaled rest pose with no translation keys, an unnamed
    child (CUBICSPLINE, which panda3d-gltf reads as LINEAR over its tangents, is checked by the spec)."""
    path = one_joint_gltf(tmp_path / "scaled.gltf", [("scale", "LINEAR", [0.0, 0.7], [1, 1, 1, 2, 0.5, 1.5])],
                          rest={"translation": [0.3, 1.0, -0.2], "rotation": z_turn(30), "scale": [1, 2, 1]})
    assert_same_bake(*both_bakes(path, monkeypatch))


def test_odd_but_readable_channels_bake_as_panda3d_gltf_bakes(tmp_path, monkeypatch):
    """Quaternion keys that are not unit length (Panda3D divides them out), a STEP channel whose
    first key comes after frame 0, and a second channel on one target (panda3d-gltf bakes the first).
    Each STEP channel's final key repeats the one before, where panda3d-gltf's search stops, and the
    translation's keys lie between frames (a frame a float32 hair before a key gets the key here, the
    key before in panda3d-gltf: tested below)."""
    path = one_joint_gltf(tmp_path / "odd.gltf", [
        ("rotation", "STEP", [0.0, 0.5, 0.9], [2 * v for v in z_turn(90)] + 2 * [0.5 * v for v in z_turn(-40)]),
        ("translation", "STEP", [0.21, 0.41, 0.61, 0.81], [1, 0, 0, 2, 0, 0, 3, 0, 0, 3, 0, 0]),
        ("translation", "LINEAR", [0.0, 1.0], [0, 0, 0, 0, 5, 0])])
    assert_same_bake(*both_bakes(path, monkeypatch))


def test_mannequin_bakes_as_panda3d_gltf_bakes(monkeypatch):
    assert_same_bake(*both_bakes(MANNEQUIN, monkeypatch))


@pytest.mark.slow   # panda3d-gltf's own bake of 76 clips is the oracle: 5 s; .ci/run runs it
@pytest.mark.skipif(KNIGHT is None, reason="../shared/rigs/Knight.glb is not beside the project")
def test_knight_bakes_as_panda3d_gltf_bakes(monkeypatch):
    """The Knight's IK controls sit at pitch +-90 degrees, where float rounding picks heading and roll
    for both bakes: there its HPR tables may be kept whole by one bake and made one value by the other."""
    assert_same_bake(*both_bakes(KNIGHT, monkeypatch), exact_lengths=False)


def test_uneven_keys_from_a_late_first_key_follow_the_straight_lines_between_them(tmp_path):
    """Before the first key the channel holds it; between keys it is numpy's interp through the keys
    as stored (float32); on a key it is that key; the final key (0.9 s, frame 27) ends the clip."""
    tables, frames = fast_tables(quad_clips(tmp_path))[("late", "<skeleton>", "root")]
    assert frames == 28
    stored = np.float32(LATE_KEYS).astype(float)
    frame_times = np.arange(frames) / FPS
    np.testing.assert_allclose(tables[1], np.interp(frame_times, stored, [1, 2, -1, 1]), atol=1e-6)
    np.testing.assert_allclose(tables[0], np.interp(frame_times, stored, [0, 0, 0, 1]), atol=1e-6)
    assert tables[1][:3] == [1.0, 1.0, 1.0] and tables[1][15] == 2.0 and tables[0][-1] == 1.0


def test_step_keys_hold_until_the_next_key_and_the_final_key_is_reached(tmp_path):
    """Every frame holds the last key at or before its time (the glTF spec's STEP), the final key
    included: 1.3 s is frame 39 (the key's float32 time is 1.29999995, a frame's 1.3 a hair after)."""
    tables, frames = fast_tables(quad_clips(tmp_path))[("step", "<skeleton>", "root")]
    assert frames == 40  # ceil(1.3 * 30) frames, and the one reaching the final key
    y = tables[1]
    assert y[:15] == [0.0] * 15  # frames 0..14 (t < 0.5) hold the first key
    assert y[15:39] == [pytest.approx(1.0)] * 24  # 0.5 s (frame 15, on the key) to 1.2667 s hold the second
    assert y[39] == pytest.approx(4.0)  # frame 39 is on the final key: the clip ends where it was keyed


def test_a_step_key_on_a_frame_a_float32_hair_after_it_is_reached(tmp_path):
    """A walk keyed at 0, 0.4, 0.8 and 1.2 s (1.2 is 1.2000000477 in float32, after frame 36's 1.2):
    each key from its frame on, so the clip's last frame holds 1.2 m (the issue's walk held 0.9 m)."""
    path = one_joint_gltf(tmp_path / "walk.gltf", [
        ("translation", "STEP", [0.0, 0.4, 0.8, 1.2], [0, 0, 0, 0, 0, 0.3, 0, 0, 0.9, 0, 0, 1.2])])
    tables, frames = fast_tables(path)[("clip", "<skeleton>", "joint")]
    assert frames == 37
    forward = -np.asarray(tables[1])   # glTF's +Z is Panda3D's -Y
    expected = [0.0] * 12 + [0.3] * 12 + [0.9] * 12 + [1.2]
    np.testing.assert_allclose(forward, expected, atol=1e-6)


def hermite_from_gltf(path, times):
    """The glTF spec's CUBICSPLINE value at each of `times`, read from the file's own bytes: the
    clip's first sampler's keys and its (in-tangent, value, out-tangent) triplets."""
    doc = json.loads(path.read_text())
    binary = base64.b64decode(doc["buffers"][0]["uri"].split(",", 1)[1])

    def floats(index):
        accessor = doc["accessors"][index]
        view = doc["bufferViews"][accessor["bufferView"]]
        width = {"SCALAR": 1, "VEC3": 3, "VEC4": 4}[accessor["type"]]
        data = struct.unpack_from(f"<{accessor['count'] * width}f", binary, view["byteOffset"])
        return [data[i:i + width] for i in range(0, len(data), width)]
    sampler = doc["animations"][0]["samplers"][0]
    keys = [t for (t,) in floats(sampler["input"])]
    triplets = floats(sampler["output"])
    found = []
    for t in times:
        if t >= keys[-1]:
            found.append(triplets[3 * (len(keys) - 1) + 1])
            continue
        k = max(i for i in range(len(keys)) if keys[i] <= t)
        span = keys[k + 1] - keys[k]
        s = (t - keys[k]) / span
        v0, b0 = triplets[3 * k + 1], triplets[3 * k + 2]
        a1, v1 = triplets[3 * (k + 1)], triplets[3 * (k + 1) + 1]
        found.append([(2 * s ** 3 - 3 * s ** 2 + 1) * p0 + span * (s ** 3 - 2 * s ** 2 + s) * m0
                      + (-2 * s ** 3 + 3 * s ** 2) * p1 + span * (s ** 3 - s ** 2) * m1
                      for p0, m0, m1, p1 in zip(v0, b0, a1, v1)])
    return np.array(found)


def test_a_cubic_spline_is_read_by_the_glTF_specs_hermite_formula(tmp_path):
    """A straight walk along glTF's +Z keyed as a CUBICSPLINE (values 0, 0.5, 1.2 m at 0, 0.5, 1.2 s,
    uneven tangents), baked frame by frame: each frame's translation is the spec's Hermite
    interpolation computed here from the file's bytes (panda3d-gltf reads the tangents as values)."""
    keys = [0.0, 0.5, 1.2]
    triplets = [[0, 0, 2.0], [0, 0, 0.0], [0, 0, 1.0],     # in-tangent, value, out-tangent per key
                [0.1, 0, 0.8], [0, 0, 0.5], [0.1, 0, 1.6],
                [0, 0, 0.4], [0, 0, 1.2], [0, 0, -3.0]]
    path = one_joint_gltf(tmp_path / "cubic.gltf", [("translation", "CUBICSPLINE", keys, sum(triplets, []))])
    tables, frames = fast_tables(path)[("clip", "<skeleton>", "joint")]
    assert frames == 37
    expected = hermite_from_gltf(path, np.arange(frames) / FPS)   # glTF x, y, z
    x, y, z = (np.broadcast_to(table, frames) for table in tables[:3])   # a still table is one value
    np.testing.assert_allclose(x, expected[:, 0], atol=2e-6)
    np.testing.assert_allclose(y, -expected[:, 2], atol=2e-6)
    np.testing.assert_allclose(z, expected[:, 1], atol=2e-6)
    assert -tables[1][-1] == pytest.approx(1.2, abs=1e-6) and -tables[1][15] == pytest.approx(0.5, abs=1e-6)
    forward = -np.asarray(tables[1])
    assert (np.diff(forward) > 0).all()   # a straight walk forward, never back to the tangents' values


def test_a_cubic_spline_rotation_is_the_normalised_hermite_quaternion(tmp_path):
    """Rotation keys 0 and 90 degrees about up with zero tangents: the spec's Hermite of the
    quaternions, normalised; a third of the way in the weights are 1 - (3s^2 - 2s^3) and 3s^2 - 2s^3."""
    zero = [0.0, 0.0, 0.0, 0.0]
    path = one_joint_gltf(tmp_path / "turn.gltf", [
        ("rotation", "CUBICSPLINE", [0.0, 1.0], zero + z_turn(0) + zero + zero + z_turn(90) + zero)])
    tables, frames = fast_tables(path)[("clip", "<skeleton>", "joint")]
    s = 10 / 30
    weight = 3 * s ** 2 - 2 * s ** 3
    q = (1 - weight) * np.array(z_turn(0)) + weight * np.array(z_turn(90))
    heading = math.degrees(2 * math.atan2(q[1], q[3]))
    assert frames == 31 and tables[3][10] == pytest.approx(heading, abs=1e-4)
    assert tables[3][30] == pytest.approx(90.0, abs=1e-4) and tables[3][0] == pytest.approx(0.0, abs=1e-4)


def test_a_single_key_holds_for_the_whole_clip_as_one_value(tmp_path):
    baked = fast_tables(quad_clips(tmp_path))
    tables, _ = baked[("single", "<skeleton>", "root")]
    assert tables[:3] == [[pytest.approx(1.0)], [pytest.approx(2.0)], [pytest.approx(3.0)]]
    bone, _ = baked[("single", "<skeleton>", "root", "bone")]
    assert bone[3] == [pytest.approx(90.0, abs=1e-4)]  # the key turns 90 degrees about up


@pytest.mark.parametrize("turn, third", [(90.0, 30.0), (30.0, 10.0), (270.0, -30.0)])
def test_a_turn_is_slerped_at_an_even_angular_speed_the_shorter_way(turn, third, tmp_path):
    """Keys 0 and `turn` degrees about up over 1 s: a third of the way in (frame 10) the heading is a
    third of the turn (a normalised lerp would give 29.28 for 90, 9.975 for 30), and 270 degrees go
    the shorter way, -90; the midpoint (frame 15) is half of it."""
    path = one_joint_gltf(tmp_path / "turn.gltf", [("rotation", "LINEAR", [0.0, 1.0], z_turn(0) + z_turn(turn))])
    tables, frames = fast_tables(path)[("clip", "<skeleton>", "joint")]
    headings = np.asarray(tables[3])
    assert frames == 31 and len(headings) == frames
    assert headings[10] == pytest.approx(third, abs=1e-4)
    assert headings[15] == pytest.approx(1.5 * third, abs=1e-4)


def test_a_small_turn_is_lerped_as_panda3d_gltf_does(tmp_path):
    """3.5 degrees (quaternion dot product 0.99953, above panda3d-gltf's 0.9995): a normalised lerp,
    which a third of the way in lags the even angular speed by 4e-5 degrees."""
    path = one_joint_gltf(tmp_path / "small.gltf", [("rotation", "LINEAR", [0.0, 1.0], z_turn(0) + z_turn(3.5))])
    tables, _ = fast_tables(path)[("clip", "<skeleton>", "joint")]
    half = math.radians(3.5 / 2)
    lerped = 2 * math.degrees(math.atan2(math.sin(half) / 3, 2 / 3 + math.cos(half) / 3))
    assert tables[3][10] == pytest.approx(lerped, abs=5e-6)
    assert abs(lerped - 3.5 / 3) > 3e-5


def test_a_channel_moving_less_than_the_threshold_is_kept_as_one_value(tmp_path):
    """panda3d-gltf keeps a channel as one value when it moves by less than 1e-5 over the clip."""
    path = one_joint_gltf(tmp_path / "tiny.gltf", [("translation", "LINEAR", [0.0, 1.0], [0, 0, 0, 3e-5, 6e-6, 0])])
    tables, frames = fast_tables(path)[("clip", "<skeleton>", "joint")]
    assert len(tables[0]) == frames and tables[0][-1] == pytest.approx(3e-5, abs=1e-9)  # x moves 3e-5
    assert len(tables[2]) == 1  # glTF's y moves 6e-6


def test_joints_without_keys_hold_their_rest_transform(tmp_path):
    """The clip keys only the root: the bone holds its rest offset, 1 up from the root, unturned."""
    bone, frames = fast_tables(quad_clips(tmp_path))[("late", "<skeleton>", "root", "bone")]
    assert frames == 28 and all(len(table) == 1 for table in bone)
    assert [table[0] for table in bone] == pytest.approx([0, 0, 1, 0, 0, 0, 1, 1, 1], abs=1e-6)


def test_an_unknown_interpolation_is_a_load_error_naming_the_channel(base, tmp_path):
    path = one_joint_gltf(tmp_path / "odd.gltf", [("translation", "QUADRATIC", [0.0, 1.0], [0, 0, 0, 1, 0, 0])])
    with pytest.raises(LoadError, match=r"odd.gltf.*joint:translation: interpolation 'QUADRATIC'"):
        load_actor(path)


def test_the_numpy_decomposition_reads_hpr_as_panda3ds_decompose_matrix():
    """Random joint matrices (mirrored scales among them) and the turns where HPR is ambiguous:
    the same x y z h p r i j k as Panda3D's decompose_matrix, up to float32 rounding, except that
    a heading or roll of exactly +-180 degrees may come out with the other sign (the same turn)."""
    rng = np.random.default_rng(20)
    count = 4000
    hprs = rng.uniform(-180, 180, (count, 3))
    hprs[:6] = [(0, 90, 0), (30, -90, 10), (0, 0, 0), (90, 45, -30), (-90, 89.9999, 0), (10, 180, 0)]
    scales = rng.uniform(0.2, 3.0, (count, 3)) * rng.choice([1, -1], (count, 3), p=[0.9, 0.1])
    scales[:6] = 1.0
    positions = rng.normal(size=(count, 3)) * 10
    mats = np.array([[list(TransformState.makePosHprScale(LVecBase3f(*p), LVecBase3f(*h), LVecBase3f(*s))
                            .getMat().getRow(i)) for i in range(4)] for p, h, s in zip(positions, hprs, scales)])
    ours = _gltf_fix._decomposed(mats)
    theirs = np.empty_like(ours)
    scale, hpr, pos = LVecBase3f(), LVecBase3f(), LVecBase3f()
    for row, mat in enumerate(mats):
        decompose_matrix(LMatrix4f(*mat.reshape(16)), scale, hpr, pos)
        theirs[row] = (*pos, *hpr, *scale)
    np.testing.assert_allclose(ours[:, :3], theirs[:, :3], atol=1e-5)
    np.testing.assert_allclose(ours[:, 6:], theirs[:, 6:], atol=1e-5)
    angle_gap = np.abs(ours[:, 3:6] - theirs[:, 3:6])
    np.testing.assert_allclose(np.minimum(angle_gap, 360.0 - angle_gap), 0.0, atol=1e-3)
    flipped = angle_gap > 1.0
    assert np.allclose(np.abs(theirs[:, 3:6][flipped]), 180.0, atol=1e-3)
