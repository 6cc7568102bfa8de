"""`python -m motionwarp inspect MODEL.glb`: what a character offers motionwarp (docs/design.md 3).

Reads the model's clips and skeleton without stripping anything, and for the joints that
could carry root motion (each top joint, and the joint under it with the largest subtree:
the hips), how far each clip would move the character in each root mode.
"""
import dataclasses
import functools
import math
import os

from panda3d.core import NodePath

from ..animation import rootmotion
from ..warp.asset import FORMAT, WarpAsset, joint_parents
from ..base.atomicfile import write_text_atomic
from ..base.errors import LoadError
from ..base.jsonfields import dumps
from ..animation.loader import load_model_node

#: Below this a clip is said to carry no root motion (metres).
STILL_DISTANCE = 0.01


@dataclasses.dataclass
class Carry:
    """What one clip's root motion would be with one root joint and mode."""
    distance: float       # metres travelled on the ground from the first to the last frame
    height_range: tuple   # lowest and highest height of the joint over the clip
    turn: float           # degrees turned from the first to the last frame
    loops: bool           # the last frame repeats the first pose, this motion apart


class Model:
    """A glTF character as motionwarp sees it: clips, joints, and root-motion candidates."""

    def __init__(self, path):
        self.path = os.path.abspath(path)
        model = NodePath(load_model_node(path))
        character = model.find("**/+Character")
        if character.isEmpty():
            raise LoadError(f"{self.path}: the model has no skeleton (no skinned character to animate)")
        self.base = rootmotion.character_base(model)
        self.joints = joint_parents(character.node().getBundle(0))
        self.bundles = dict(sorted((np_.node().getBundle().getName(), np_.node().getBundle())
                                   for np_ in model.findAllMatches("**/+AnimBundleNode")))
        self.candidates = self._candidates()

    def _candidates(self):
        children = {name: [c for c, p in self.joints.items() if p == name] for name in self.joints}

        def size(name):
            return 1 + sum(size(c) for c in children[name])
        tops = [name for name, parent in self.joints.items() if parent is None]
        found = []
        for top in tops:
            found.append(top)
            if children[top]:
                found.append(max(children[top], key=size))
        return found

    def seconds(self, clip):
        bundle = self.bundles[clip]
        return (bundle.getNumFrames() - 1) / bundle.getBaseFrameRate()

    @functools.lru_cache(maxsize=None)
    def carry(self, clip, joint, mode):
        bundle = self.bundles[clip]
        model, _ = rootmotion.joint_model_matrices(bundle, joint, self.base, clip)
        positions, _ = rootmotion.root_frames(model, "bone")
        track = rootmotion.extract(bundle, joint, mode, clip=clip, base=self.base)
        x, y, _, h = track.sample(track.num_frames - 1)
        if mode == "projected":  # the turn stays in the pose unless asked for: report the joint's own
            h = rootmotion.extract(bundle, joint, "bone", clip=clip, base=self.base).sample(track.num_frames - 1)[3]
        loops = rootmotion.is_closed_loop(bundle, joint, track=track, base=self.base)
        return Carry(math.hypot(x, y), (float(positions[:, 2].min()), float(positions[:, 2].max())), h, loops)

    def recommended(self):
        """(joint, mode, clip, carry) of the candidate that carries the most motion in some clip:
        a top joint in bone mode first, else the hips projected; (top joint, "bone", None, None)
        when every clip is authored in place."""
        for mode in ("bone", "projected"):
            # a hips bone in bone mode would also take its bob off the pose: projected is meant for it
            joints = [j for j in self.candidates if mode == "projected" or self.joints[j] is None]
            found = [(self.carry(clip, joint, mode).distance, joint, clip) for joint in joints for clip in self.bundles]
            distance, joint, clip = max(found, default=(0.0, None, None))
            if distance > STILL_DISTANCE:
                return joint, mode, clip, self.carry(clip, joint, mode)
        return self.candidates[0], "bone", None, None

    def recommendation(self):
        """One sentence: which root joint and mode to use, and why."""
        joint, mode, clip, carry = self.recommended()
        if carry is None:
            return (f"every clip is authored in place: use `{joint}` in bone mode and move the character "
                    "yourself (a `speed` per cycle in the character file)")
        lead = "" if mode == "bone" else "no root bone carries motion; "
        return (f"{lead}`{joint}` in {mode} mode carries {carry.distance:.2f} m in {clip}; clips that travel "
                f"less than {STILL_DISTANCE * 100:.0f} cm are authored in place: give them a speed")


def report(path):
    """The inspection of the model at `path` as text."""
    model = Model(path)
    lines = [f"{model.path}", "", "clips:"]
    for clip, bundle in model.bundles.items():
        frames = bundle.getNumFrames()
        loops = any(model.carry(clip, joint, mode).loops for joint in model.candidates for mode in ("bone", "projected"))
        lines.append(f"  {clip:32s} {model.seconds(clip):7.3f} s {frames:5d} frames  {'loop' if loops else 'once'}")
    lines += ["", "joints:"]
    depth = {}
    for name, parent in model.joints.items():
        depth[name] = 0 if parent is None else depth[parent] + 1
        lines.append("  " + "  " * depth[name] + name)
    lines += ["", "root motion per clip (distance on the ground, height range of the joint, turn):"]
    for clip in model.bundles:
        lines.append(f"  {clip}")
        for joint in model.candidates:
            for mode in ("bone", "projected"):
                c = model.carry(clip, joint, mode)
                lines.append(f"    {joint:>20s} {mode:9s} {c.distance:7.3f} m  height {c.height_range[0]:6.3f} .. "
                             f"{c.height_range[1]:6.3f} m  turn {c.turn:7.1f} deg")
    lines += ["", "recommendation: " + model.recommendation()]
    return "\n".join(lines)


def write_asset(path, clip, out, joint=None, mode=None):
    """Write a starting warp asset for `clip`: one phase over the whole clip, checked by loading it back."""
    model = Model(path)
    if clip not in model.bundles:
        raise LoadError(f"{model.path}: clip {clip!r} not found; the model has: {', '.join(sorted(model.bundles))}")
    if joint is None or mode is None:
        joint, mode, _, _ = model.recommended()
    folder = os.path.dirname(os.path.abspath(out))
    data = {"format": FORMAT, "model": os.path.relpath(model.path, folder).replace(os.sep, "/"), "clip": clip,
            "root_joint": joint, "root_mode": mode,
            "phases": [{"name": clip, "start": 0.0, "end": math.floor(model.seconds(clip) * 1e6) / 1e6}]}
    WarpAsset.from_dict(data, os.path.abspath(out))  # refuse to write what would not load
    write_text_atomic(out, dumps(data))
    return WarpAsset.load(out)
