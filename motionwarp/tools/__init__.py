"""Command-line tools for a game's own character: `python -m motionwarp inspect`.

May import: every layer below (base, animation, warp, scene, ik).
"""
