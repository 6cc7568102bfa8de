"""The motionwarp demo: a walkable course of obstacles to vault, mantle and interact with.

Run it with `python -m motionwarp_demo` (installed as `motionwarp-demo`; `python main.py` in a clone).
The plugin, motionwarp, never imports it: it ships in the same wheel as an example program.
"""
