import sys

from mathbg.cli import main

sys.exit(main())
