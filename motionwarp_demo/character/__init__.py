"""The playable character: its file, controller, body, locomotion, input, camera and autopilot.

May import: motionwarp, motionwarp_demo.level.
"""
