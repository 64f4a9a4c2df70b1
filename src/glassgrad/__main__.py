"""`python -m glassgrad run script.py` and `python -m glassgrad doctor script.py`: the glassgrad command."""

import sys

from .cli import main

sys.exit(main())
