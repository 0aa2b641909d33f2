"""``python -m training.gnoming.ppo`` is ``gnome train``."""

import sys

from training.gnoming.ppo.command import main

sys.exit(main())
