"""Optional numba compilation shared by the kernels (:mod:`gnome_env.gnoming._kernels`) and the
random generator (:mod:`gnome_env.core.rng`).

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

_NOTICE_GIVEN = False


def has_compiled_cache(module_file: str) -> bool:
    """Whether numba's on-disk cache holds compiled code of the module ``module_file``:
    an index file ``<module>.*.nbi`` in the ``__pycache__`` beside it or under
    ``NUMBA_CACHE_DIR`` (where numba writes when set)."""
    from pathlib import Path

    path = Path(module_file)
    places = [path.parent / "__pycache__"]
    cache_dir = os.environ.get("NUMBA_CACHE_DIR")
    if cache_dir:
        places.append(Path(cache_dir))
    pattern = f"{path.stem}.*.nbi"
    for place in places:
        try:
            if next(place.rglob(pattern), None) is not None:
                return True
        except OSError:
            continue
    return False


def compile_notice(module_file: str) -> None:
    """Print one line to stderr (once per process) when numba will have to compile the
    module ``module_file`` because nothing of it is cached yet: the first use then takes
    a while, and the user should know why."""
    global _NOTICE_GIVEN
    if numba is None or _NOTICE_GIVEN or has_compiled_cache(module_file):
        return
    import sys

    _NOTICE_GIVEN = True
    print(
        "gnome_env: compiling the numba kernels on first use (about 20-60 s, once; "
        "cached on disk for later runs; GNOME_NO_NUMBA=1 runs plain Python instead)",
        file=sys.stderr,
        flush=True,
    )


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
    of the AEC env's single-game step (:class:`gnome_env.gnoming.vector.KernelGame`), whose kernels
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
