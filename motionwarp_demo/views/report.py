"""The headless run's report (docs/design.md 8): every interaction with its phases' errors, every refusal
met, every fall."""
import os

from direct.showbase.DirectObject import DirectObject

from motionwarp import CANCELLED, FINISHED
from motionwarp.base.atomicfile import write_text_atomic
from motionwarp.base.jsonfields import dumps
from motionwarp.warp.warpmath import angle_between


def _vec(values):
    return [round(float(v), 4) for v in values]


def arrival_error(result, goal=None):
    """How far a finished phase (an entry of `Warp.results`) ended from its target, or from `goal`
    (Point3, Quat) when given: metres, degrees."""
    pos, quat = goal if goal is not None else (result.target, result.target_quat)
    return (result.arrived - pos).length(), angle_between(result.arrived_quat, quat)


def _heading(quat):
    return round(float(quat.getHpr()[0]), 3)


class RunReport(DirectObject):
    """Listens to a Demo and its warper and collects the report of a run."""

    def __init__(self, demo, scene_path, fps):
        super().__init__()
        self.demo, self.scene_path, self.fps = demo, scene_path, fps
        self.interactions, self.refusals = [], []
        self._first_frame = demo.base.clock.getFrameCount()   # the run's frames count from here
        self._open = None  # (record, warp) of the interaction in progress
        demo.on_start, demo.on_skip = self._started, self._skipped
        self.accept(FINISHED, self._ended, [True])
        self.accept(CANCELLED, self._ended, [False])

    def _started(self, name, interaction, warp):
        asset = interaction.asset
        mirrored = asset.mirror is not None   # the source asset's mirrored twin (design 7)
        record = {"obstacle": name, "kind": interaction.kind,
                  "asset": self.demo.asset_name(asset),
                  "mirrored": mirrored, "start_frame": int(warp.start_frame),
                  "obstacle_height": round(interaction.height, 4), "obstacle_depth": round(interaction.depth, 4),
                  "completed": False, "switched_off": False, "final_pos": None, "phases": []}
        self.interactions.append(record)
        self._open = (record, warp)

    def _skipped(self, name, reason):
        """The first refusal of each obstacle, with when and where it was met (later ones, such as
        "not facing it" while turning away, add nothing)."""
        if all(r["obstacle"] != name for r in self.refusals):
            self.refusals.append({"obstacle": name, "reason": reason,
                                  "sim_seconds": round(self._seconds(), 4),
                                  "pos": _vec(self.demo.actor.getPos(self.demo.base.render))})

    def _seconds(self):
        """Simulated time since the run started (frames at --fps)."""
        return (self.demo.base.clock.getFrameCount() - self._first_frame) / self.fps

    def _ended(self, completed, warper, clip, reason=None):
        if self._open is None:
            return
        record, warp = self._open
        self._open = None
        record["completed"] = completed
        if not completed:
            record["reason"] = reason   # why it was cancelled: a switch-off, another clip, ...
        record["switched_off"] = warp.switched_off is not None   # a switch-off rule (design 4, End) ended it
        record["final_pos"] = _vec(warper.actor.getPos(self.demo.base.render))
        for result in warp.results:
            error_m, error_deg = arrival_error(result)
            record["phases"].append({
                "name": result.name, "target": _vec(result.target), "arrived": _vec(result.arrived),
                "error_m": round(error_m, 6), "target_h": _heading(result.target_quat),
                "arrived_h": _heading(result.arrived_quat),
                "error_deg": round(error_deg, 4),
                "play_rate": round(result.play_rate, 4)})

    def to_dict(self, frames):
        # Interactions the autopilot later managed are not skips.
        taken = {r["obstacle"] for r in self.interactions if r["completed"]}
        scene = os.path.relpath(self.scene_path)
        return {"scene": scene if not scene.startswith("..") else os.path.abspath(self.scene_path),
                "fps": self.fps, "frames": frames,
                "sim_seconds": round(frames / self.fps, 4), "interactions": self.interactions,
                "skipped": [{"obstacle": r["obstacle"], "reason": r["reason"]}
                            for r in self.refusals if r["obstacle"] not in taken],
                "refusals": self.refusals,
                "falls": [{"height": round(height, 4), "landed": _vec(point)}
                          for height, point in self.demo.controller.landings],
                "stopped": self.demo.autopilot.stopped if self.demo.autopilot is not None else None,
                "end": {"pos": _vec(self.demo.actor.getPos(self.demo.base.render)),
                        "h": round(self.demo.actor.getH(self.demo.base.render), 3)}}

    def write(self, path, frames):
        write_text_atomic(path, dumps(self.to_dict(frames)))
