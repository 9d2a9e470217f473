"""``python -m fracas``: the same command line as ``fracas``."""

import sys

from fracas.cli.main import main

sys.exit(main())
