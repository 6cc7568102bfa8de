"""The interactive demo: walk the mannequin around a small course and vault or mantle its boxes."""
import pathlib

from direct.gui.OnscreenText import OnscreenText
from panda3d.core import TextNode, Vec3

from motionwarp import MotionWarper, WarpAsset, WarpRefused, load_actor

from . import boxprobe
from .world import add_box, add_ground, add_lights

ASSETS = pathlib.Path(__file__).resolve().parent.parent / "assets"
TURN_DEG_PER_S = 120.0
AUTOPILOT_REACH = 1.1  # the autopilot takes an obstacle about where the clips were authored
HELP = ("W / Up: walk    Shift: run    A D / Left Right: turn    Space: vault or mantle    Esc: quit")
COURSE = [  # name, bottom-centre position, (width, depth, height), heading
    ("crate", (0, 4, 0), (1.2, 0.6, 1.0), 0),
    ("low wall", (-5, 5, 0), (2.4, 0.4, 0.7), 20),
    ("long crate", (-9, 4, 0), (1.6, 1.1, 1.3), -15),
    ("ledge", (5, 6, 0), (3.0, 2.0, 1.5), 0),
    ("high ledge", (10, 6, 0), (3.0, 2.0, 2.0), 0),
]


class Demo:
    """Keyboard control of a mannequin whose motion is root motion, warped over the course's boxes.

    With `autopilot`, the character walks ahead and takes whatever is in front of it (for
    screenshots and unattended runs).
    """

    #: Camera offsets from the character, in its own frame.
    VIEWS = {"follow": Vec3(0, -6.5, 2.8), "side": Vec3(5.5, -2.5, 1.6)}

    def __init__(self, base, autopilot=False, view="follow"):
        self.base, self.autopilot = base, autopilot
        self.view = self.VIEWS[view]
        render = base.render
        add_lights(render)
        add_ground(render)
        self.boxes = [add_box(render, name, pos, size, h) for name, pos, size, h in COURSE]
        self.actor = load_actor(ASSETS / "mannequin.glb")
        self.actor.reparentTo(render)
        self.actor.setBlend(frameBlend=True)
        self.warper = MotionWarper(self.actor, taskmgr=base.taskMgr, render=render)
        self.assets = {name: WarpAsset.load(ASSETS / f"{name}.warp.json") for name in ("vault", "mantle", "mantle_high")}
        self.keys = dict.fromkeys(("forward", "left", "right", "run"), False)
        self.gait = None
        self._bind_keys()
        self.status = OnscreenText(text="", pos=(-1.3, -0.9), scale=0.05, align=TextNode.ALeft,
                                   fg=(1, 1, 1, 1), shadow=(0, 0, 0, 1), mayChange=True)
        OnscreenText(text=HELP, pos=(-1.3, 0.92), scale=0.045, align=TextNode.ALeft, fg=(1, 1, 1, 1), shadow=(0, 0, 0, 1))
        base.disableMouse()
        base.setBackgroundColor(0.62, 0.74, 0.86, 1)
        base.taskMgr.add(self._control_task, "demo-control", sort=40)  # before the warper (45)
        base.taskMgr.add(self._camera_task, "demo-camera", sort=47)    # after it, before render (50)
        base.accept("motionwarp-finished", lambda *args: self._set_gait())
        base.accept("motionwarp-cancelled", lambda *args: self._set_gait())
        base.accept("motionwarp-phase-start", lambda warper, name, index: self._say(
            f"{warper._warp.asset.clip}: phase {name} at play rate {warper.play_rate:.2f}"))
        self._set_gait()
        self._place_camera(snap=True)

    def _bind_keys(self):
        for key, name in (("w", "forward"), ("arrow_up", "forward"), ("a", "left"), ("arrow_left", "left"),
                          ("d", "right"), ("arrow_right", "right"), ("shift", "run")):
            self.base.accept(key, self.keys.__setitem__, [name, True])
            self.base.accept(f"{key}-up", self.keys.__setitem__, [name, False])
        self.base.accept("space", self.interact)
        self.base.accept("escape", self.base.userExit)

    def _say(self, text):
        self.status.setText(text)

    def interact(self):
        """Vault or mantle the box in front of the character, or say why not."""
        if self.warper.is_warping:
            return False
        box, clip, targets = boxprobe.nearest(self.boxes, self.actor, self.base.render)
        if box is None:
            self._say(targets)
            return False
        try:
            self.warper.play(self.assets[clip], targets)
        except WarpRefused as refusal:
            self._say(f"{box.getName()}: {clip} refused: {refusal.reason}")
            return False
        self.gait = None
        return True

    def _closest_face(self):
        """Distance to the nearest box's near face along the character's path (inf when none ahead)."""
        best = float("inf")
        for box in self.boxes:
            local = box.getRelativePoint(self.actor, (0, 0, 0))
            width, depth, _ = box.getPythonTag("size")
            if abs(local.x) < width / 2 and local.y < -depth / 2:
                best = min(best, -depth / 2 - local.y)
        return best

    def _set_gait(self):
        if self.warper.is_warping:
            return
        gait = ("run" if self.keys["run"] else "walk") if self.keys["forward"] else "idle"
        if gait != self.gait:
            self.warper.driver.loop(gait)
            self.gait = gait

    def _control_task(self, task):
        if self.autopilot:
            self.keys["forward"] = True
            if not self.warper.is_warping and self._closest_face() <= AUTOPILOT_REACH:
                self.interact()
        if not self.warper.is_warping:
            dt = self.base.clock.getDt()
            turn = (self.keys["left"] - self.keys["right"]) * TURN_DEG_PER_S * dt
            self.actor.setH(self.actor.getH() + turn)
            self._set_gait()
        return task.cont

    def _place_camera(self, snap=False):
        offset = self.base.render.getRelativeVector(self.actor, Vec3(self.view.x, self.view.y, 0))
        wanted = self.actor.getPos() + offset + Vec3(0, 0, self.view.z)
        camera = self.base.camera
        camera.setPos(wanted if snap else camera.getPos() + (wanted - camera.getPos()) * 0.1)
        camera.lookAt(self.actor.getPos() + Vec3(0, 0, 1.0))

    def _camera_task(self, task):
        self._place_camera()
        return task.cont
