"""``python -m bulkhead_lab``: the same command line as ``bulkhead-lab``."""

import sys

from bulkhead_lab.cli import main

sys.exit(main())
