"""Benchmarks and measurements (run them; pytest does not collect them).

`python -m tests.bench` prints the cost table of the README's Performance section. The
`bench_*.py` scripts look closer at one part (providers, contact IK by limbs bent, loading
many phases, pose pops) and `measure_contact_ik.py` prints the contact IK's accuracy; `demo_share.py`
times the demo's headless frame by task and call, `markers.py` MarkerProvider.find among many markers.
"""
