"""Bone alignment: where a joint (a hand) sits in the Actor's frame at a clip time, the clip's root motion taken off."""
from . import rootmotion
from .actor_clips import clip_control
from .loader import load_actor
from .motion import Motion


def joint_offsets(asset, requests):
    """For each (joint, clip seconds): where the joint is then relative to an Actor of the model
    file (its own skeleton frame) that plays the clip stripped of its root motion and stays put.

    Poses a throwaway Actor of the asset's model; the offsets are model-space metres, so a warp
    aiming `joint` at a point puts the Actor at `point - rotation * offset`. The root's own place
    at frame 0 (a hips root's height, a root away from the origin) is part of the offset, as it
    is of the stripped pose. A clip already stripped (by an Actor of any skeleton frame) looks
    to the throwaway Actor as stripped in its own frame, so the offsets do not depend on whether
    an Actor was driven first.
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
            # a stripped clip's root motion is already off (docs/design.md 3)
            motion = Motion() if stripped else track.motion(frame)
            offsets.append((motion.inverse() * joint).pos)
        return offsets
    finally:
        actor.cleanup()
        actor.removeNode()

