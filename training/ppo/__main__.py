"""``python -m training.ppo`` is ``gnome train``."""

import sys

from training.ppo.command import main

sys.exit(main())
