"""The Nerts bot ladder: ``bench/game_ladder.py --game nerts`` (see that script).

Usage:
    python bench/nerts_ladder.py --pairs expert,greedy greedy,random expert,random \
        --players 2 4 6 --games 3000 --seed 900000 --workers 1 --out results/nerts/ladder
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from game_ladder import main

if __name__ == "__main__":
    sys.exit(main(["--game", "nerts", *sys.argv[1:]]))
