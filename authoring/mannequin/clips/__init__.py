"""The six clips, each solved frame by frame so planted hands and feet stay on the authored geometry."""
from .base import FPS, Clip
from .locomotion import idle_clip, run_clip, walk_clip
from .mantle import mantle_clip
from .vault import vault_clip

__all__ = ["FPS", "Clip", "all_clips"]


def all_clips():
    return [idle_clip(), walk_clip(), run_clip(), vault_clip(),
            mantle_clip("mantle", 1.5, jump=False), mantle_clip("mantle_high", 2.0, jump=True)]
