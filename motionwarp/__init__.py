"""motionwarp: motion warping for Panda3D Actors.

Root motion for glTF characters, warp assets with warping phases, and a warper that bends
a clip's root motion toward targets the game gives it (the demo finds them on boxes).
"""
from .asset import WarpAsset, WarpPhase
from .config import MotionWarpSettings
from .driver import RootMotionDriver
from .errors import AssetError, LoadError, MotionWarpError, UsageError, WarpRefused
from .loader import load_actor
from .rootmotion import RootMotionTrack
from .target import WarpTarget
from .warper import MotionWarper, Warp

__all__ = [
    "AssetError", "LoadError", "MotionWarpError", "MotionWarpSettings", "MotionWarper", "RootMotionDriver",
    "RootMotionTrack", "UsageError", "Warp", "WarpAsset", "WarpPhase", "WarpRefused", "WarpTarget", "load_actor",
]
