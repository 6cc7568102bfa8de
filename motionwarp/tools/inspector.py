"""`python -m motionwarp inspect MODEL.glb`: what a character offers motionwarp (docs/design.md 3, 12).

Reads the model's clips and skeleton without stripping anything: its height and units, which
way it faces, per clip what it is (loop or one-shot, in place or travelling, the speed its
planted feet stand still at, its contact windows, a guess at its role), and for the joints
that could carry root motion (each top joint, and the joint under it with the largest subtree:
the hips), how far each clip would move the character in each root mode.
"""
import dataclasses
import functools
import math
import os

import numpy as np
from direct.actor.Actor import Actor
from panda3d.core import NodePath

from ..animation import rootmotion
from ..animation.planting import Skeleton
from ..animation.poses import ClipPoses, rest_positions, standing_height
from ..warp.asset import FORMAT, WarpAsset, joint_parents
from . import clipfacts
from .clipfacts import clip_facts, direction_word, guess_role, stepping_names_first
from ..base.errors import LoadError
from ..base.jsonfields import dumps
from ..animation.gltf_check import clip_ends
from ..animation.loader import load_model_node, require_character, unshared_model_node
from .outputs import OutputPlan

#: Below this a clip is said to carry no root motion (metres).
STILL_DISTANCE = 0.01
#: A model taller than this many units is in centimetres (a 1.8 m character is 180 units tall).
CENTIMETRE_RIG = 20.0
#: The clips' first frames stand a skeleton this fraction taller or shorter than its rest pose: the rest
#: pose is not standing (a bind pose crumpled or stretched), the clips' is used.
STANDS_DIFFERENT = 0.25
#: Roles whose travel shows which way the character faces.
LOCOMOTION = ("walk", "run")
#: A character this many metres tall, or between, is human-sized: its units are sure.
HUMAN_HEIGHT = (0.5, 3.0)
#: A facing within this many degrees of an axis is that axis.
SNAP_DEG = 10.0


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
        if any(rootmotion.is_stripped(n.node().getBundle()) for n in model.findAllMatches("**/+AnimBundleNode")):
            # a driver in this process took the root motion off the shared bundles: read a conversion of our own
            model = NodePath(unshared_model_node(self.path))
        character = require_character(model, self.path)
        self.base = rootmotion.character_base(model)
        self.joints = joint_parents(character.node().getBundle(0))
        self.bundles = dict(sorted((np_.node().getBundle().getName(), np_.node().getBundle())
                                   for np_ in model.findAllMatches("**/+AnimBundleNode")))
        self.skeleton = Skeleton(self.joints, self._standing(rest_positions(character.node().getBundle(0), self.base)))
        self.candidates = self._candidates()
        #: Model units from the feet to the top of the mesh as the clips pose it (the skeleton's when it has no mesh).
        self.height = _posed_height(model) or self.skeleton.height
        #: What makes the model metres: 0.01 for a centimetre rig.
        self.scale = 0.01 if self.height > CENTIMETRE_RIG else 1.0

    def _standing(self, rest):
        """The joints' positions standing: the rest pose, unless the clips' first frames stand taller or
        shorter by more than a quarter (a bind pose crumpled or stretched); then the first frame of the
        clip standing the median height."""
        if not self.bundles:
            return rest
        firsts = sorted(((standing_height(pose), pose) for pose in
                         ({joint: path[0] for joint, path in self.poses(clip).positions.items()} for clip in self.bundles)),
                        key=lambda item: item[0])
        height, pose = firsts[len(firsts) // 2]
        if abs(height - standing_height(rest)) <= STANDS_DIFFERENT * height:
            return rest
        return {joint: pose.get(joint, position) for joint, position in rest.items()}

    def _candidates(self):
        """Joints that could carry root motion: each top joint, and the pelvis (where the legs meet; the
        top joint's child with the largest subtree when no legs are found)."""
        tops = [name for name, parent in self.joints.items() if parent is None]
        hips = self.skeleton.hips
        return tops + ([hips] if hips not in tops else [])

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

    @functools.lru_cache(maxsize=None)
    def facts(self, clip):
        """The ClipFacts of `clip` (its root motion read with the recommended root)."""
        joint, mode, _, _ = self.recommended()
        track = self.track(clip, joint, mode)
        bone = track if mode == "bone" else self.track(clip, joint, "bone")
        return clip_facts(self.poses(clip), self.skeleton, track, joint, bone.sample(bone.num_frames - 1),
                          self.last_step(clip))

    @functools.cached_property
    def clip_ends(self):
        """{clip: its final key's time} as the file keys them (the bake rounds them up to a frame)."""
        return clip_ends(self.path)

    def last_step(self, clip):
        """Seconds of motion between `clip`'s last two frames: one frame, or less when its final key
        falls between frames (the bake's added frame holds that key, docs/design.md 3.1)."""
        bundle = self.bundles[clip]
        fps, n = bundle.getBaseFrameRate(), bundle.getNumFrames()
        end = self.clip_ends.get(clip)
        if end is None or n < 2:
            return 1.0 / fps
        return min(max(end - (n - 2) / fps, 1e-3 / fps), 1.0 / fps)

    @functools.lru_cache(maxsize=None)
    def poses(self, clip):
        """Every joint's model-space positions over `clip` (ClipPoses)."""
        return ClipPoses(self.bundles[clip], self.base, clip)

    @functools.lru_cache(maxsize=None)
    def track(self, clip, joint, mode):
        """The root motion `clip` would have with `joint` in `mode`, read without stripping."""
        return rootmotion.extract(self.bundles[clip], joint, mode, clip=clip, base=self.base)

    @functools.cached_property
    def facing(self):
        """(unit (x, y) in model space the character faces, how that was found)."""
        stepping = stepping_names_first([self.facts(clip) for clip in self.bundles])
        # a walk or a run tells best: its planted feet carry the body forward (a hit reaction may step back)
        stepping.sort(key=lambda facts: guess_role(facts) not in LOCOMOTION)
        if stepping:
            first = stepping[0]
            how = "its feet step" if first.speed else "it travels"
            return first.travel_dir, f"from how {first.clip} moves ({how})"
        if self.skeleton.plan.toes is not None:
            return self.skeleton.plan.toes, "from where its feet point"
        return (0.0, -1.0), "by the glTF convention (+Z forward: -Y here), no locomotion or toes to tell"

    @property
    def turn(self):
        """Degrees about Z that turn the model to face +Y (a character file's `turn`)."""
        x, y = self.facing[0]
        turn = -math.degrees(math.atan2(-x, y))
        snapped = round(turn / 90.0) * 90.0
        turn = snapped if abs(turn - snapped) <= SNAP_DEG else round(turn, 1)
        return 180.0 if turn <= -180.0 else turn + 0.0

    def role(self, clip):
        """The guessed role of `clip`, with the direction of a stepping cycle (walk back, run left)."""
        facts = self.facts(clip)
        role = guess_role(facts)
        if facts.stepping:
            word = direction_word(facts.travel_dir, self.facing[0])
            role = role if word == "forward" else f"{role} {word}"
        return role

    @functools.lru_cache(maxsize=None)
    def recommended(self):
        """(joint, mode, clip, carry) of the candidate that carries the most motion in some clip:
        a top joint in bone mode first, else the hips projected; (top joint, "bone", None, None)
        when every clip is authored in place."""
        for mode in ("bone", "projected"):
            # a hips bone in bone mode would also take its bob off the pose: projected is meant for it;
            # bone mode is for a root bone at the feet
            joints = [j for j in self.candidates if mode == "projected" or j == self.skeleton.root_bone]
            found = [(self.carry(clip, joint, mode).distance, joint, clip) for joint in joints for clip in self.bundles]
            distance, joint, clip = max(found, default=(0.0, None, None))
            if distance > STILL_DISTANCE / self.scale:
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


def _posed_height(model):
    """The median height of `model`'s mesh posed at each clip's first frame (at rest without clips);
    None without a mesh."""
    actor = Actor(model)
    try:
        heights = []
        for clip in actor.getAnimNames() or [None]:
            if clip is not None:
                actor.pose(clip, 0)
            actor.update(force=True)
            bounds = actor.getTightBounds()
            if bounds is None:
                return None
            heights.append(float(bounds[1].z - bounds[0].z))
        return float(np.median(heights))
    finally:
        actor.cleanup()


def sureness(model):
    """[(guess, how sure and why)] for the report: units, facing, feet, hands, walk and run."""
    metres = model.height * model.scale
    low, high = HUMAN_HEIGHT
    found = [("units", f"sure: {metres:.2f} m tall, a human's height" if low <= metres <= high else
              f"unsure: {metres:.2f} m tall is not a human's height (the mesh as the clips pose it)")]
    how = model.facing[1]
    stepping = [c for c in model.bundles if model.facts(c).stepping]
    found.append(("facing", "sure: " + how if any(f"how {c} " in how for c in stepping if guess_role(model.facts(c))
                                                  in LOCOMOTION) else
                  "likely: " + how if how.startswith("from") else "a guess: " + how))
    found += [("feet", model.skeleton.how["feet"]), ("hands", model.skeleton.how["hands"])]
    for role in LOCOMOTION:
        clips = [c for c in model.bundles if model.role(c) == role]
        pace = "faster" if role == "run" else "slower"
        named = [f"{c} (named so; it steps at {_heights_a_second(model.facts(c), model.skeleton.height):.2f} heights a second)"
                 for c in clips if model.facts(c).role != role]
        clips = [c for c in clips if model.facts(c).role == role]
        said = ([f"{', '.join(clips)} (stepping cycles {pace} than {clipfacts.RUN_SPEED:g} height a second)"]
                if clips else []) + named
        found.append((role, "sure: " + ", ".join(said) if said else "not found: no cycle steps or travels"
                      if role == "walk" else f"not found: no stepping cycle is faster than {clipfacts.RUN_SPEED:g} "
                      "height a second"))
    if model.skeleton.problem:
        found.append(("cannot play", model.skeleton.problem))
    return found


def _heights_a_second(facts, height):
    """How fast a stepping cycle goes, in heights a second."""
    speed = facts.speed or facts.travel / max(facts.seconds, 1e-9)
    return speed / height if height > 0 else 0.0


def report(model):
    """The inspection of `model` (a Model) as text."""
    lines = [f"{model.path}", "", _size_line(model), _facing_line(model), "", "how sure:"]
    lines += [f"  {what + ':':12s} {how}" for what, how in sureness(model)]
    lines += ["", "clips (length, frames, role guess, loop or once, in place or travelling, the speed an in-place cycle's "
             "planted feet stand still at, contact windows in seconds):"]
    for clip in model.bundles:
        facts = model.facts(clip)
        if facts.speed:
            travel = f"in place, {facts.speed * model.scale:.2f} m/s"
        else:
            travel = "in place" if facts.in_place else f"travels {facts.travel * model.scale:.2f} m"
        windows = "  ".join(f"{p.limb.role} {p.start:.2f}-{p.end:.2f}" for p in facts.contacts)
        lines.append(f"  {clip:32s} {facts.seconds:7.3f} s {facts.frames:5d} frames  {model.role(clip):14s} "
                     f"{'loop' if facts.loops else 'once':4s}  {travel:22s}  {windows}".rstrip())
    lines += ["", "joints:"]
    depth = {}
    for name, parent in model.joints.items():
        depth[name] = 0 if parent is None else depth[parent] + 1
        lines.append("  " + "  " * depth[name] + name)
    limbs = ", ".join(f"{role} {limb.joint}" for role, limb in model.skeleton.limbs.items()) or "none found"
    lines += ["", f"limbs for contacts: {limbs}", "",
              "root motion per clip (distance on the ground, height range of the joint, turn):"]
    for clip in model.bundles:
        lines.append(f"  {clip}")
        for joint in model.candidates:
            for mode in ("bone", "projected"):
                c = model.carry(clip, joint, mode)
                low, high = (v * model.scale for v in c.height_range)
                lines.append(f"    {joint:>20s} {mode:9s} {c.distance * model.scale:7.3f} m  height {low:6.3f} .. "
                             f"{high:6.3f} m  turn {c.turn:7.1f} deg")
    lines += ["", "recommendation: " + model.recommendation()]
    return "\n".join(lines)


def _size_line(model):
    if model.scale != 1.0:
        return (f"height: {model.height:.2f} units: a centimetre rig (scale {model.scale:g} makes it "
                f"{model.height * model.scale:.2f} m)")
    return f"height: {model.height:.2f} m"


def _facing_line(model):
    (x, y), how = model.facing
    axis = {(0, 1): "+Y", (0, -1): "-Y", (1, 0): "+X", (-1, 0): "-X"}.get((round(x), round(y)) if abs(x * y) < 0.03
                                                                          else None, f"({x:.2f}, {y:.2f})")
    return f"faces: {axis} in the model, {how}: turn {model.turn:g} to face +Y"


def write_asset(model, clip, out, joint=None, mode=None, plan=None):
    """Write a starting warp asset for `model`'s `clip`: one phase over the whole clip, checked by
    loading it back; written through `plan` (an OutputPlan: by default one that reads the model)."""
    if clip not in model.bundles:
        raise LoadError(f"{model.path}: clip {clip!r} not found; the model has: {', '.join(sorted(model.bundles))}")
    plan = OutputPlan({"model": model.path}) if plan is None else plan
    out = plan.target(out, "asset")
    if joint is None or mode is None:
        joint, mode, _, _ = model.recommended()
    folder = os.path.dirname(os.path.abspath(out))
    data = {"format": FORMAT, "model": os.path.relpath(model.path, folder).replace(os.sep, "/"), "clip": clip,
            "root_joint": joint, "root_mode": mode,
            "phases": [{"name": clip, "start": 0.0, "end": math.floor(model.seconds(clip) * 1e6) / 1e6}]}
    WarpAsset.from_dict(data, os.path.abspath(out))  # refuse to write what would not load
    plan.write(out, dumps(data))
    return WarpAsset.load(out)
