"""Optional numba compilation shared by the kernels (:mod:`gnome_env._kernels`) and the
random generator (:mod:`gnome_env.rng`).

numba is optional (the ``fast`` extra). Without it, or with the environment variable
``GNOME_NO_NUMBA=1`` set before import, every function decorated with :func:`maybe_njit`
runs as the plain Python it is written in: identical results, much slower.
"""

from __future__ import annotations

import os

try:
    if os.environ.get("GNOME_NO_NUMBA", "") not in ("", "0"):
        raise ImportError("GNOME_NO_NUMBA is set")
    import numba
except ImportError:
    numba = None

#: True when :func:`maybe_njit` compiles (numba importable and not switched off).
COMPILED = numba is not None


def maybe_njit(fn):
    """``numba.njit`` when numba is available, else the function unchanged.

    The kernels allocate nothing, so they are compiled without numba's reference-counting
    runtime (``_nrt=False``): its atomic increments on the row views cost more than the
    rules themselves. ``cache=True`` keeps the compiled code on disk between runs.
    """
    if numba is None:
        return fn
    try:
        return numba.njit(cache=True, _nrt=False)(fn)
    except (TypeError, KeyError, ValueError):  # a numba without the option: keep the runtime
        return numba.njit(cache=True)(fn)


def entry_point(fn, *args):
    """``fn`` compiled for the types of ``args``, to call without numba's type dispatch.

    The dispatcher types every argument at every call (about 0.05 us each), a large share
    of the AEC env's single-game step (:class:`gnome_env.vector.KernelGame`), whose kernels
    always get the same arrays and an int. The entry point skips that -- and does not check
    the types, so it must only ever get arguments typed exactly like ``args``. Without numba
    (or where the entry point cannot be had) this is ``fn`` itself.
    """
    if numba is None:
        return fn
    try:
        return fn.compile(tuple(numba.typeof(a) for a in args))
    except AttributeError:  # pragma: no cover - a numba without this API: dispatch as usual
        return fn
