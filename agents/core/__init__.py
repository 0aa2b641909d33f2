"""What every game's players share: the arena's seeds, metrics, run loop and front door
(:mod:`agents.core.arena`) and checkpoint reading/writing (:mod:`agents.core.checkpoint_io`)."""
