from mathbg.cli import script

script()
