"""The Nerts speed benchmark, as ``gnome bench --game nerts`` runs it
(:mod:`training.nerts.bench`): ``python bench/nerts_speed.py --help`` for the options."""

import sys

from training.nerts.bench import main

if __name__ == "__main__":
    sys.exit(main(prog="python bench/nerts_speed.py"))
