"""bench/ladder.py: every rung gets its own file, named after its specs."""

from __future__ import annotations

from pathlib import Path

from conftest import bench_script

ROOT = Path(__file__).resolve().parents[2]
ladder = bench_script("ladder")


def test_rung_files_keep_the_names_of_the_committed_ladder():
    out = Path("o")
    policy = "agents/policies/distill2_3to7/policy.pt"
    assert ladder.pair_file(out, f"ppo:{policy}", "expert", 7).name == (
        "ppo-distill2_3to7_vs_expert_7p.json"
    )
    assert ladder.pair_file(out, f"netsearch:{policy}", "expert", 3).name == (
        "netsearch-distill2_3to7_vs_expert_3p.json"
    )
    assert ladder.pair_file(out, "search:50ms", "expert", 5).name == "search-50ms_vs_expert_5p.json"
    for name in ("netsearch-distill2_3to7_vs_expert_3p", "search-50ms_vs_expert_5p"):
        assert (ROOT / "results" / "gnoming" / "ladder" / f"{name}.json").exists()


def test_a_setting_after_the_checkpoint_path_gets_its_own_file():
    """netsearch:PATH:64 and netsearch:PATH are different rungs (they once shared a file,
    and the second run overwrote the first)."""
    out = Path("o")
    policy = "agents/policies/distill2_3to7/policy.pt"
    a = ladder.pair_file(out, f"netsearch:{policy}:64", "expert", 7)
    b = ladder.pair_file(out, f"netsearch:{policy}", "expert", 7)
    assert a != b and a.name == "netsearch-distill2_3to7-64_vs_expert_7p.json"


def test_every_setting_after_the_checkpoint_path_names_the_file():
    out = Path("o")
    policy = "agents/policies/distill2_3to7/policy.pt"
    names = {
        ladder.pair_file(out, f"netsearch:{policy}{tail}", "expert", 7).name
        for tail in ("", ":64", ":self", ":64:self")
    }
    assert len(names) == 4
    assert "netsearch-distill2_3to7-64-self_vs_expert_7p.json" in names
