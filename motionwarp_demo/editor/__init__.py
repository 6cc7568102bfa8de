"""Tuning warp assets while the demo runs: the curve panel and its mouse editor, phase edits,
hotkey tuner, the scrubbing stand-in and compare mode.

May import: motionwarp, motionwarp_demo.level, motionwarp_demo.character, motionwarp_demo.views.
"""
