"""Shared fixtures: one offscreen ShowBase with a clock the tests step by hand."""
import atexit
import json
import os
import pathlib
import shutil
import tempfile

import pytest
from hypothesis import Phase, settings
from panda3d.core import ClockObject, loadPrcFileData

from motionwarp import samples

ROOT = pathlib.Path(__file__).resolve().parent.parent
SAMPLES = samples.folder()   # the package's own sample data, as a user's program reaches it
ASSETS = SAMPLES / "assets"
MANNEQUIN = ASSETS / "mannequin.glb"
CONTACTS = ASSETS / "mannequin.contacts.json"
WARP_ASSETS = ("vault", "mantle", "mantle_high")
#: The interactions' assets (issue 17); the mannequin character plays both sets (characters/mannequin.json).
INTERACTION_ASSETS = ("pick_up", "pick_up_table", "use", "sit", "jump_gap", "jump_onto")

# The loader stores its bakes in Panda3D's model cache: the glTF files the tests write must not
# fill the user's cache folder, so this run gets its own (set before anything is loaded).
_MODEL_CACHE = tempfile.mkdtemp(prefix="motionwarp-tests-cache-")
atexit.register(shutil.rmtree, _MODEL_CACHE, True)
loadPrcFileData("motionwarp-tests-cache", f"model-cache-dir {_MODEL_CACHE}")

#: Tests marked `@pytest.mark.slow` (the soak, the benchmark's smoke run) run only with MOTIONWARP_SLOW=1;
#: `.ci/run` runs them after the suite.
SLOW = os.environ.get("MOTIONWARP_SLOW", "") not in ("", "0")


def pytest_collection_modifyitems(config, items):
    if SLOW:
        return
    skip = pytest.mark.skip(reason="slow: MOTIONWARP_SLOW=1 runs it (.ci/run does)")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)


# For mutation testing (tools/mutation.sh): a failing example is enough, shrinking it costs minutes.
settings.register_profile("mutation", phases=[Phase.explicit, Phase.reuse, Phase.generate])


def _make_showbase():
    from direct.showbase.ShowBase import ShowBase
    loadPrcFileData("motionwarp-tests", "window-type offscreen\naudio-library-name null\n"
                    "win-size 320 240\nsync-video false\nframebuffer-multisample false")
    for display in ("p3headlessgl", "p3tinydisplay"):
        loadPrcFileData("motionwarp-tests-display", f"load-display {display}")
        try:
            return ShowBase()
        except Exception:  # that display module is not usable here; try the next
            continue
    raise RuntimeError("no offscreen display module works (tried p3headlessgl, p3tinydisplay)")


@pytest.fixture(scope="session")
def warp_asset_dir(tmp_path_factory):
    """The warp assets, derived afresh from the mannequin's contact ground truth.

    Tests never read the shipped assets/*.warp.json: the demo's tuner rewrites those (F5).
    """
    from authoring.make_warp_assets import write_warp_assets
    folder = tmp_path_factory.mktemp("warp_assets")
    write_warp_assets(folder, MANNEQUIN, CONTACTS)
    return folder


def copy_warp_assets(source, folder):
    """Private copies in `folder` of every *.warp.json in `source` (all the assets the mannequin's
    character file names), their model pointing at the shipped mannequin; returns the names."""
    names = sorted(path.name[:-len(".warp.json")] for path in pathlib.Path(source).glob("*.warp.json"))
    for name in names:
        data = json.loads((pathlib.Path(source) / f"{name}.warp.json").read_text())
        data["model"] = str(MANNEQUIN)
        (pathlib.Path(folder) / f"{name}.warp.json").write_text(json.dumps(data, indent=2))
    return names


@pytest.fixture(scope="session")
def warp_assets(warp_asset_dir):
    """{name: WarpAsset} loaded from `warp_asset_dir`."""
    from motionwarp import WarpAsset
    return {name: WarpAsset.load(warp_asset_dir / f"{name}.warp.json") for name in WARP_ASSETS}


@pytest.fixture(scope="session")
def showbase():
    base = _make_showbase()
    # Nothing here looks at pixels (the screenshot tests run main.py in a subprocess), and
    # drawing whatever a test left in view would make later tests slower: tasks still run
    # and the clock still ticks with the window inactive.
    base.win.setActive(False)
    clock = ClockObject.getGlobalClock()
    clock.setMode(ClockObject.MNonRealTime)
    clock.setFrameRate(60)
    yield base
    base.destroy()


@pytest.fixture
def base(showbase):
    """The shared ShowBase, with the scene emptied after each test."""
    yield showbase
    for child in showbase.render.getChildren():
        if child != showbase.camera:
            child.removeNode()
    showbase.render.clearLight()   # render state a test left behind would slow every later frame
    showbase.render.clearShader()


def in_process(main, argv, capsys):
    """(exit status, stderr) of a command line's `main(argv)` run in this process: argparse's refusals
    exit through SystemExit, the command's own through its return value."""
    try:
        status = main(argv)
    except SystemExit as exited:
        status = exited.code
    return status, capsys.readouterr().err


def step(base, dt):
    """Run one frame of tasks, then advance the clock by `dt` seconds.

    ShowBase ticks the clock at the end of the frame (igLoop, docs/design.md 9): this frame's
    tasks still see the time the previous step left, and `dt` shows from the next step on.
    """
    ClockObject.getGlobalClock().setFrameRate(1.0 / dt)
    base.taskMgr.step()


def run_for(base, seconds, dt):
    """Step frames of `dt` until `seconds` of game time have passed; the last frame is shortened to land exactly."""
    elapsed = 0.0
    while elapsed < seconds - 1e-9:
        frame = min(dt, seconds - elapsed)
        step(base, frame)
        elapsed += frame


@pytest.fixture
def rig(base):
    """A mannequin Actor with a MotionWarper, at the origin facing +Y."""
    from motionwarp import MotionWarper, load_actor
    actor = load_actor(MANNEQUIN)
    actor.reparentTo(base.render)
    warper = MotionWarper(actor, taskmgr=base.taskMgr, render=base.render)
    yield actor, warper
    warper.destroy()
    actor.cleanup()
    actor.removeNode()
