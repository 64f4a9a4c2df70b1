"""`import torch` in a child that multiprocessing's spawn or forkserver method started under `glassgrad run`.

`glassgrad run` puts this package's folder first on sys.path; multiprocessing hands the parent's sys.path to
each child before the child re-imports the main script, so the script's `import torch` lands here. This module
installs the same alias as the parent's and puts glassgrad in its own place.
"""

import sys

from glassgrad.torch_alias import install

if __name__ == "torch":  # imported as glassgrad._spawned.torch (a tool walking the package), it changes nothing
    sys.modules[__name__] = install()
