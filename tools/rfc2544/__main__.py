# SPDX-License-Identifier: MIT
"""`python3 tools/rfc2544 ...`: tools/rfc2544/run.py (see its --help)."""
import os
import sys

# Run as a folder, Python puts this folder first on sys.path; put tools/
# there instead, so that this folder's modules load as the package
# rfc2544 and none of them shadows a module of tools/ or tools/linux_guest.
sys.path[0] = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

from rfc2544.run import main  # noqa: E402

sys.exit(main())
