"""The application layer: the ``gnome`` command line (:mod:`training.app.cli`: train, eval,
play, demo, bench) and the throughput benchmark behind ``gnome bench``
(:mod:`training.gnoming.bench`). It sits on top of everything else -- gnome_env, agents
and the training code -- and nothing else in the project imports it.
"""
