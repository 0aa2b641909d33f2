"""The Ginny-O speed benchmark, as ``gnome bench --game ginny_o`` runs it
(:mod:`training.ginny_o.bench`): ``python bench/ginny_speed.py --help`` for the options."""

import sys

from training.ginny_o.bench import main

if __name__ == "__main__":
    sys.exit(main(prog="python bench/ginny_speed.py"))
