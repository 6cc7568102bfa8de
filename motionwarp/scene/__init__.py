"""The level as motionwarp sees it: the Bullet scene probe, measuring an obstacle from what the
probe hits, and the warp providers that turn that into targets (docs/design.md 7).

May import: base, animation, warp.
"""
