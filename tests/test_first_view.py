"""The demo's first view (issue 25): nothing covers the character or what it is about to vault.

The curve panel and the tuner are hidden until F3; the F1 help and the status wrap between words
inside the window at 800x600 and 1920x1080; the frame rate counts real frames per real second; the
camera's distance and height follow the character's height. Oracles: the mannequin's height from
its glTF bytes (POSITION accessor bounds), the window's edges in aspect2d units (2 * width /
height across), and pixels rendered with the obstacle drawn in one flat colour, once with the
character and once without it.
"""
import json

import numpy as np
import pytest

from motionwarp_demo.app.app import Demo
from motionwarp_demo.character.camera import VIEW_HEIGHT_M
from motionwarp_demo.character.character_file import Character
from motionwarp_demo.level.scene import Scene
from motionwarp_demo.views.hud import FrameRate, key_lines

from .conftest import ROOT, SAMPLES, step
from .glb import read_glb
from .pose_oracle import KNIGHT
from .test_demo_hud import card_box, window_size  # noqa: F401 (window_size is a fixture)

COURSE = SAMPLES / "scenes" / "course.json"
SIZES = [(800, 600), (1920, 1080)]
DT = 1 / 60


def gltf_height(path):
    """The height of a glTF model whose meshes hang untransformed from the scene (the mannequin's): its
    POSITION accessors' bounds along glTF's up axis, Y."""
    doc = read_glb(path)[0]
    assert all(not set(node) & {"matrix", "translation", "rotation", "scale"} for node in doc["nodes"] if "mesh" in node)
    bounds = [doc["accessors"][primitive["attributes"]["POSITION"]] for mesh in doc["meshes"]
              for primitive in mesh["primitives"]]
    return max(b["max"][1] for b in bounds) - min(b["min"][1] for b in bounds)


@pytest.fixture
def course(base):
    demos = []

    def make(**options):
        demos.append(Demo(base, Scene.load(COURSE), **options))
        return demos[-1]
    yield make
    for demo in demos:
        demo.destroy()


def words_kept(shown, wrapped):
    """True when `wrapped` (a TextNode's word-wrapped text) breaks `shown` between words only."""
    return wrapped.split() == shown.split()


def test_the_editor_panels_are_hidden_until_f3(base, course):
    demo = course()
    assert demo.curves.root.isHidden() and demo.tuner.text.isHidden()
    base.messenger.send("f3")
    assert not demo.curves.root.isHidden() and not demo.tuner.text.isHidden()


@pytest.mark.parametrize("size", SIZES)
def test_the_help_and_the_status_wrap_between_words_inside_the_window(base, course, window_size, size):
    window_size(*size)
    demo = course()
    demo.hud.toggle_help()
    assert demo.dodge() is False   # the mannequin has no dodge clip: a long line with a path on the status
    step(base, DT)
    left, right, bottom, top = base.a2dLeft, base.a2dRight, base.a2dBottom, base.a2dTop
    assert right - left == pytest.approx(2 * size[0] / size[1])
    help_box, status_box, info_box = (card_box(text, base) for text in (demo.hud.help, demo.status, demo.hud.info))
    for x0, x1, z0, z1 in (help_box, status_box, info_box):
        assert left < x0 < x1 < right and bottom < z0 < z1 < top
    assert help_box[1] < left + 0.45 * (right - left)     # at the left edge: the character is in the middle
    assert help_box[3] < info_box[2] and help_box[2] > status_box[3]   # under the info panel, above the status
    for text in (demo.hud.help, demo.status):
        assert words_kept(text.getText(), text.textNode.getWordwrappedText())
    shown = demo.status.getText()
    assert str(demo.character.path) in shown
    if size == (800, 600):   # the line is wider than the window here: it had to wrap, and kept the path whole
        assert demo.status.textNode.getNumRows() >= 2
        assert str(demo.character.path) in demo.status.textNode.getWordwrappedText().splitlines()


def test_help_rows_go_on_under_their_action_column():
    keys = (("F3", "show or hide the curve editor"), ("Esc", "quit"))
    assert key_lines(keys) == "F3\tshow or hide the curve editor\nEsc\tquit"
    assert key_lines(keys, width=len("show or hide")) == "F3\tshow or hide\n\tthe curve\n\teditor\nEsc\tquit"


def test_the_frame_rate_counts_real_time_not_game_time():
    now = [0.0]   # frame times in binary fractions of a second: the sums are exact
    rate = FrameRate(lambda: now[0])
    for _ in range(8):             # 16 real frames a second; the first half second shows the frames so far
        now[0] += 1 / 16
        assert rate.tick() == pytest.approx(16.0)
    for _ in range(32):            # then 64 a second, measured over each whole half second
        now[0] += 1 / 64
        shown = rate.tick()
    assert shown == pytest.approx(64.0)
    now[0] += 10.0                 # a long hitch: one frame in 10 s
    assert rate.tick() == pytest.approx(0.1)


def test_the_hud_shows_real_frames_per_real_second(base, course):
    """The game clock steps 1/60 s a frame (non-real-time); the HUD's counter reads a real clock that
    advances 1/25 s a frame: it shows 25, not 60."""
    demo = course()
    now = [0.0]
    demo.hud.frame_rate = FrameRate(lambda: now[0])
    for _ in range(40):
        now[0] += 1 / 25
        step(base, DT)
    assert demo.hud.info.getText().startswith("25 fps ")


@pytest.mark.parametrize("autopilot", [False, True])
def test_the_camera_frames_the_character_by_its_height(base, course, autopilot):
    """The camera's distance and look height are the view's, scaled by the model's height over
    VIEW_HEIGHT_M: the glTF's own height, times the character file's scale."""
    height = gltf_height(SAMPLES / "assets" / "mannequin.glb")
    views = Demo.AUTOPILOT_VIEWS if autopilot else Demo.VIEWS
    demo = course(autopilot=autopilot)
    assert demo.camera.distance == pytest.approx(views["follow"].length() * height / VIEW_HEIGHT_M, rel=1e-4)
    assert demo.camera.look_height == pytest.approx(0.55 * height, rel=1e-4)


def test_a_character_twice_the_size_is_framed_twice_as_far(base, course, tmp_path):
    data = json.loads((SAMPLES / "characters" / "mannequin.json").read_text())
    data["model"] = str(SAMPLES / "assets" / "mannequin.glb")
    data["scale"] = 2.0
    (tmp_path / "giant.json").write_text(json.dumps(data))
    height = 2.0 * gltf_height(SAMPLES / "assets" / "mannequin.glb")
    demo = course(character=Character.load(tmp_path / "giant.json"), asset_dir=SAMPLES / "assets")
    assert demo.camera.distance == pytest.approx(Demo.VIEWS["follow"].length() * height / VIEW_HEIGHT_M, rel=1e-4)


OBSTACLE_COLOUR = (255, 0, 255)


def obstacle_pixels(base, obstacle):
    """How many pixels of the offscreen window show `obstacle`, drawn flat in OBSTACLE_COLOUR."""
    base.graphicsEngine.renderFrame()
    texture = base.win.getScreenshot()
    assert texture is not None
    image = np.frombuffer(texture.getRamImageAs("RGB").getData(), np.uint8).reshape(-1, 3)
    return int(np.count_nonzero(np.all(image == OBSTACLE_COLOUR, axis=1)))


def visible_share(base, demo, name):
    """The share of obstacle `name`'s pixels the character leaves in view (1 when it hides none)."""
    obstacle = next(node for node in demo.obstacles if node.getName() == name)
    obstacle.setLightOff(1000)
    obstacle.setTextureOff(1000)
    obstacle.setMaterialOff(1000)
    obstacle.setShaderOff(1000)
    obstacle.setColor(*(c / 255 for c in OBSTACLE_COLOUR), 1, 1000)
    base.win.setActive(True)
    try:
        with_character = obstacle_pixels(base, obstacle)
        demo.actor.hide()
        alone = obstacle_pixels(base, obstacle)
        demo.actor.show()
    finally:
        base.win.setActive(False)
    assert alone > 200, f"the {name} is hardly in view ({alone} pixels)"
    return with_character / alone


def walk_until_near(base, demo, metres, seconds=8.0):
    """Step the autopilot until the first obstacle's near face is at most `metres` ahead (a vault on offer)."""
    for _ in range(round(seconds / DT)):
        step(base, DT)
        found = demo.offer()
        if found is not None and found.node is not None and found.distance <= metres:
            return found
    raise AssertionError(f"the autopilot did not come within {metres} m of an obstacle in {seconds} s")


def test_the_autopilot_camera_shows_the_crate_the_mannequin_is_about_to_vault(base, course, window_size):
    window_size(800, 600)
    demo = course(autopilot=True)
    found = walk_until_near(base, demo, 1.3)
    assert demo.obstacle_name(found.node) == "crate" and found.asset.clip == "vault"
    assert visible_share(base, demo, "crate") > 0.95


@pytest.mark.skipif(KNIGHT is None, reason="../shared/rigs/Knight.glb is not beside the project")
@pytest.mark.parametrize("autopilot", [False, True])
def test_the_knight_does_not_hide_the_crate(base, course, window_size, autopilot):
    """The 2.47 m Knight, framed by its height: from the player's camera at the start, and from the
    autopilot's as it comes within 1.7 m, most of the crate is in view."""
    window_size(800, 600)
    demo = course(autopilot=autopilot, character=Character.load(ROOT / "characters" / "knight.json"))
    step(base, DT)
    if autopilot:
        walk_until_near(base, demo, 1.7)
    assert visible_share(base, demo, "crate") > 0.7
