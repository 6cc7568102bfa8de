"""The demo application: the Demo that wires everything together, its command line (`python -m motionwarp_demo`, main.py)
and the README's pictures.

May import: motionwarp and every demo package.
"""
