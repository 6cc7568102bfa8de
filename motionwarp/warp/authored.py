"""Where a clip was authored to meet each phase's target, in the clip's own space (docs/design.md 4).

The inverse of the warp's goal: a phase whose root ends at G with heading Q has its target
anchor at T0 = G + Q align_offset - RT t_offset, RT = Q R(r_offset)^-1. Played on a target at
that anchor the warp is the identity. Providers read these to place targets the clip itself
implies (the stand-up point after a seat, a jump's take-off before its landing), so one clip
serves every bench and every gap.
"""
from ..animation.motion import Motion


def authored_anchor(asset, index):
    """Phase `index`'s target (point and heading) as a Motion in the clip's start frame (heading only)."""
    phase = asset.phases[index]
    x, y, z, h = asset.track.sample(phase.end * asset.track.fps)
    root = Motion((x, y, z), h)
    if phase.align_offset is not None:
        reach = root.rotate(phase.align_offset)
        root = Motion((x + reach[0], y + reach[1], z + reach[2]), h)
    anchor_h = h - phase.r_offset[0]
    back = Motion((0.0, 0.0, 0.0), anchor_h).rotate(phase.t_offset)
    return Motion((root.pos[0] - back[0], root.pos[1] - back[1], root.pos[2] - back[2]), anchor_h)


def authored_between(asset, first, later):
    """Phase `later`'s target seen from phase `first`'s target, as the clip was authored (a Motion)."""
    return authored_anchor(asset, first).inverse() * authored_anchor(asset, later)


def authored_root_end(asset, index):
    """Where the root ends phase `index`, seen from that phase's target (a Motion): where the character
    stands relative to the marker or landing it meets."""
    x, y, z, h = asset.track.sample(asset.phases[index].end * asset.track.fps)
    return authored_anchor(asset, index).inverse() * Motion((x, y, z), h)
