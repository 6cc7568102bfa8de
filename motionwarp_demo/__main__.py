"""`python -m motionwarp_demo`: the demo, installed with the package."""
import sys

from motionwarp_demo.app.cli import main

sys.exit(main())
