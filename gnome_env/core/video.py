"""Animations of ``rgb_array`` frames, for every game's replays: an animated GIF (Pillow)
or an H.264 MP4 (the ``ffmpeg`` program). Game-independent: a game's viewer makes the
frames (:func:`gnome_env.gnoming.viewer.frames`, :func:`gnome_env.nerts.viewer.frames`)
and these functions write them, atomically (a temp file, then a rename)."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterable
from pathlib import Path

import numpy as np

#: How long the last frame of an animation stays (the final table), in milliseconds.
HOLD_LAST_MS = 2000


def ffmpeg_path() -> str | None:
    """The ``ffmpeg`` executable on PATH, or None."""
    return shutil.which("ffmpeg")


def _check_fps(fps: float) -> None:
    if not fps > 0:
        raise ValueError(f"fps={fps!r} is not allowed: use a positive number")


def _paletted(pictures: list[np.ndarray]) -> list | None:
    """The pictures as Pillow palette images sharing one exact palette, when all of them
    together use at most 256 colours (the renders use a few dozen): no colour is changed and
    Pillow need not quantize each frame. None when there are more colours."""
    from PIL import Image

    codes = [
        (p[..., 0].astype(np.uint32) << 16) | (p[..., 1].astype(np.uint32) << 8) | p[..., 2]
        for p in pictures
    ]
    colours = np.unique(np.concatenate([np.unique(c) for c in codes]))
    if len(colours) > 256:
        return None
    palette = np.stack([(colours >> 16) & 255, (colours >> 8) & 255, colours & 255], axis=1)
    flat = palette.astype(np.uint8).ravel().tolist()
    images = []
    for c in codes:
        image = Image.fromarray(np.searchsorted(colours, c).astype(np.uint8), mode="P")
        image.putpalette(flat)
        images.append(image)
    return images


def write_gif(
    pictures: Iterable[np.ndarray],
    path: str | os.PathLike,
    fps: float = 4.0,
    hold_ms: dict[int, int] | None = None,
) -> int:
    """Write ``pictures`` (uint8 (H, W, 3) arrays of one size; an iterable, consumed after
    the checks) as an animated GIF, one every
    ``1 / fps`` seconds; frame ``i`` in ``hold_ms`` stays that many milliseconds, and the
    last one :data:`HOLD_LAST_MS`. Needs Pillow (a clear ValueError without it); returns
    the frame count."""
    try:
        from PIL import Image
    except ImportError:
        raise ValueError(
            "--gif needs Pillow (pip install pillow; the train extra brings it)"
        ) from None
    _check_fps(fps)
    arrays = list(pictures)  # frames are made only now
    if not arrays:
        raise ValueError("an animation needs at least one frame")
    images = _paletted(arrays) or [Image.fromarray(p) for p in arrays]
    duration = [max(20, round(1000 / fps))] * len(images)
    for i, ms in (hold_ms or {}).items():
        duration[i] = ms
    duration[-1] = HOLD_LAST_MS
    path = Path(path)
    tmp = path.with_name(path.name + ".tmp")
    images[0].save(
        tmp, format="GIF", save_all=True, append_images=images[1:], duration=duration, loop=0
    )
    os.replace(tmp, path)
    return len(images)


def write_mp4(
    pictures: Iterable[np.ndarray],
    path: str | os.PathLike,
    fps: float = 4.0,
    exe: str | None = None,
) -> int:
    """Write ``pictures`` as an H.264 MP4 through the ``ffmpeg`` program ``exe`` (default:
    the one on PATH; raw frames on its stdin), the last one held about two seconds; returns
    the frame count. A clear ValueError if ffmpeg is not installed or fails."""
    exe = exe or ffmpeg_path()
    if exe is None:
        raise ValueError(
            "--mp4 needs the ffmpeg program on PATH (apt-get install ffmpeg); "
            "--gif needs only Pillow"
        )
    _check_fps(fps)
    pictures = list(pictures)  # frames are made only now
    if not pictures:
        raise ValueError("an animation needs at least one frame")
    pictures += [pictures[-1]] * max(1, round(HOLD_LAST_MS / 1000 * fps))
    h, w, _ = pictures[0].shape
    pad_h, pad_w = h % 2, w % 2  # yuv420p needs even sizes
    path = Path(path)
    tmp = path.with_name(path.stem + ".tmp" + path.suffix)
    cmd = [
        exe, "-y", "-loglevel", "error", "-f", "rawvideo", "-pix_fmt", "rgb24",
        "-s", f"{w + pad_w}x{h + pad_h}", "-r", str(fps), "-i", "-",
        "-c:v", "libx264", "-pix_fmt", "yuv420p", str(tmp),
    ]  # fmt: skip
    raw = b"".join(
        np.pad(f, ((0, pad_h), (0, pad_w), (0, 0)), mode="edge").tobytes() for f in pictures
    )
    done = subprocess.run(cmd, input=raw, capture_output=True, check=False)
    if done.returncode != 0:
        tmp.unlink(missing_ok=True)
        raise ValueError(f"ffmpeg failed: {done.stderr.decode(errors='replace').strip()[-500:]}")
    os.replace(tmp, path)
    return len(pictures)
