"""What the harness's python tests share: torch, or exit 77 (ctest's "skipped") without it, and
the harness's modules on the path with torch bound to its seals. Run with an interpreter that has
torch (Debian's /usr/bin/python3 with python3-torch)."""
import os
import sys

try:
    import torch
except ImportError:
    print("SKIP: no torch for %s (apt-get install python3-torch)" % sys.executable)
    sys.exit(77)

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "runner", "harness"))
import kaudit_harness_seals  # noqa: E402

kaudit_harness_seals.bind_torch(torch)
