"""Pose-matched starts (docs/design.md 4, 5.1): the clip frame, within the asset's window, whose pose
best matches the character's now, so a vault from a run starts on the matching foot.

A pose is the feature vector of the feet (the skeleton's ankles, design 3.2's BodyPlan) and the hips
(where the legs meet), each joint's position in the Actor's own space, as the driver shows a stripped
clip (relative to the character's root, unscaled). The candidates are read once per (asset track,
actor bundle, window) from the clip's animation tables and kept as a `PoseCandidates`; the live pose
is read from the Actor's joints when `play()` is called.
"""
import dataclasses
import weakref

import numpy as np
from panda3d.core import LMatrix4f

from ..animation import rootmotion
from ..animation.bodyplan import BodyPlan
from ..animation.poses import ClipPoses, rest_positions, standing_height
from .asset import joint_parents
from .phasemotion import PhaseMotion

#: A foot's squared distance counts this much; the hips' less: the foot phase decides.
FOOT_WEIGHT = 1.0
HIPS_WEIGHT = 0.5

#: RootMotionTrack -> {(bundle address, window): PoseCandidates}; a track dies with its asset.
_CANDIDATES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


@dataclasses.dataclass(frozen=True)
class PoseCandidates:
    """The frames a pose-matched start may choose from: `frames` (whole clip frames in the window),
    `features` (frames x joints x 3, Actor space) of `joints` (feet, then hips), and `weights`."""

    clip: str
    joints: tuple
    weights: np.ndarray
    frames: np.ndarray
    features: np.ndarray

    def costs(self, pose):
        """Each frame's weighted squared distance to `pose` (joints x 3)."""
        return ((self.features - pose[None]) ** 2).sum(axis=2) @ self.weights

    def best(self, pose):
        """(frame, cost) of the frame nearest `pose`; the first of equals."""
        costs = self.costs(pose)
        index = int(np.argmin(costs))
        return float(self.frames[index]), float(costs[index])


#: Python tag on the Actor keeping its feature joints: reading the shape costs about 0.3 ms a play.
_JOINTS_TAG = "motionwarp-pose-joints"


def feature_joints(actor):
    """(foot, foot, hips) of the Actor's skeleton, from its shape (BodyPlan), or () without two legs;
    found once per Actor."""
    if actor.hasPythonTag(_JOINTS_TAG):
        return actor.getPythonTag(_JOINTS_TAG)
    joints = _shape_joints(actor)
    actor.setPythonTag(_JOINTS_TAG, joints)
    return joints


def _shape_joints(actor):
    character = actor.find("**/+Character")
    bundle = character.node().getBundle(0)
    rest = rest_positions(bundle, rootmotion.character_base(actor))
    plan = BodyPlan(joint_parents(bundle), rest, standing_height(rest))
    if plan.pelvis is None:
        return ()
    return (*plan.legs[:2], plan.pelvis)


def candidates(actor, bundle, track, window, joints):
    """The PoseCandidates of the clip `bundle` (stripped by the driver, whose `track` it is) in `window`
    (seconds), for `joints`, read once from the animation tables."""
    key = (bundle.this, tuple(window), joints)
    kept = _CANDIDATES.setdefault(track, {})
    found = kept.get(key)
    if found is None:
        base = rootmotion.character_base(actor)
        first = int(np.ceil(window[0] * track.fps - 1e-6))
        last = max(int(np.floor(window[1] * track.fps + 1e-6)), first)
        frames = np.arange(first, min(last, track.num_frames - 1) + 1)
        poses = ClipPoses(bundle, base)   # as authored: the root motion taken back off below
        undo = np.array([np.linalg.inv(rootmotion.motion_matrix(track.sample(f)[:3], track.sample(f)[3]))
                         for f in frames])
        positions = [(np.concatenate([poses.positions[joint][frames], np.ones((len(frames), 1))], axis=1)[:, None]
                      @ undo)[:, 0, :3] for joint in joints]
        weights = np.array([FOOT_WEIGHT] * (len(joints) - 1) + [HIPS_WEIGHT])
        found = kept[key] = PoseCandidates(bundle.getName(), joints, weights, frames.astype(float),
                                           np.stack(positions, axis=1))
    return found


def live_pose(actor, joints):
    """joints x 3: where the Actor's current pose has each joint, in the Actor's own space."""
    character = actor.find("**/+Character")
    to_actor = character.getMat(actor)
    net, node, pose = LMatrix4f(), character.node(), []
    for joint in joints:
        node.findJoint(joint).getNetTransform(net)
        pose.append(list(to_actor.xformPoint(net.getRow3(3))))
    return np.array(pose)


#: RootMotionTrack -> {(start frame, f0, f1): PhaseMotion from the start frame}.
_STARTED: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def started_phases(asset, frame):
    """The asset's phases as a start at clip `frame` plays them: a first phase that `frame` is inside
    begins there (its PhaseMotion from `frame` to its end, kept per track), the others as they are."""
    first = asset.phases[0]
    fps = asset.track.fps
    if frame <= first.motion.f0:
        return list(asset.phases)
    kept = _STARTED.setdefault(asset.track, {})
    key = (frame, first.motion.f0, first.motion.f1)
    motion = kept.get(key)
    if motion is None:
        motion = kept[key] = PhaseMotion(asset.track, frame, first.motion.f1, first.motion.w0)   # w0 at least `frame`
    return [dataclasses.replace(first, start=frame / fps, motion=motion), *asset.phases[1:]]
