"""Small rigs for the marker tests: a `root` that walks in and a `bone` 1 m above it that stands for the
hand or the hips, as glTF files and warp assets written here (the oracle knows every key)."""
import json
import math

from direct.showbase.DirectObject import DirectObject

from motionwarp import MotionWarper, WarpAsset

from .conftest import step

from .gltf_samples import two_bone_quad

#: The bone's height above the root (two_bone_quad's rest pose): what lands on a marker.
BONE_UP = 1.0
#: The reach: the root walks 1 m/s along +Y for 1.2 s; its phase `hand` ends at 0.9 s.
REACH_END = 0.9
#: The sit: walks 1 m in while turning 180 degrees (by 1.0 s), holds, then walks 0.5 m away (1.4 to 1.9 s).
SIT_SEAT_END, SIT_STAND = 1.0, (1.4, 1.9)


def _heading_quat(h):
    half = math.radians(h) / 2
    return [math.cos(half), 0.0, 0.0, math.sin(half)]


def write_rigs(folder):
    """Write reach.glb / sit.glb and their assets; returns {kind: WarpAsset}."""
    reach = two_bone_quad(folder / "reach.glb", {"reach": [
        ("root", "translation", [0.0, 1.2], [[0, 0, 0], [0, 1.2, 0]])]})
    sit = two_bone_quad(folder / "sit.glb", {"sit": [
        ("root", "translation", [0.0, 1.0, 1.4, 2.0], [[0, 0, 0], [0, 1, 0], [0, 1, 0], [0, 0.4, 0]]),
        ("root", "rotation", [0.0, 0.5, 1.0, 2.0], [_heading_quat(0), _heading_quat(90), _heading_quat(180),
                                                      _heading_quat(180)])]})
    assets = {
        "use": _asset(folder, reach, "reach", {"kind": "use", "height": [0.5, 1.5], "distance": [0.3, 2.5]},
                      [{"name": "hand", "start": 0.0, "end": REACH_END, "align_joint": "bone",
                        "min_rate": 0.3, "max_rate": 3.0}]),
        "sit": _asset(folder, sit, "sit", {"kind": "sit", "height": [0.5, 1.5]},
                      [{"name": "seat", "start": 0.0, "end": SIT_SEAT_END, "align_joint": "bone",
                        "min_rate": 0.3, "max_rate": 3.0},
                       {"name": "stand", "start": SIT_STAND[0], "end": SIT_STAND[1], "min_rate": 0.3, "max_rate": 3.0}]),
    }
    return assets


def _asset(folder, model, clip, traversal, phases):
    path = folder / f"{clip}.warp.json"
    path.write_text(json.dumps({"format": "motionwarp.asset/1", "model": str(model), "clip": clip,
                                "root_joint": "root", "traversal": traversal, "phases": phases}))
    return WarpAsset.load(path)


#: The running jump: takes off at 0.5 s (the root 0.1 m before the edge), lands at 1.1 s 2.0 m past
#: the take-off target, 0.5 m high at the top of the flight.
JUMP_RUN = 2.0


def write_jump(folder):
    """jump.glb and its two assets (the same clip across gaps and onto ledges); returns {kind: WarpAsset}."""
    jump = two_bone_quad(folder / "jump.glb", {"jump": [
        ("root", "translation", [0.0, 0.5, 0.8, 1.1, 1.5],
         [[0, 0, 0], [0, 1.0, 0], [0, 2.0, 0.5], [0, 3.1, 0], [0, 3.7, 0]])]})
    phases = [{"name": "take_off", "start": 0.0, "end": 0.5, "t_offset": [0, -0.1, 0], "min_rate": 0.3, "max_rate": 3.0},
              {"name": "landing", "start": 0.5, "end": 1.1, "min_rate": 0.5, "max_rate": 2.0}]
    gap = _asset(folder, jump, "jump", {"kind": "jump_gap", "height": [-0.5, 0.5], "depth": [0.5, 2.5]}, phases)
    path = folder / "jump_onto.warp.json"
    data = json.loads((folder / "jump.warp.json").read_text())
    data["traversal"] = {"kind": "jump_onto", "height": [0.4, 1.0], "depth": [0.6, 50.0]}
    path.write_text(json.dumps(data))
    return {"jump_gap": gap, "jump_onto": WarpAsset.load(path)}


def read_at_phase_ends(base, actor, asset, targets, fps, read):
    """Play `asset` on `targets` and step at `fps` until it ends; returns {phase name: read()} taken
    from the Actor as each phase ends (the warper first puts it where the phase ended)."""
    warper = MotionWarper(actor, taskmgr=base.taskMgr, render=base.render)
    seen, listener = {}, DirectObject()
    listener.accept("motionwarp-phase-end", lambda w, name, index: seen.setdefault(name, read()))
    try:
        warper.play(asset, targets)
        for _ in range(int(6 * fps)):
            step(base, 1.0 / fps)
            if not warper.is_warping:
                break
    finally:
        listener.ignoreAll()
        warper.destroy()
    return seen
