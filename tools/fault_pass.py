"""Fault injection for issue 19: every case builds a hostile input (a broken glTF, a FIFO, a game
that misbehaves mid-warp, a full disk, ...) and says what a clean outcome is. Run from the
project root (about 3 minutes; not part of the test suite):

    python -m tools.fault_pass [--list] [NAME_PART ...]

Cases run in a child process, so a native crash or a hang is caught as such: a crash
(the child died), a hang (no answer in HANG_S), a traceback (an exception nobody meant),
a wrong outcome (a message of two lines, a file destroyed, a warp left stuck, ...).
It prints one line per case and `N cases, F failures`; the exit status is 1 on a failure.
"""
import contextlib
import json
import math
import os
import pathlib
import select
import shutil
import stat
import struct
import subprocess
import sys
import tempfile
import time

from motionwarp import samples

ROOT = pathlib.Path(__file__).resolve().parent.parent
SAMPLES = samples.folder()
#: Seconds a case may go without an answer before it counts as a hang (env FAULT_HANG_S).
HANG_S = float(os.environ.get("FAULT_HANG_S", 60.0))
CASES = {}


def case(name):
    def register(function):
        CASES[name] = function
        return function
    return register


class Wrong(Exception):
    """The case ran to the end with an outcome that is not clean."""


def one_line(message, limit=600):
    if not message.isprintable() or len(message) > limit:
        raise Wrong(f"not one short line ({len(message)} chars): {message[:120]!r}")
    return message


def refused(call, error, *words):
    """`call()` must raise `error` with one line that contains each of `words`."""
    try:
        call()
    except error as exc:
        message = one_line(str(exc))
        missing = [w for w in words if w not in message]
        if missing:
            raise Wrong(f"{type(exc).__name__} without {missing}: {message[:200]}") from None
        return f"{type(exc).__name__}: {message[-90:]}"
    raise Wrong("accepted")


def main_py(*args, expect=2, timeout=HANG_S):
    """Run main.py; (exit status, stdout, stderr), the status checked and stderr one line when 2."""
    env = dict(os.environ, DISPLAY="")
    result = subprocess.run([sys.executable, str(ROOT / "main.py"), *args], capture_output=True, text=True,
                            timeout=timeout, cwd=ROOT, env=env)
    if result.returncode != expect:
        raise Wrong(f"exit {result.returncode}, expected {expect}: {result.stderr[-300:]!r}")
    if expect == 2:
        lines = result.stderr.splitlines()
        if len(lines) != 1:
            raise Wrong(f"{len(lines)} lines on stderr: {result.stderr[:300]!r}")
        one_line(lines[0])
    return result


# -- glTF models ---------------------------------------------------------------------------------

def sample(folder, name="hero.glb", clips=None):
    from tests.gltf_samples import two_bone_quad
    step = [("root", "translation", [0.0, 0.5, 1.0], [[0, 0, 0], [0, 1, 0], [0, 2, 0]])]
    return two_bone_quad(folder / name, clips or {"step": step})


def edited_glb(folder, change):
    from tests.gltf_samples import read_glb, write_glb
    doc, binary = read_glb(sample(folder))
    binary = change(doc, binary) or binary
    return write_glb(folder / "edited.glb", doc, binary)


def model_refused(path, *words):
    from motionwarp import LoadError, load_actor
    return refused(lambda: load_actor(path), LoadError, *words)


def _cut(fraction):
    def run(folder):
        path = sample(folder)
        data = path.read_bytes()
        path.write_bytes(data[:max(1, int(len(data) * fraction))])
        return model_refused(path)
    return run


for _fraction in (0.02, 0.1, 0.3, 0.5, 0.7, 0.9, 0.97, 0.995):
    case(f"gltf: a GLB cut at {_fraction:.1%}")(_cut(_fraction))


def _edit(change, *words):
    return lambda folder: model_refused(edited_glb(folder, change), *words)


def _set(path, value):
    """A change that sets doc[path...] = value (path: keys and indices)."""
    def change(doc, binary):
        node = doc
        for key in path[:-1]:
            node = node[key]
        node[path[-1]] = value
    return change


EDITS = {
    "buffer longer than the chunk": (("buffers", 0, "byteLength"), 10**6),
    "buffer length a string": (("buffers", 0, "byteLength"), "12"),
    "view of buffer 5": (("bufferViews", 0, "buffer"), 5),
    "view offset past the buffer": (("bufferViews", 0, "byteOffset"), 10**6),
    "view offset negative": (("bufferViews", 0, "byteOffset"), -4),
    "view stride 1": (("bufferViews", 0, "byteStride"), 1),
    "accessor count 10**12": (("accessors", 0, "count"), 10**12),
    "accessor count 0": (("accessors", 0, "count"), 0),
    "accessor count a float": (("accessors", 0, "count"), 3.5),
    "accessor count true": (("accessors", 0, "count"), True),
    "accessor of view 99": (("accessors", 0, "bufferView"), 99),
    "accessor component type 1": (("accessors", 0, "componentType"), 1),
    "accessor type VEC7": (("accessors", 0, "type"), "VEC7"),
    "accessor sparse": (("accessors", 0, "sparse"), {"count": 1}),
    "node child of itself": (("nodes", 1, "children"), [1]),
    "node child 999": (("nodes", 0, "children"), [999]),
    "node child -1": (("nodes", 0, "children"), [-1]),
    "node children a string": (("nodes", 0, "children"), "1"),
    "node loop": (("nodes", 1, "children"), [0]),
    "node mesh 9": (("nodes", 0, "mesh"), 9),
    "scene node 50": (("scenes", 0, "nodes"), [50]),
    "scene index 3": (("scene",), 3),
    "skin joint 77": (("skins", 0, "joints"), [0, 77]),
    "skin without joints": (("skins", 0, "joints"), []),
    "primitive mode 9": (("meshes", 0, "primitives", 0, "mode"), 9),
    "primitive without attributes": (("meshes", 0, "primitives", 0, "attributes"), {}),
    "primitive indices accessor 999": (("meshes", 0, "primitives", 0, "indices"), 999),
    "mesh without primitives": (("meshes", 0, "primitives"), []),
    "channel sampler 9": (("animations", 0, "channels", 0, "sampler"), 9),
    "channel path 'shear'": (("animations", 0, "channels", 0, "target", "path"), "shear"),
    "channel node 400": (("animations", 0, "channels", 0, "target", "node"), 400),
    "sampler input 999": (("animations", 0, "samplers", 0, "input"), 999),
    "animation without samplers": (("animations", 0, "samplers"), []),
    "asset version 1.0": (("asset", "version"), "1.0"),
    "buffers not a list": (("buffers",), {"0": 1}),
    "texture of image 4": (("textures",), [{"source": 4}]),
}
for _name, (_path, _value) in EDITS.items():
    case(f"gltf: {_name}")(_edit(_set(_path, _value)))


def _times(times):
    def change(doc, binary):
        import struct
        accessor = doc["accessors"][doc["animations"][0]["samplers"][0]["input"]]
        view = doc["bufferViews"][accessor["bufferView"]]
        start = view.get("byteOffset", 0) + accessor.get("byteOffset", 0)
        return binary[:start] + struct.pack("<3f", *times) + binary[start + 12:]
    return change


for _label, _values in {"decreasing": (0, 1, 0.5), "NaN": (0, math.nan, 1), "negative": (-1, 0, 1),
                        "infinite": (0, 1, math.inf)}.items():
    case(f"gltf: key times {_label}")(_edit(_times(_values), "key times"))


@case("gltf: an index past the vertices")
def _(folder):
    def far(doc, binary):
        accessor = doc["accessors"][doc["meshes"][0]["primitives"][0]["indices"]]
        view = doc["bufferViews"][accessor["bufferView"]]
        start = view.get("byteOffset", 0) + accessor.get("byteOffset", 0)
        width = {5121: 1, 5123: 2, 5125: 4}[accessor["componentType"]]
        return binary[:start] + (60000 % 256 ** width).to_bytes(width, "little") + binary[start + width:]
    return model_refused(edited_glb(folder, far), "past the")


@case("gltf: JSON chunk garbage")
def _(folder):
    path = sample(folder)
    data = bytearray(path.read_bytes())
    data[20:30] = b"\xff" * 10
    path.write_bytes(bytes(data))
    return model_refused(path, "JSON")


for _label, _content in {"empty": b"", "one byte": b"g", "random bytes": bytes(range(256)) * 16,
                         "magic only": b"glTF", "header, version 1": b"glTF\x01\x00\x00\x00\x0c\x00\x00\x00"}.items():
    case(f"gltf: a file that is {_label}")(lambda folder, content=_content: (
        (folder / "bad.glb").write_bytes(content), model_refused(folder / "bad.glb"))[1])


def _gltf_with_buffer(folder, make):
    from tests.gltf_samples import read_glb
    doc, binary = read_glb(sample(folder))
    doc["buffers"][0]["uri"] = "hero.bin"
    make(folder / "hero.bin", binary)
    (folder / "hero.gltf").write_text(json.dumps(doc))
    return folder / "hero.gltf"


BUFFER_FILES = {
    "a FIFO": lambda path, data: os.mkfifo(path),
    "/dev/zero": lambda path, data: os.symlink("/dev/zero", path),
    "/dev/urandom": lambda path, data: os.symlink("/dev/urandom", path),
    "a directory": lambda path, data: os.mkdir(path),
    "missing": lambda path, data: None,
    "cut short": lambda path, data: path.write_bytes(data[:len(data) // 2]),
}
for _label, _make in BUFFER_FILES.items():
    case(f"gltf: a buffer file that is {_label}")(lambda folder, make=_make: model_refused(
        _gltf_with_buffer(folder, make), "buffers[0]"))


@case("gltf: a buffer URL")
def _(folder):
    path = _gltf_with_buffer(folder, lambda p, d: p.write_bytes(d))
    doc = json.loads(path.read_text())
    doc["buffers"][0]["uri"] = "http://127.0.0.1:9/hero.bin"
    path.write_text(json.dumps(doc))
    return model_refused(path, "data URI")


@case("gltf: an image that is a FIFO")
def _(folder):
    os.mkfifo(folder / "skin.png")
    return model_refused(edited_glb(folder, _set(("images",), [{"uri": "skin.png"}])), "FIFO")


@case("gltf: an hour-long clip")
def _(folder):
    path = sample(folder, "long.glb", {"hour": [("root", "translation", [0.0, 3600.0], [[0, 0, 0], [0, 1, 0]])]})
    start = time.monotonic()
    message = model_refused(path, "limit")
    if time.monotonic() - start > 3:
        raise Wrong("took more than 3 s to refuse")
    return message


@case("gltf: a model that is a FIFO")
def _(folder):
    os.mkfifo(folder / "hero.glb")
    return model_refused(folder / "hero.glb", "FIFO")


# -- the demo's scene and character -----------------------------------------------------------------

def course(**changes):
    data = json.loads((SAMPLES / "scenes" / "course.json").read_text())
    data.update(changes)
    return data


def scene_with_model(folder, model_name):
    data = course()
    data["obstacles"].append({"name": "rock", "shape": "model", "path": model_name, "pos": [6, 2, 0]})
    (folder / "scene.json").write_text(json.dumps(data))
    os.symlink(SAMPLES / "scenes" / "meshes", folder / "meshes")
    return folder / "scene.json"


@case("main.py: a scene model cut short")
def _(folder):
    path = sample(folder)
    path.write_bytes(path.read_bytes()[:-40])
    main_py("--headless", "--autopilot", "--scene", str(scene_with_model(folder, "hero.glb")))
    return "exit 2, one line"


@case("main.py: a scene model that is a FIFO")
def _(folder):
    os.mkfifo(folder / "rock.glb")
    result = main_py("--headless", "--autopilot", "--scene", str(scene_with_model(folder, "rock.glb")))
    if "FIFO" not in result.stderr:
        raise Wrong(result.stderr)
    return result.stderr.strip()[-80:]


def scene_error(folder, data, *words):
    from motionwarp_demo.level.scene import Scene, SceneError
    (folder / "scene.json").write_text(json.dumps(data))
    with contextlib.suppress(FileExistsError):
        os.symlink(SAMPLES / "scenes" / "meshes", folder / "meshes")
    return refused(lambda: Scene.load(folder / "scene.json"), SceneError, *words)


for _label, _name in {"a line break": "a\nmain.py: fine", "an escape": "\x1b[2J", "a lone surrogate": "\ud800",
                      "a NUL": "a\x00b"}.items():
    case(f"scene: an obstacle name with {_label}")(lambda folder, name=_name: scene_error(
        folder, course(obstacles=[dict(course()["obstacles"][0], name=name)]), "obstacles[0].name"))
    case(f"scene: an unknown key with {_label}")(lambda folder, name=_name: scene_error(
        folder, dict(course(), **{name: 1}), "unknown key"))


@case("scene: a 10,000-character path")
def _(folder):
    from motionwarp_demo.level.scene import Scene, SceneError
    message = refused(lambda: Scene.load("/tmp/" + "d" * 10_000 + "/scene.json"), SceneError)
    if len(message) > 400:
        raise Wrong(f"{len(message)} characters")
    return message


@case("scene: a huge ground")
def _(folder):
    from panda3d.core import NodePath
    from motionwarp_demo.level.world import add_ground
    start = time.monotonic()
    add_ground(NodePath("level"), 1e5)
    if time.monotonic() - start > 3:
        raise Wrong(f"{time.monotonic() - start:.1f} s to build")
    return f"built in {time.monotonic() - start:.2f} s"


def character_file(folder, **changes):
    data = json.loads((SAMPLES / "characters" / "mannequin.json").read_text())
    data.update(model=str(SAMPLES / "assets" / "mannequin.glb"), **changes)
    (folder / "hero.json").write_text(json.dumps(data))
    return folder / "hero.json"


@case("character: a root joint the model lacks")
def _(folder):
    from motionwarp_demo.character.character_file import Character, CharacterError
    return refused(lambda: Character.load(character_file(folder, root_joint="pelvis")).load_actor(), CharacterError,
                   "hero.json", "root_joint")


def laid_out(folder, assets, **changes):
    """characters/hero.json with `assets` (sample names) copied into assets/ beside it (design 5.4)."""
    (folder / "assets").mkdir()
    (folder / "characters").mkdir()
    shutil.copy(SAMPLES / "assets" / "mannequin.glb", folder / "assets")
    for name in assets:
        shutil.copy(SAMPLES / "assets" / f"{name}.warp.json", folder / "assets")
    data = json.loads((SAMPLES / "characters" / "mannequin.json").read_text())
    data.update({"warp_assets": list(assets), **changes})
    (folder / "characters" / "hero.json").write_text(json.dumps(data))
    return folder / "characters" / "hero.json"


@case("main.py: a character with a vault and no mantle asset plays")
def _(folder):
    # a character lists any of the warp assets it has (the Knight has jumps only): no mantle is no error
    main_py("--headless", "--autopilot", "--max-seconds", "1", "--character", str(laid_out(folder, ["vault"])),
            expect=0)
    return "exit 0"


@case("main.py: a character naming a warp asset that is not there")
def _(folder):
    result = main_py("--headless", "--autopilot", "--character", str(laid_out(folder, ["vault"], warp_assets=[
        "vault", "mantle"])))
    if "hero.json: warp_assets[1]" not in result.stderr or "mantle.warp.json does not exist" not in result.stderr:
        raise Wrong(result.stderr)
    return result.stderr.strip()[-80:]


@case("main.py: a character whose feet name a joint the model lacks")
def _(folder):
    result = main_py("--headless", "--autopilot", "--character", str(laid_out(folder, [], feet=["foot_l", "nosuch"])))
    if "hero.json: feet[1]" not in result.stderr or "'nosuch' not found" not in result.stderr:
        raise Wrong(result.stderr)
    return result.stderr.strip()[-80:]


@case("character: a walk that is a single pose")
def _(folder):
    from motionwarp_demo.character.character_file import Character, CharacterError
    move = [("root", "translation", [0.0, 1.0], [[0, 0, 0], [0, 1, 0]])]
    pose = [("root", "translation", [0.0], [[0, 0, 0]])]
    sample(folder, "poser.glb", {"idle": move, "walk": pose, "run": move, "fall": move, "land": move})
    (folder / "poser.json").write_text(json.dumps({"format": "motionwarp.character/1", "model": "poser.glb",
                                                   "clips": {r: r for r in ("idle", "walk", "run", "fall", "land")}}))
    return refused(lambda: Character.load(folder / "poser.json").load_actor(), CharacterError, "clips.walk")


# -- warp assets ---------------------------------------------------------------------------------

def asset_error(folder, change, *words):
    from motionwarp import AssetError, WarpAsset
    data = json.loads((SAMPLES / "assets" / "vault.warp.json").read_text())
    data["model"] = str(SAMPLES / "assets" / "mannequin.glb")
    change(data)
    (folder / "vault.warp.json").write_text(json.dumps(data))
    return refused(lambda: WarpAsset.load(folder / "vault.warp.json"), AssetError, *words)


case("asset: a one-nanosecond phase")(lambda folder: asset_error(
    folder, lambda d: d["phases"][0].update(end=d["phases"][0]["start"] + 1e-9), "phases[0].end", "one clip frame"))
case("asset: phases[1].end past the clip")(lambda folder: asset_error(
    folder, lambda d: d["phases"][1].update(end=99.0), "phases[1].end", "inside the clip"))
case("asset: a clip name with a line break")(lambda folder: asset_error(
    folder, lambda d: d.update(clip="vault\nok"), "clip"))


# -- warps and the game's handlers ----------------------------------------------------------------

_SHOWBASE, _RIG = [], []


def rig():
    """(base, actor, warper, vault asset, targets): a fresh mannequin and warper (the last case's
    removed) on one offscreen ShowBase with a stepped clock."""
    from panda3d.core import ClockObject, loadPrcFileData
    if not _SHOWBASE:
        loadPrcFileData("fault", "window-type offscreen\naudio-library-name null\nwin-size 64 64\n"
                                 "load-display p3headlessgl\nnotify-level-device fatal")
        from direct.showbase.ShowBase import ShowBase
        _SHOWBASE.append(ShowBase())
        clock = ClockObject.getGlobalClock()
        clock.setMode(ClockObject.MNonRealTime)
        clock.setFrameRate(60)
    base = _SHOWBASE[0]
    while _RIG:
        actor, warper = _RIG.pop()
        base.ignoreAll()
        warper.destroy()
        actor.cleanup()
        actor.removeNode()
    from motionwarp import MotionWarper, WarpAsset, load_actor
    from tests.warp_helpers import vault_targets
    actor = load_actor(SAMPLES / "assets" / "mannequin.glb")
    actor.reparentTo(base.render)
    warper = MotionWarper(actor, taskmgr=base.taskMgr, render=base.render)
    _RIG.append((actor, warper))
    return base, actor, warper, WarpAsset.load(SAMPLES / "assets" / "vault.warp.json"), vault_targets(1.0, 0.6, 1.0)


def frames(base, count, catch=()):
    raised = []
    for _ in range(count):
        try:
            base.taskMgr.step()
        except catch as exc:
            raised.append(exc)
    return raised


def must_end(warper, warp, reason_part=None, events=None):
    from motionwarp import WarpState
    if warper.is_warping or warp.state is not WarpState.ENDED:
        raise Wrong(f"the warp is still {warp.state.value}")
    if reason_part is not None and not any(reason_part in str(e) for e in events):
        raise Wrong(f"no cancel saying {reason_part!r}: {events}")
    return f"ended; {events[-1] if events else ''}"[:100]


def heard(base, event):
    seen = []
    base.accept(event, lambda *args: seen.append(args[-1]))
    return seen


def _game_stops_clip(stop, reason_part):
    def run(folder):
        base, actor, warper, vault, targets = rig()
        cancels = heard(base, "motionwarp-cancelled")
        warp = warper.play(vault, targets)
        frames(base, 10)
        stop(actor)
        frames(base, 5)
        return must_end(warper, warp, reason_part, cancels)
    return run


case("warp: the game stops the clip")(_game_stops_clip(lambda actor: actor.stop("vault"), "stopped"))
case("warp: the game sets play rate 0")(_game_stops_clip(lambda actor: actor.setPlayRate(0, "vault"), "rate 0"))


@case("warp: a followed node scaled to 0")
def _(folder):
    from motionwarp import WarpTarget
    base, actor, warper, vault, targets = rig()
    cancels = heard(base, "motionwarp-cancelled")
    platform = base.render.attachNewNode("platform")
    warp = warper.play(vault, [WarpTarget(t.pos, h=t.h, follow=platform) for t in targets])
    frames(base, 10)
    platform.setScale(0)
    lowest = actor.getZ()
    for _ in range(200):
        frames(base, 1)
        lowest = min(lowest, actor.getZ())
    if lowest < -0.01:
        raise Wrong(f"the character sank to {lowest:.2f} m")
    return must_end(warper, warp, "scaled to nothing", cancels)


@case("warp: rate=True")
def _(folder):
    from motionwarp import UsageError
    base, actor, warper, vault, targets = rig()
    return refused(lambda: warper.play(vault, targets, rate=True), UsageError, "rate")


@case("warp: h=1e39")
def _(folder):
    from motionwarp import WarpRefused, WarpTarget
    base, actor, warper, vault, targets = rig()
    targets[1] = WarpTarget(targets[1].pos, h=1e39)
    return refused(lambda: warper.play(vault, targets), WarpRefused, "target of phase")


def _providers_on_a_level(base):
    """(level, its bench (a prop with a seat marker), the chooser over traversal, jumps and markers, its
    marker provider)."""
    from motionwarp import InteractionChooser, JumpProvider, MarkerProvider, SceneProbe, TraversalProvider, WarpAsset
    assets = [WarpAsset.load(path) for path in sorted((SAMPLES / "assets").glob("*.warp.json"))]
    level = base.render.attachNewNode("level")
    bench = base.loader.loadModel(str(SAMPLES / "scenes" / "props" / "bench.glb"))
    bench.reparentTo(level)
    bench.setPos(0, 1.5, 0)
    probe = SceneProbe.from_geometry(level)
    markers = MarkerProvider(probe, level, assets)
    return level, bench, InteractionChooser([TraversalProvider(probe, assets), JumpProvider(probe, assets),
                                             markers]), markers


@case("providers: the level removed under them")
def _(folder):
    base, actor, warper, vault, targets = rig()
    level, bench, chooser, markers = _providers_on_a_level(base)
    if not markers.markers:
        raise Wrong("the bench's seat marker was not found")
    bench.removeNode()
    found = markers.find(actor)
    if found:
        raise Wrong(f"a removed prop's marker was offered: {found.node}")
    level.removeNode()
    chooser.find(actor)
    markers.refresh()
    return one_line(f"{markers.find(actor).reason}; {len(markers.markers)} markers after refresh()")


@case("providers: a removed actor")
def _(folder):
    base, actor, warper, vault, targets = rig()
    level, _, chooser, markers = _providers_on_a_level(base)
    actor.cleanup()
    actor.removeNode()
    answers = [asked.find(actor) for asked in [chooser] + chooser.providers]
    if any(answers) or {answer.reason for answer in answers} != {"the actor was removed"}:
        raise Wrong(f"not refused as removed: {[answer.reason for answer in answers]}")
    level.removeNode()
    return one_line(answers[0].reason)


@case("markers: kinds typed 'Sit ' and 5")
def _(folder):
    from motionwarp import MARKER_TAG, MarkerProvider, SceneProbe, WarpAsset
    base, actor, warper, vault, targets = rig()
    root = base.render.attachNewNode("marked")
    for name, kind in (("seat", "Sit "), ("grab", "5")):
        root.attachNewNode(name).setTag(MARKER_TAG, kind)
    provider = MarkerProvider(SceneProbe.from_geometry(root), root, [WarpAsset.load(SAMPLES / "assets" / "sit.warp.json")])
    root.removeNode()
    named = [problem for problem in provider.problems if MARKER_TAG in problem]
    if len(named) != 2 or not all(name in " ".join(named) for name in ("seat", "grab", "'Sit '", "'5'")):
        raise Wrong(f"not both reported with node and tag: {provider.problems}")
    return one_line(named[0])


for _event in ("motionwarp-phase-start", "motionwarp-phase-end", "motionwarp-finished"):
    @case(f"warp: a {_event} handler raises")
    def _(folder, event=_event):
        base, actor, warper, vault, targets = rig()

        class GameBug(Exception):
            pass

        def broken(*args):
            raise GameBug("the game's bug")
        base.accept(event, broken)
        warp = warper.play(vault, targets)
        raised = frames(base, 400, GameBug)
        base.ignore(event)
        if not raised:
            raise Wrong("the game's exception never reached the game loop")
        if len(warp.results) != len(vault.phases):
            raise Wrong(f"only {len(warp.results)} phases finished")
        return must_end(warper, warp) + f"; {len(raised)} raised to the loop"


@case("warp: a refused play() in a phase-end handler")
def _(folder):
    from motionwarp import WarpRefused, WarpTarget
    base, actor, warper, vault, targets = rig()
    base.accept("motionwarp-phase-end", lambda *a: warper.play(vault, [WarpTarget((0, 50, 0))]))
    warp = warper.play(vault, targets)
    frames(base, 400, WarpRefused)
    base.ignore("motionwarp-phase-end")
    if len(warp.results) != len(vault.phases):
        raise Wrong(f"the running warp was cut after {len(warp.results)} phases")
    return must_end(warper, warp)


@case("warp: a cancel handler plays while play() replaces")
def _(folder):
    from motionwarp import WarpRefused
    base, actor, warper, vault, targets = rig()
    warper.play(vault, targets)
    frames(base, 5)
    started = []
    base.accept("motionwarp-cancelled", lambda *a: started.append(warper.play(vault, targets)) if not started else None)
    with contextlib.suppress(WarpRefused):
        warper.play(vault, targets)
    base.ignore("motionwarp-cancelled")
    frames(base, 400)
    return must_end(warper, started[0])



for _field, _value, _words in (("rotation", "sideways", ("phases[0].rotation", "'facing'")),
                               ("max_turn_rate", -1, ("phases[0].max_turn_rate", "null: no limit")),
                               ("switch_off_angle", 200, ("phases[0].switch_off_angle", "180")),
                               ("max_speed", 0, ("phases[0].max_speed", "metres per second"))):
    case(f"asset: phases[0].{_field} = {_value!r}")(lambda folder, field=_field, value=_value, words=_words: asset_error(
        folder, lambda d: d["phases"][0].update({field: value}), *words))
case("asset: a surface contact given a phase")(lambda folder: asset_error(
    folder, lambda d: d["contacts"][0].update(phase=d["phases"][0]["name"]), "contacts[0].phase", "surface"))


@case("warp: PathCheck and mirror_clip given the wrong types")
def _(folder):
    from motionwarp import PathCheck, SceneProbe, UsageError, mirror_clip
    base, actor, warper, vault, targets = rig()
    probe = SceneProbe.from_geometry(base.render)
    answers = [refused(lambda: PathCheck(probe, "0.3", 1.8), UsageError, "radius"),
               refused(lambda: PathCheck("probe", 0.3, 1.8), UsageError, "probe"),
               refused(lambda: PathCheck(probe, 0.3, 1.8, ignore="crate"), UsageError, "ignore"),
               refused(lambda: warper.play(vault, targets, path_check="capsule"), UsageError, "path_check"),
               refused(lambda: mirror_clip("hero", "vault"), UsageError, "mirror_clip"),
               refused(lambda: mirror_clip(actor, "vault", "left"), UsageError, "mirror table")]
    if warper.is_warping:
        raise Wrong("a refused play() started a warp")
    return answers[-1]


def _batch_of_two(base, vault, targets):
    """(batch, [(actor, warper)] x 2): two mannequins vaulting in one WarpBatch, the rig's first among them."""
    from motionwarp import MotionWarper, WarpBatch, load_actor
    pairs = [_RIG[0]]
    other = load_actor(SAMPLES / "assets" / "mannequin.glb")
    other.reparentTo(base.render)
    other.setX(3)
    pairs.append((other, MotionWarper(other, taskmgr=base.taskMgr, render=base.render)))
    batch = WarpBatch(base.taskMgr)
    for index, (actor, warper) in enumerate(pairs):
        batch.add(warper)
        warper.play(vault, [type(t)(t.pos + (3 * index, 0, 0), h=t.h) for t in targets])
    return batch, pairs


def _batch_handler_case(action):
    def run(folder):
        base, _actor, _warper, vault, targets = rig()
        batch, pairs = _batch_of_two(base, vault, targets)
        (mine, my_warper), (other, other_warper) = pairs
        done = []
        base.accept("motionwarp-phase-end", lambda *a: done or done.append(action(batch, other, other_warper)))
        try:
            frames(base, 400)
            left = len(batch.warpers)
        finally:
            base.ignore("motionwarp-phase-end")
            batch.destroy()
            other_warper.destroy()
            if not other.isEmpty():
                other.cleanup()
                other.removeNode()
        if my_warper.is_warping or abs(mine.getZ()) > 0.01:
            raise Wrong(f"the uninvolved character was left at z {mine.getZ():.2f} m")
        return f"the uninvolved one finished on the ground; {left} left in the batch"
    return run


case("batch: a handler removes another character's actor")(_batch_handler_case(
    lambda batch, actor, warper: (actor.cleanup(), actor.removeNode())))
case("batch: a handler removes another warper from the batch")(_batch_handler_case(
    lambda batch, actor, warper: batch.remove(warper)))


@case("batch: a second remove and add(actor)")
def _(folder):
    from motionwarp import UsageError, WarpBatch
    base, actor, warper, _vault, _targets = rig()
    batch = WarpBatch(base.taskMgr)
    try:
        refused(lambda: batch.add(actor), UsageError, "expected a MotionWarper")
        batch.add(warper)
        batch.remove(warper)
        return refused(lambda: batch.remove(warper), UsageError, "not in this batch")
    finally:
        batch.destroy()


@case("warp: the clock reset mid-vault")
def _(folder):
    from panda3d.core import ClockObject
    base, actor, warper, vault, targets = rig()
    cancels = heard(base, "motionwarp-cancelled")
    warp = warper.play(vault, targets)
    frames(base, 30)
    ClockObject.getGlobalClock().reset()
    frames(base, 3)
    held = actor.getPos()
    frames(base, 120)
    if (actor.getPos() - held).length() > 0.01:
        raise Wrong(f"the clip went on moving the character {(actor.getPos() - held).length():.2f} m")
    return must_end(warper, warp, "clock went back", cancels)


@case("main.py: a spawn under the kill plane")
def _(folder):
    data = course()
    data["spawn"]["pos"] = [0, 0, -1000]
    (folder / "meshes").symlink_to(SAMPLES / "scenes" / "meshes")
    (folder / "scene.json").write_text(json.dumps(data))
    result = main_py("--headless", "--autopilot", "--scene", str(folder / "scene.json"))
    if "spawn.pos" not in result.stderr:
        raise Wrong(f"spawn.pos not named: {result.stderr[:200]!r}")
    return result.stderr.strip()[-90:]


@case("main.py: a fall 100 km from the origin")
def _(folder):
    data = course()
    data["spawn"]["pos"] = [0, 0, 100000]
    (folder / "meshes").symlink_to(SAMPLES / "scenes" / "meshes")
    (folder / "scene.json").write_text(json.dumps(data))
    result = main_py("--headless", "--autopilot", "--scene", str(folder / "scene.json"), "--max-seconds", "2", expect=0)
    if "Traceback" in result.stderr or "simulated" not in result.stdout:
        raise Wrong(f"the fall did not run: {result.stderr[-300:]!r}")
    return result.stdout.strip()[-90:]


@case("main.py: --window-size 100x100 and 800")
def _(folder):
    answers = [main_py("--window-size", size).stderr.strip() for size in ("100x100", "800")]
    if not all("--window-size" in answer for answer in answers):
        raise Wrong(f"the option is not named: {answers}")
    return answers[-1][-90:]

# -- outputs ---------------------------------------------------------------------------------------

def output_kept(folder, make, is_kind, option="--report"):
    out = folder / ("out.png" if option == "--screenshot" else "out.json")
    make(out)
    main_py("--headless", "--autopilot", "--max-seconds", "0.1", option, str(out))
    if not is_kind(os.lstat(out).st_mode):
        raise Wrong("what was at the path was replaced")
    return "kept, exit 2"


case("main.py: --report onto a FIFO")(lambda folder: output_kept(folder, os.mkfifo, stat.S_ISFIFO))
# A device node of the case's own, and a link to it: never /dev/null itself, which code that
# replaces what a link names would replace for the whole machine when run as root.
case("main.py: --report onto a device")(lambda folder: output_kept(
    folder, lambda p: os.mknod(p, 0o666 | stat.S_IFCHR, os.makedev(1, 3)), stat.S_ISCHR))
case("main.py: --report onto a link to a device")(lambda folder: output_kept(
    folder, lambda p: (os.mknod(folder / "null", 0o666 | stat.S_IFCHR, os.makedev(1, 3)), os.symlink(folder / "null", p)),
    lambda mode: stat.S_ISLNK(mode) and stat.S_ISCHR(os.stat(folder / "null").st_mode)))
case("main.py: --report onto a directory")(lambda folder: output_kept(folder, os.mkdir, stat.S_ISDIR))
case("main.py: --screenshot onto a FIFO")(lambda folder: output_kept(folder, os.mkfifo, stat.S_ISFIFO,
                                                                      "--screenshot"))


@case("main.py: --report and --screenshot on one file")
def _(folder):
    (folder / "x.png").write_bytes(b"old")
    main_py("--headless", "--autopilot", "--report", str(folder / "x.png"), "--screenshot", str(folder / "x.png"))
    if (folder / "x.png").read_bytes() != b"old":
        raise Wrong("the file was written")
    return "refused, exit 2"


case("main.py: --at without --screenshot")(lambda folder: main_py("--headless", "--autopilot", "--at", "2") and "exit 2")


@case("outputs: a full disk keeps the old report and screenshot")
def _(folder):
    from motionwarp_demo.app.cli import save_screenshot
    from motionwarp.base.atomicfile import write_text_atomic
    disk = folder / "disk"
    disk.mkdir()
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(disk)], capture_output=True).returncode:
        raise Wrong("cannot mount a tmpfs here (run as root)")
    try:
        (disk / "old.json").write_text("old")
        (disk / "old.png").write_bytes(b"old")
        with open(disk / "filler", "wb", buffering=0) as filler, contextlib.suppress(OSError):
            while True:
                filler.write(b"\0" * 1024)
        base = rig()[0]
        base.win.setActive(True)
        for call in (lambda: write_text_atomic(disk / "old.json", "x" * 200_000),
                     lambda: save_screenshot(base.win, str(disk / "old.png"))):
            try:
                call()
            except OSError:
                pass
            else:
                raise Wrong("a write onto a full disk reported success")
        if (disk / "old.json").read_text() != "old" or (disk / "old.png").read_bytes() != b"old":
            raise Wrong("an old file was lost")
        return "both kept"
    finally:
        subprocess.run(["umount", str(disk)])


# -- the tools: inspect and author ----------------------------------------------------------------

def tool(folder, *args, expect=2, stdout=subprocess.PIPE):
    """Run `python -m motionwarp ARGS` in `folder`; the result, its status checked, stderr one line when 2."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    result = subprocess.run([sys.executable, "-m", "motionwarp", *map(str, args)], stdout=stdout,
                            stderr=subprocess.PIPE, text=True, timeout=HANG_S, cwd=folder, env=env)
    if result.returncode != expect:
        raise Wrong(f"exit {result.returncode}, expected {expect}: {result.stderr[-300:]!r}")
    if expect == 2:
        lines = result.stderr.splitlines()
        if len(lines) != 1:
            raise Wrong(f"{len(lines)} lines on stderr: {result.stderr[:300]!r}")
        one_line(lines[0])
    return result


def files(folder):
    """{name: bytes} of the regular files in `folder` and below (what a refusal must leave alone)."""
    return {path.relative_to(folder): path.read_bytes() for path in folder.rglob("*") if path.is_file()}


def tool_kept(*args, words=(), make=None):
    """A case: the tool refuses `args` (MODEL stands for a copy of the mannequin) in one line with each
    of `words`, and every file in the folder is as it was."""
    def run(folder):
        model = folder / "hero.glb"
        shutil.copy(SAMPLES / "assets" / "mannequin.glb", model)
        if make is not None:
            make(folder)
        before = files(folder)
        result = tool(folder, *[model if a == "MODEL" else a for a in args])
        missing = [w for w in words if w not in result.stderr]
        if missing:
            raise Wrong(f"no {missing} in {result.stderr.strip()}")
        if files(folder) != before:
            raise Wrong("a file was written or changed")
        return result.stderr.strip()[-90:]
    return run


def _character(folder, **changes):
    data = json.loads((SAMPLES / "characters" / "mannequin.json").read_text())
    data.update({"model": "../hero.glb", "warp_assets": [], **changes})
    (folder / "characters").mkdir()
    (folder / "assets").mkdir()
    (folder / "characters" / "hero.json").write_text(json.dumps(data))


VAULT = ("author", "MODEL", "vault", "--kind", "vault")
case("author: --out onto its own model")(tool_kept(*VAULT, "--out", "MODEL", words=("the model this command reads",)))
case("author: --out onto a symlink to its model")(tool_kept(
    *VAULT, "--out", "link.glb", make=lambda f: os.symlink(f / "hero.glb", f / "link.glb"), words=("never writes",)))
case("author: --out onto a hard link to its model")(tool_kept(
    *VAULT, "--out", "hard.glb", make=lambda f: os.link(f / "hero.glb", f / "hard.glb"), words=("never writes",)))
case("inspect: --write-character onto its own model")(tool_kept(
    "inspect", "MODEL", "--write-character", "MODEL", words=("the model this command reads",)))
case("inspect: --write-asset onto its own model")(tool_kept(
    "inspect", "MODEL", "--write-asset", "vault", "./hero.glb", words=("the model this command reads",)))
for _command in (("author", "MODEL", "vault", "--kind", "vault", "--out", "MODEL"),
                 ("inspect", "MODEL", "--write-character", "MODEL")):
    case(f"{_command[0]}: {_command[-2]} onto its own read-only model")(tool_kept(
        *_command, make=lambda f: os.chmod(f / "hero.glb", 0o444), words=("the model this command reads",)))
case("inspect: --write-asset and --write-character on one file")(tool_kept(
    "inspect", "MODEL", "--write-asset", "vault", "x.json", "--write-character", "x.json",
    words=("writes that file already",)))
case("author: --out and --character on one file")(tool_kept(
    *VAULT, "--out", "characters/hero.json", "--character", "characters/hero.json", make=_character,
    words=("--out writes that file already",)))
case("author: --character outside the layout writes nothing")(tool_kept(
    *VAULT, "--out", "assets/v.warp.json", "--character", "elsewhere.json",
    make=lambda f: (_character(f), shutil.copy(f / "characters" / "hero.json", f / "elsewhere.json")),
    words=("warp_assets are *.warp.json under",)))
for _label, _value in (("a string", "vault"), ("null", None), ("an object", {"vault": 1})):
    case(f"author: --character whose warp_assets is {_label}")(tool_kept(
        *VAULT, "--out", "assets/v.warp.json", "--character", "characters/hero.json",
        make=lambda f, v=_value: _character(f, warp_assets=v), words=("hero.json: warp_assets: expected a list",)))
case("author: --depth -1 -0.5")(tool_kept(*VAULT, "--out", "v.warp.json", "--depth", "-1", "-0.5",
                                          words=("--depth LO HI: expected", "got -1 -0.5")))
case("author: --height nan 1")(tool_kept(*VAULT, "--out", "v.warp.json", "--height", "nan", "1",
                                         words=("--height LO HI: expected",)))
case("author: --out through a file where a folder should be")(tool_kept(
    *VAULT, "--out", "hero.glb/v.warp.json", words=("is not a folder",)))


@case("author: a read-only --out is kept, the asset goes beside it")
def _(folder):
    shutil.copy(SAMPLES / "assets" / "mannequin.glb", folder / "hero.glb")
    (folder / "v.warp.json").write_text("mine")
    os.chmod(folder / "v.warp.json", 0o444)
    result = tool(folder, *VAULT[:1], "hero.glb", *VAULT[2:], "--out", "v.warp.json", expect=0)
    if (folder / "v.warp.json").read_text() != "mine":
        raise Wrong("the read-only file was replaced")
    if "v.edited.warp.json" not in result.stdout or not (folder / "v.edited.warp.json").is_file():
        raise Wrong(f"no v.edited.warp.json: {result.stdout[-200:]!r}")
    return "kept; wrote v.edited.warp.json"


@case("author: --out in a folder that does not exist yet")
def _(folder):
    shutil.copy(SAMPLES / "assets" / "mannequin.glb", folder / "hero.glb")
    tool(folder, "author", "hero.glb", "vault", "--kind", "vault", "--out", "new/deeper/v.warp.json", expect=0)
    if not (folder / "new" / "deeper" / "v.warp.json").is_file():
        raise Wrong("not written")
    return "folders made, exit 0"


@case("inspect: standard output closed before it prints")
def _(folder):
    shutil.copy(SAMPLES / "assets" / "mannequin.glb", folder / "hero.glb")
    read, write = os.pipe()
    os.close(read)
    try:
        result = tool(folder, "inspect", "hero.glb", "--write-character", "c.json", stdout=write)
    finally:
        os.close(write)
    if "standard output was closed" not in result.stderr or not (folder / "c.json").is_file():
        raise Wrong(result.stderr)
    return result.stderr.strip()


@case("glTF: a NaN key value")
def _(folder):
    def nan(doc, binary):
        accessor = doc["accessors"][doc["animations"][0]["samplers"][0]["output"]]
        start = doc["bufferViews"][accessor["bufferView"]].get("byteOffset", 0) + accessor.get("byteOffset", 0)
        return binary[:start + 16] + struct.pack("<f", math.nan) + binary[start + 20:]
    return model_refused(edited_glb(folder, nan), "animations[0] ('step').channels[0]", "not finite")


@case("glTF: a skin no clip moves is 'no animations'")
def _(folder):
    def bare(doc, binary):
        doc.pop("animations")
        for node in doc["nodes"]:
            node.pop("mesh", None)
            node.pop("skin", None)
    return model_refused(edited_glb(folder, bare), "has no animations")


@case("glTF: a STEP walk reaches its last key")
def _(folder):
    from motionwarp import load_actor
    keys = [0.0, 0.4, 0.8, 1.2]
    actor = load_actor(sample(folder, "walk.glb", {"walk": [("root", "translation", keys, [[0, 0, 0], [0, 0.3, 0],
                                                                                          [0, 0.9, 0], [0, 1.2, 0]],
                                                             "STEP")]}))
    actor.pose("walk", actor.getNumFrames("walk") - 1)
    actor.update(force=True)
    y = actor.exposeJoint(None, "modelRoot", "root").getY(actor)
    if abs(y - 1.2) > 1e-4:
        raise Wrong(f"the last frame holds {y:.3f} m, keyed 1.2")
    return f"last frame at {y:.3f} m"


# -- the world's edge -------------------------------------------------------------------------------

@case("main.py: the autopilot walks off the ground")
def _(folder):
    data = course(ground={"size": [6, 6]}, spawn={"pos": [0, 0, 0], "h": 0}, autopilot=[[0, 0], [0, 40]],
                  obstacles=[{"name": "stool", "shape": "box", "pos": [-2.5, -2.5, 0], "size": [0.4, 0.4, 0.4]}])
    (folder / "edge.json").write_text(json.dumps(data))
    main_py("--headless", "--autopilot", "--scene", str(folder / "edge.json"), "--report", str(folder / "r.json"),
            "--max-seconds", "30", expect=0)
    report = json.loads((folder / "r.json").read_text())
    if not report["stopped"] or "fell off the world" not in report["stopped"]["reason"]:
        raise Wrong(f"stopped: {report['stopped']}")
    if report["sim_seconds"] > 10:
        raise Wrong(f"the run went on for {report['sim_seconds']} s")
    return report["stopped"]["reason"]


# -- running ---------------------------------------------------------------------------------------

def child(names):
    """Run the named cases here, one result line each, flushed as it comes."""
    sys.path.insert(0, str(ROOT))
    for name in names:
        folder = pathlib.Path(tempfile.mkdtemp(prefix="fault-"))
        try:
            outcome, detail = "ok", CASES[name](folder)
        except Wrong as wrong:
            outcome, detail = "wrong", str(wrong)
        except BaseException as exc:   # a traceback the input should never cause
            outcome, detail = "traceback", f"{type(exc).__name__}: {exc}"
        finally:
            shutil.rmtree(folder, ignore_errors=True)
        print(f"RESULT\t{name}\t{outcome}\t{str(detail)[:200]!r}", flush=True)


def run(names):
    """Each case in a child; a crash or hang is blamed on the case in progress and the rest go on."""
    results, left = {}, list(names)
    while left:
        process = subprocess.Popen([sys.executable, "-m", "tools.fault_pass", "--child", *left], cwd=ROOT,
                                   stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        deadline = time.monotonic() + HANG_S
        while left:
            ready, _, _ = select.select([process.stdout], [], [], max(0.0, deadline - time.monotonic()))
            if not ready:
                process.kill()
                _report(results, left.pop(0), "hang", f"no answer in {HANG_S:g} s")
                break
            line = process.stdout.readline()
            if not line:
                _report(results, left.pop(0), "crash", f"the process died (exit status {process.wait()})")
                break
            if line.startswith("RESULT\t"):
                _, name, outcome, detail = line.rstrip("\n").split("\t", 3)
                left.remove(name)
                _report(results, name, outcome, detail)
                deadline = time.monotonic() + HANG_S
        process.stdout.close()
        with contextlib.suppress(ProcessLookupError):
            process.kill()
        process.wait()
    return results


def _report(results, name, outcome, detail):
    results[name] = (outcome, detail)
    print(f"{'ok  ' if outcome == 'ok' else 'FAIL'} {name}: {outcome} {detail}", flush=True)


def main(argv):
    if argv[:1] == ["--child"]:
        child(argv[1:])
        return 0
    parts = [part for part in argv if part != "--list"]
    names = [n for n in CASES if not parts or any(part in n for part in parts)]
    if "--list" in argv:
        print("\n".join(names))
        return 0
    results = run(names)
    failures = [n for n, (outcome, _) in results.items() if outcome != "ok"]
    for name in failures:
        print(f"failed: {name}: {results[name]}")
    print(f"{len(results)} cases, {len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
