"""Obstacle courses as data: `scenes/*.json` in the `motionwarp.scene/1` format (docs/design.md 6)."""
import dataclasses
import os

from panda3d.core import BitMask32, Filename, Vec3

from motionwarp.animation.gltf_check import GltfProblem, check_gltf, is_gltf
from motionwarp.base.errors import FieldError, shown, shown_text
from motionwarp.base.filekind import not_regular
from motionwarp.base.jsonfields import FieldChecker, read_json

from .quiet import captured_output
from .world import add_box, add_ground

FORMAT = "motionwarp.scene/1"
_SHAPES = ("box", "model")
#: When an obstacle's `motion` starts: with the scene, or when the character starts an interaction with it.
MOTION_STARTS = ("scene", "interaction")
#: How far under the level's lowest point the kill plane lies (metres): a fall of 1.4 s off the ground's edge.
KILL_DEPTH_M = 10.0


class SceneError(FieldError):
    """A scene file is invalid."""


@dataclasses.dataclass(frozen=True)
class ObstacleMotion:
    """An obstacle sliding by `offset` (metres, scene axes) in `seconds`, `delay` seconds after its start:
    once (then it stays there), or back and forth for ever (design 6)."""

    offset: tuple
    seconds: float
    delay: float = 0.0
    start: str = "scene"
    back_and_forth: bool = False

    def offset_at(self, elapsed):
        """Where the obstacle is `elapsed` seconds after its motion started, from its `pos` (a Vec3)."""
        travelled = max(elapsed - self.delay, 0.0) / self.seconds
        if self.back_and_forth:
            travelled %= 2.0
            travelled = 2.0 - travelled if travelled > 1.0 else travelled
        return Vec3(*self.offset) * min(travelled, 1.0)


@dataclasses.dataclass
class Obstacle:
    name: str
    shape: str
    pos: tuple
    h: float = 0.0
    size: tuple = None   # box: (width, depth, height); pos is the centre of its bottom face
    path: str = None     # model: a file relative to the scene file
    scale: float = 1.0
    motion: ObstacleMotion = None   # None: it stands still
    field: str = ""      # where it stands in the file, for errors found after loading


@dataclasses.dataclass
class Scene:
    path: str
    ground_size: tuple
    spawn_pos: tuple
    spawn_h: float
    obstacles: list
    autopilot: list

    @classmethod
    def load(cls, path):
        """Read and validate a scene file; SceneError names the bad field."""
        path = os.fspath(path)
        data = read_json(path, SceneError)
        check = FieldChecker(path, SceneError)
        check.object(data, "", ("format", "ground", "spawn", "obstacles", "autopilot"),
                     required=("format", "ground", "spawn", "obstacles"))
        if data["format"] != FORMAT:
            check.fail("format", f"expected {FORMAT!r}, got {shown(data['format'])}")
        check.object(data["ground"], "ground", ("size",), required=("size",))
        ground = check.vector(data["ground"], "size", "ground", length=2)
        if min(ground) <= 0:
            check.fail("ground.size", f"expected two positive sizes, got {list(ground)}")
        check.object(data["spawn"], "spawn", ("pos", "h"), required=("pos",))
        spawn_pos = check.vector(data["spawn"], "pos", "spawn")
        spawn_h = check.number(data["spawn"], "h", "spawn", 0.0)
        obstacles = [_obstacle(check, item, field, path) for item, field in check.items(data, "obstacles")]
        names = set()
        for obstacle in obstacles:
            if obstacle.name in names:
                check.fail(f"{obstacle.field}.name", f"expected a unique name, {shown(obstacle.name)} is used twice")
            names.add(obstacle.name)
        autopilot = []
        if "autopilot" in data:
            waypoints = data["autopilot"]
            if not isinstance(waypoints, list):
                check.fail("autopilot", "expected a list of [x, y] ground waypoints")
            autopilot = [check.numbers(point, f"autopilot[{i}]", 2) for i, point in enumerate(waypoints)]
        return cls(path, ground, spawn_pos, spawn_h, obstacles, autopilot)

    def build(self, render, loader):
        """Put the ground and the obstacles under `render`; returns the obstacle NodePaths."""
        add_ground(render, max(self.ground_size))
        nodes = []
        for obstacle in self.obstacles:
            if obstacle.shape == "box":
                node = add_box(render, obstacle.name, obstacle.pos, obstacle.size, obstacle.h)
            else:
                node = self._model(obstacle, render, loader)
            if obstacle.motion is not None:   # the static probe holds the level as built: a mover is no part of it
                node.setCollideMask(BitMask32.allOff())
            nodes.append(node)
        return nodes

    def kill_height(self, level):
        """The kill plane's height, KILL_DEPTH_M under the lowest point of `level` (this scene, built): a
        fall past it left the world. A spawn under it is a SceneError: the character would fall from
        there and be put back there again and again."""
        bounds = level.getTightBounds()
        kill_z = (bounds[0].z if bounds else 0.0) - KILL_DEPTH_M
        if self.spawn_pos[2] < kill_z:
            raise SceneError(self.path, "spawn.pos", f"expected a point above the kill plane at z = {kill_z:g} "
                                                     f"({KILL_DEPTH_M:g} m under the level's lowest point), "
                                                     f"got z = {self.spawn_pos[2]:g}")
        return kill_z

    def _model(self, obstacle, render, loader):
        file = os.path.join(os.path.dirname(os.path.abspath(self.path)), obstacle.path)
        if is_gltf(file):   # panda3d-gltf trusts the file: a broken one crashes or hangs the process
            try:
                check_gltf(file)
            except GltfProblem as exc:
                raise SceneError(self.path, f"{obstacle.field}.path",
                                 f"expected a model Panda3D can load, {shown_text(file)} is not ({exc.problem})") from None
        with captured_output() as output:  # a failing loader plugin prints a traceback of its own
            model = loader.loadModel(Filename.fromOsSpecific(file), okMissing=True)
        if model is None:
            raise SceneError(self.path, f"{obstacle.field}.path",
                             f"expected a model Panda3D can load, {shown_text(file)} is not ({output.last_line()})")
        model.reparentTo(render)
        model.setName(obstacle.name)
        model.setPos(*obstacle.pos)
        model.setH(obstacle.h)
        model.setScale(obstacle.scale)
        return model


def _obstacle(check, data, field, scene_path):
    check.object(data, field, ("name", "shape", "pos", "size", "h", "path", "scale", "motion"),
                 required=("name", "shape", "pos"))
    name, shape = check.string(data, "name", field), check.string(data, "shape", field)
    if shape not in _SHAPES:
        check.fail(f"{field}.shape", f"expected one of {', '.join(map(repr, _SHAPES))}, got {shown(shape)}")
    obstacle = Obstacle(name, shape, check.vector(data, "pos", field), check.number(data, "h", field, 0.0), field=field)
    if "motion" in data:
        obstacle.motion = _motion(check, data["motion"], f"{field}.motion")
    if shape == "box":
        if "size" not in data:
            check.fail(f"{field}.size", "missing (required for a box)")
        obstacle.size = check.vector(data, "size", field)
        if min(obstacle.size) <= 0:
            check.fail(f"{field}.size", f"expected three positive sizes, got {list(obstacle.size)}")
        for key in ("path", "scale"):
            if key in data:
                check.fail(f"{field}.{key}", "unknown key for a box (only models have it)")
    else:
        if "path" not in data:
            check.fail(f"{field}.path", "missing (required for a model)")
        obstacle.path = check.string(data, "path", field)
        kind = not_regular(os.path.join(os.path.dirname(os.path.abspath(scene_path)), obstacle.path))
        if kind:
            check.fail(f"{field}.path", f"expected a model file next to the scene, {shown(obstacle.path)} {kind}")
        obstacle.scale = check.number(data, "scale", field, 1.0)
        if obstacle.scale <= 0:
            check.fail(f"{field}.scale", f"expected a positive scale, got {obstacle.scale}")
        if "size" in data:
            check.fail(f"{field}.size", "unknown key for a model (only boxes have it)")
    return obstacle


def _motion(check, data, field):
    check.object(data, field, ("offset", "seconds", "delay", "start", "back_and_forth"), required=("offset", "seconds"))
    offset = check.vector(data, "offset", field)
    if not any(offset):
        check.fail(f"{field}.offset", "expected metres to slide by, not [0, 0, 0]")
    seconds, delay = check.number(data, "seconds", field), check.number(data, "delay", field, 0.0)
    if seconds <= 0:
        check.fail(f"{field}.seconds", f"expected a positive number of seconds, got {seconds:g}")
    if delay < 0:
        check.fail(f"{field}.delay", f"expected seconds from 0 up, got {delay:g}")
    start = data.get("start", "scene")
    if start not in MOTION_STARTS:
        check.fail(f"{field}.start", f"expected one of {', '.join(map(repr, MOTION_STARTS))}, got {shown(start)}")
    back_and_forth = check.flag(data, "back_and_forth", field) if "back_and_forth" in data else False
    return ObstacleMotion(offset, seconds, delay, start, back_and_forth)
