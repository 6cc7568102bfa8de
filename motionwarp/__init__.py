"""motionwarp: motion warping for Panda3D Actors.

Root motion for glTF characters, warp assets with warping phases, a warper that bends a
clip's root motion toward targets found in the level, and scene-probing warp providers.
"""
from .asset import WarpAsset, WarpPhase
from .config import MotionWarpSettings, ProviderSettings
from .driver import RootMotionDriver
from .errors import AssetError, LoadError, MotionWarpError, UsageError, WarpRefused
from .loader import load_actor
from .probe import SceneProbe
from .providers import Interaction, MantleProvider, Refusal, TraversalProvider, VaultProvider
from .rootmotion import RootMotionTrack
from .target import WarpTarget
from .warper import MotionWarper, Warp

__all__ = [
    "AssetError", "Interaction", "LoadError", "MantleProvider", "MotionWarpError", "MotionWarpSettings", "MotionWarper",
    "ProviderSettings", "Refusal", "RootMotionDriver", "RootMotionTrack", "SceneProbe", "TraversalProvider",
    "UsageError", "VaultProvider", "Warp", "WarpAsset", "WarpPhase", "WarpRefused", "WarpTarget", "load_actor",
]
