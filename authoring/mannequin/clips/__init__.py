"""The clips, each solved frame by frame so planted hands and feet stay on the authored geometry.

The first eight are the course's; the interactions (issue 17) come after them, so the course's
clips keep their place in the file."""
from .airborne import fall_clip, land_clip
from .base import FPS, Clip
from .interact import reach_clip, sit_clip
from .jump import running_jump_clip
from .locomotion import idle_clip, run_clip, walk_clip
from .mantle import mantle_clip
from .vault import vault_clip

__all__ = ["FPS", "Clip", "all_clips"]


def all_clips():
    return [idle_clip(), walk_clip(), run_clip(), vault_clip(),
            mantle_clip("mantle", 1.5, jump=False), mantle_clip("mantle_high", 2.0, jump=True),
            fall_clip(), land_clip(),
            reach_clip("pick_up"), reach_clip("pick_up_table"), reach_clip("use"), sit_clip(), running_jump_clip()]
