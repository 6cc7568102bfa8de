"""The mannequin, authored in code: skeleton, mesh, IK-solved clips and their contact ground truth.

Everything is in Panda3D space (Z up, the character faces +Y, metres; the character's left
is -X). `authoring.generate_mannequin` bakes and writes it.
"""



