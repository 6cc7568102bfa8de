"""Bone alignment: where a joint (a hand) sits relative to the root at a clip time."""
import math

import numpy as np

from . import rootmotion
from .loader import clip_control, load_actor


def joint_offsets(asset, requests):
    """For each (joint, clip seconds): the joint's position in the root's frame at that time.

    Poses a throwaway Actor of the asset's model; the offsets are model-space metres, so
    a warp aiming `joint` at a point aims the root at `point - rotation * offset`.
    """
    actor = load_actor(asset.model_path)
    try:
        bundle = clip_control(actor, asset.clip).getAnim()
        stripped = rootmotion.is_stripped(bundle)
        track = asset.track
        offsets = []
        for joint, seconds in requests:
            frame = seconds * track.fps
            exposed = actor.exposeJoint(None, "modelRoot", joint)
            actor.pose(asset.clip, frame)
            actor.update(force=True)
            joint_pos = np.array(exposed.getPos(actor))
            exposed.removeNode()
            root_pos, root_h = (np.zeros(3), 0.0) if stripped else _absolute_root(track, frame)
            c, s = math.cos(math.radians(-root_h)), math.sin(math.radians(-root_h))
            d = joint_pos - root_pos
            offsets.append((c * d[0] - s * d[1], s * d[0] + c * d[1], d[2]))
        return offsets
    finally:
        actor.cleanup()
        actor.removeNode()


def _absolute_root(track, frame):
    """Root position and heading at `frame` in model space (tracks are stored relative to frame 0)."""
    h0 = math.radians(track.origin_h)
    rel = track.position(frame)
    c, s = math.cos(h0), math.sin(h0)
    pos = track.origin_pos + np.array([c * rel[0] - s * rel[1], s * rel[0] + c * rel[1], rel[2]])
    return pos, track.origin_h + track.heading(frame)
