"""Mirrored warp assets (docs/design.md 3.4, 5.1): a bound asset played left for right.

Everything the asset says is mirrored with its clip: the root motion (x -> -x, heading ->
-heading), each phase's `t_offset` (x) and `r_offset` (heading and roll), its `align_joint`
(the partner) and alignment offset, and each contact's joint, offset and touchdown. They are
mirrored from the source asset, not measured again: a mirrored pose is the source's, reflected.
"""
import dataclasses

from ..animation.mirror import mirror_table, mirrored_name, mirrored_track
from .phasemotion import PhaseMotion


def _flipped(vector):
    return None if vector is None else (-vector[0], vector[1], vector[2])


def mirrored_asset(asset, table=None):
    """`asset` (a bound WarpAsset) for its clip mirrored by `table` ({joint: partner}; found from the
    joint names when None): clip `mirrored_name(asset.clip)`, which the actor gets with
    `motionwarp.mirror_clip(actor, asset.clip, table)`."""
    table = mirror_table(asset.clips.joints, table)
    clip = mirrored_name(asset.clip)
    track = mirrored_track(asset.track, clip)
    fps = track.fps
    phases = [dataclasses.replace(phase, t_offset=_flipped(phase.t_offset),
                                  r_offset=(-phase.r_offset[0], phase.r_offset[1], -phase.r_offset[2]),
                                  align_joint=None if phase.align_joint is None else table[phase.align_joint],
                                  align_offset=_flipped(phase.align_offset),
                                  motion=PhaseMotion(track, phase.start * fps, phase.end * fps, phase.motion.w0))
              for phase in asset.phases]
    contacts = [dataclasses.replace(contact, joint=table[contact.joint], offset=_flipped(contact.offset),
                                    touch=None if contact.touch is None else _flipped(contact.touch), touchdown=_flipped(contact.touchdown))
                for contact in asset.contacts]
    return dataclasses.replace(asset, clip=clip, track=track, phases=phases, contacts=contacts, mirror=table)
