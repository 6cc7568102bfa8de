"""What the demo shows: the HUD, the debug view, the window's look, and the headless report.

May import: motionwarp, motionwarp_demo.level.
"""
