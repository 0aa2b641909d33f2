"""The README and the docs hold together: every relative link of README.md, docs/*.md and
results/README.md points at a file that exists (and, for a #fragment into a Markdown page,
at one of its headings), and the README stays a two-minute read (at most 200 lines)."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
README_MAX_LINES = 200
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), ROOT / "results" / "README.md"]

_FENCE = re.compile(r"^(```|~~~).*?^\1", re.S | re.M)
# [text](target) and ![alt](target), the target up to whitespace or ")"; an optional "title"
_LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")


def _slug(heading: str) -> str:
    """GitHub's anchor for a heading: link targets and punctuation dropped, lower case, each
    space a hyphen ("PettingZoo (AEC)" -> "pettingzoo-aec", "A + B" -> "a--b")."""
    text = re.sub(r"\]\([^)]*\)", "", heading)
    text = re.sub(r"[^\w\- ]", "", text.strip().lower())
    return text.replace(" ", "-")


def _anchors(page: Path) -> set[str]:
    text = _FENCE.sub("", page.read_text(encoding="utf-8"))
    return {_slug(m.group(1)) for m in re.finditer(r"^#{1,6}\s+(.+?)\s*#*\s*$", text, re.M)}


def relative_links(page: Path) -> list[str]:
    """The relative link targets of a Markdown page (fenced code blocks left out)."""
    text = _FENCE.sub("", page.read_text(encoding="utf-8"))
    targets = []
    for line in text.splitlines():
        for m in _LINK.finditer(line):
            target = m.group(1)
            if re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*:", target):  # https:, mailto:, ...
                continue
            targets.append(target)
    return targets


def broken_links(pages: list[Path]) -> list[str]:
    broken = []
    for page in pages:
        for target in relative_links(page):
            path, _, fragment = target.partition("#")
            resolved = (page.parent / path).resolve() if path else page
            where = f"{page.relative_to(ROOT) if page.is_relative_to(ROOT) else page}: {target}"
            if not resolved.exists():
                broken.append(f"{where} (no such file)")
            elif fragment and resolved.suffix == ".md" and fragment not in _anchors(resolved):
                broken.append(f"{where} (no heading #{fragment})")
    return broken


def test_the_pages_exist():
    for page in PAGES:
        assert page.is_file(), page
    assert len(PAGES) > 10
    assert _slug("Gymnasium + MaskablePPO") == "gymnasium--maskableppo"
    assert _slug("PPO speed across commits (issue #13)") == "ppo-speed-across-commits-issue-13"


def test_every_relative_link_points_at_an_existing_file():
    broken = broken_links(PAGES)
    assert not broken, "broken links:\n" + "\n".join(broken)


def test_the_readme_is_at_most_200_lines():
    lines = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    assert len(lines) <= README_MAX_LINES, f"README.md has {len(lines)} lines"


def test_the_checker_finds_broken_links(tmp_path):
    """The check can fail: a missing file, a missing heading and a link inside a table are
    caught; a URL, an anchor that exists and a link inside a code block are not reported."""
    (tmp_path / "there.md").write_text("# A heading: with `code`\n\ntext\n")
    page = tmp_path / "page.md"
    page.write_text(
        "# Title\n\n"
        "[ok](there.md) [ok](there.md#a-heading-with-code) [ok](#title) [web](https://x.y/z)\n"
        "| [`gone`](gone.json) | [bad anchor](there.md#nowhere) |\n"
        "```bash\n[not a link](missing.md)\n```\n"
        "![picture](images/none.png)\n"
    )
    assert sorted(broken_links([page])) == sorted(
        [
            f"{page}: gone.json (no such file)",
            f"{page}: there.md#nowhere (no heading #nowhere)",
            f"{page}: images/none.png (no such file)",
        ]
    )
