"""Bone alignment: where a joint (a hand) sits relative to the root at a clip time."""
from . import rootmotion
from .actor_clips import clip_control
from .loader import load_actor
from .motion import Motion


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
            joint = Motion(tuple(exposed.getPos(actor)))
            exposed.removeNode()
            # A stripped clip keeps its root where frame 0 has it (docs/design.md 3).
            root = _absolute_root(track, 0 if stripped else frame)
            offsets.append((root.inverse() * joint).pos)
        return offsets
    finally:
        actor.cleanup()
        actor.removeNode()


def _absolute_root(track, frame):
    """The root at `frame` in model space: the track's motion of the model frame applied to frame 0's root."""
    return track.motion(frame) * Motion(track.origin_pos, track.origin_h)
