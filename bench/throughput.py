"""Throughput benchmark script: the same as ``gnome bench`` (see training/gnoming/bench.py).

Usage: python bench/throughput.py [--seconds 3] [--players 5] [--batches 1 64 1024 4096]
                                  [--no-references] [--json PATH]
"""

from __future__ import annotations

import sys

from training.app.cli import main

if __name__ == "__main__":
    sys.exit(main(["bench", *sys.argv[1:]]))
