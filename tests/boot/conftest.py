# SPDX-License-Identifier: MIT
"""tests/boot/conftest.py: one machine shared by a module's read-only tests
(a boot is cheap, but not free); tests that crash or stop it boot their own."""
import os

import pytest

import qemu


@pytest.fixture(scope="module")
def machine(request, iso, record_ready):
    mod = os.path.splitext(os.path.basename(request.node.fspath))[0]
    with qemu.Machine(iso, name=f"{mod}-shared") as m:
        yield record_ready(m)
