"""The interactive demo: walk the mannequin around a course and vault or mantle what the providers find."""
import json
import math
import pathlib

from direct.gui.OnscreenText import OnscreenText
from direct.showbase.DirectObject import DirectObject
from panda3d.core import TextNode, Vec2, Vec3

from motionwarp import MotionWarper, SceneProbe, TraversalProvider, WarpAsset, WarpRefused, load_actor

from .curves import CurvePanel
from .tuner import AssetTuner
from .world import add_lights, remove_lights

ASSETS = pathlib.Path(__file__).resolve().parent.parent / "assets"
TURN_DEG_PER_S = 120.0
STEP_UP = 0.3  # metres
HELP = ("W / Up: walk    Shift: run    A D / Left Right: turn    Space: vault or mantle    Esc: quit")


class Demo(DirectObject):
    """Keyboard control of a mannequin whose motion is root motion, warped over a scene's obstacles.

    Targets come from the warp providers probing the scene's geometry, never from the scene
    file. With `autopilot`, the character walks the scene's waypoints and takes whatever it
    meets (for screenshots and unattended runs).
    """

    #: Camera offsets from the character, in its own frame.
    VIEWS = {"follow": Vec3(0, -6.5, 2.8), "side": Vec3(5.5, -2.5, 1.6)}

    def __init__(self, base, scene, autopilot=False, view="follow", asset_dir=ASSETS):
        super().__init__()
        self.base, self.scene, self.autopilot = base, scene, autopilot
        self.view = self.VIEWS[view]
        self.waypoints = list(scene.autopilot[1:] if autopilot else [])
        self._leg_start = scene.autopilot[0] if self.waypoints else None
        render = base.render
        add_lights(render)
        self.obstacles = scene.build(render, base.loader)
        # Built before the character is added: the probe sees the level, not the mannequin.
        self.probe = SceneProbe.from_geometry(render)
        self.actor = load_actor(ASSETS / "mannequin.glb")
        self.actor.reparentTo(render)
        self.actor.setPos(*scene.spawn_pos)
        self.actor.setH(scene.spawn_h)
        self.actor.setBlend(frameBlend=True)
        self.warper = MotionWarper(self.actor, taskmgr=base.taskMgr, render=render)
        self.assets = {name: WarpAsset.load(asset_dir / f"{name}.warp.json") for name in ("vault", "mantle", "mantle_high")}
        self.traversal = TraversalProvider(self.probe, self.assets.values(), space=render)
        self.tuner = AssetTuner(self.assets)
        self.curves = CurvePanel(base.aspect2d)
        contacts = json.loads((ASSETS / "mannequin.contacts.json").read_text())["clips"]
        #: How far from the near face each clip was authored: where the autopilot starts it.
        self.authored_distance = {name: contacts[name]["obstacle"]["min"][1] for name in self.assets}
        #: Where the autopilot gives up on an obstacle no clip can take.
        self.skip_distance = max(self.authored_distance.values())
        #: Hooks for reports: on_start(obstacle name, interaction, warp) and on_skip(obstacle name, reason).
        self.on_start = self.on_skip = None
        self.keys = dict.fromkeys(("forward", "left", "right", "run"), False)
        self.gait = None
        self._bind_keys()
        self.status = OnscreenText(text="", pos=(-1.3, -0.9), scale=0.05, align=TextNode.ALeft,
                                   fg=(1, 1, 1, 1), shadow=(0, 0, 0, 1), mayChange=True)
        self.prompt = OnscreenText(text="", pos=(-0.25, -0.75), scale=0.05, align=TextNode.ALeft, fg=(1, 1, 0.6, 1),
                                   shadow=(0, 0, 0, 1), mayChange=True)  # right of the curve panel
        self.help = OnscreenText(text=HELP, pos=(-1.3, 0.92), scale=0.045, align=TextNode.ALeft, fg=(1, 1, 1, 1),
                                 shadow=(0, 0, 0, 1))
        base.disableMouse()
        base.setBackgroundColor(0.62, 0.74, 0.86, 1)
        self.addTask(self._control_task, "demo-control", sort=40)  # before the warper (45)
        self.addTask(self._ground_task, "demo-ground", sort=46)    # after it: stand on what is underneath
        self.addTask(self._hud_task, "demo-hud", sort=48)          # before render (50)
        if base.camera is not None:  # there is none with window-type none
            self.addTask(self._camera_task, "demo-camera", sort=47)
            self._place_camera(snap=True)
        self.accept("motionwarp-finished", lambda *args: self._set_gait())
        self.accept("motionwarp-cancelled", lambda *args: self._set_gait())
        self.accept("motionwarp-phase-start", lambda warper, name, index: self._say(
            f"{warper.current.asset.clip}: phase {name} at play rate {warper.play_rate:.2f}"))
        self._set_gait()

    @property
    def done(self):
        """True once the autopilot has reached its last waypoint and nothing is playing."""
        return self.autopilot and not self.waypoints and not self.warper.is_warping

    def _bind_keys(self):
        for key, name in (("w", "forward"), ("arrow_up", "forward"), ("a", "left"), ("arrow_left", "left"),
                          ("d", "right"), ("arrow_right", "right"), ("shift", "run")):
            self.accept(key, self.keys.__setitem__, [name, True])
            self.accept(f"{key}-up", self.keys.__setitem__, [name, False])
        self.accept("space", self.interact)
        self.accept("escape", self.base.userExit)

    def _say(self, text):
        self.status.setText(text)

    def interact(self, within=None):
        """Vault or mantle what is in front of the character, or say why not.

        `within` (the autopilot's) maps a clip (None for a refusal) to the farthest distance
        from the face at which to act; nothing happens farther away.
        """
        if self.warper.is_warping:
            return False
        found = self.traversal.find(self.actor)
        if found.node is None:
            if within is None:  # a player pressed Space
                self._say(found.reason)
            return False
        clip = found.asset.clip if found else None
        if within is not None and found.distance > within(clip):
            return False
        name = self.obstacle_name(found.node)
        if not found:
            return self._skip(name, found.reason)
        try:
            warp = self.warper.play(found.asset, found.targets)
        except WarpRefused as refusal:
            return self._skip(name, f"{clip} refused: {refusal.reason}")
        self.gait = None
        if self.on_start is not None:
            self.on_start(name, found, warp)
        return True

    def obstacle_name(self, node):
        """The scene obstacle a probed node belongs to (its own name when it is not one of them)."""
        for obstacle in self.obstacles:
            if obstacle == node or obstacle.isAncestorOf(node):
                return obstacle.getName()
        return node.getName()

    def prompt_text(self):
        """What Space would do now, or why not."""
        if self.warper.is_warping:
            return ""
        found = self.traversal.find(self.actor)
        if found.node is None:
            return f"Space: {found.reason}"
        name = self.obstacle_name(found.node)
        if not found:
            return f"{name}: {found.reason}"
        return (f"Space: {found.kind} {name} ({found.asset.clip}, {found.height:.2f} m high, "
                f"{found.depth:.2f} m deep, {found.distance:.1f} m away)")

    def _skip(self, name, reason):
        self._say(f"{name}: {reason}")
        if self.on_skip is not None:
            self.on_skip(name, reason)
        return False

    def _steer(self):
        """Autopilot: head for the next waypoint, take obstacles on the way, stop at the last one."""
        while self.waypoints and self._reached(self.waypoints[0]):
            self._leg_start = self.waypoints.pop(0)
        self.keys["forward"] = bool(self.waypoints)
        if not self.waypoints:
            return
        to_go = Vec3(self.waypoints[0][0], self.waypoints[0][1], 0) - Vec3(self.actor.getX(), self.actor.getY(), 0)
        wanted = math.degrees(math.atan2(-to_go.x, to_go.y))
        turn = (wanted - self.actor.getH() + 180.0) % 360.0 - 180.0
        self.keys["left"], self.keys["right"] = turn > 2.0, turn < -2.0
        self.interact(within=lambda clip: self.authored_distance.get(clip, self.skip_distance))

    def _reached(self, waypoint):
        """Within 0.5 m of the waypoint, or past it along the leg (a vault can carry the character over it)."""
        here, start, end = self.actor.getPos().getXy(), Vec2(*self._leg_start), Vec2(*waypoint)
        return (here - end).length() < 0.5 or (here - start).dot(end - start) >= (end - start).lengthSquared()

    def _set_gait(self):
        if self.warper.is_warping:
            return
        gait = ("run" if self.keys["run"] else "walk") if self.keys["forward"] else "idle"
        if gait != self.gait:
            self.warper.driver.loop(gait)
            self.gait = gait

    def _control_task(self, task):
        if self.autopilot and not self.warper.is_warping:
            self._steer()
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

    def _ground_task(self, task):
        """No gravity: a walking character stands on whatever the probe finds under it, so walking
        off a ledge puts it straight down on the ground (no fall), and the next obstacle is measured
        from there. It steps up at most STEP_UP, less than any vault."""
        if not self.warper.is_warping:
            pos = self.actor.getPos()
            ground = self.probe.drop(pos.x, pos.y, pos.z + STEP_UP, pos.z - 100.0)
            if ground is not None:
                self.actor.setZ(ground[0])
        return task.cont

    def _hud_task(self, task):
        """The prompt, and the curve panel: the warp in progress with its clip time, else the tuned asset."""
        self.prompt.setText(self.prompt_text())
        warp = self.warper.current
        if warp is None:
            self.curves.show(self.tuner.asset)
            self.curves.set_time(None)
        else:
            self.curves.show(warp.asset)
            self.curves.set_time(warp.control.getFullFframe() / warp.track.fps)
        return task.cont

    def destroy(self):
        """Remove everything the demo added (tasks, handlers, HUD, the character)."""
        self.ignoreAll()
        self.removeAllTasks()
        self.tuner.destroy()
        self.curves.destroy()
        self.status.destroy()
        self.prompt.destroy()
        self.help.destroy()
        self.warper.destroy()
        self.actor.cleanup()
        self.actor.removeNode()
        remove_lights(self.base.render)
