"""The Nerts and Ginny-O trainer configs' ``players`` is now ``num_players`` (issue #30 item 3);
the old key still works -- constructor, YAML file, ``--players``, a saved config or a
checkpoint's config dict -- with one DeprecationWarning naming ``num_players``, and giving
both names is an error."""

from __future__ import annotations

import warnings

import pytest

pytest.importorskip("torch")
yaml = pytest.importorskip("yaml")

from training.core.config import (  # noqa: E402
    ConfigError,
    build_config,
    from_mapping,
    resume_config,
    to_dict,
    to_yaml,
)
from training.ginny_o.ppo import RESUME_OVERRIDABLE, GinnyPPOConfig, build_parser  # noqa: E402
from training.ginny_o.ppo import main as ginny_main  # noqa: E402
from training.nerts.ppo import NertsPPOConfig  # noqa: E402
from training.nerts.ppo import main as nerts_main  # noqa: E402

CONFIGS = [NertsPPOConfig, GinnyPPOConfig]


def _one_deprecation(record: list[warnings.WarningMessage]) -> None:
    hits = [w for w in record if issubclass(w.category, DeprecationWarning)]
    assert len(hits) == 1, [str(w.message) for w in hits]
    assert "'num_players'" in str(hits[0].message) and "'players'" in str(hits[0].message)


@pytest.mark.parametrize("cls", CONFIGS)
def test_the_new_name_is_the_field_and_is_what_is_saved(cls):
    cfg = cls(num_players=[3])
    assert cfg.num_players == [3]
    assert "players" not in to_dict(cfg) and to_dict(cfg)["num_players"] == [3]
    assert yaml.safe_load(to_yaml(cfg))["num_players"] == [3]


@pytest.mark.parametrize("cls", CONFIGS)
def test_the_old_name_works_in_the_constructor_with_one_warning(cls):
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        cfg = cls(players=[3])
    _one_deprecation(record)
    assert cfg.num_players == [3]
    with pytest.raises(ConfigError, match="give only 'num_players'"):
        cls(players=[3], num_players=[2])


@pytest.mark.parametrize("cls", CONFIGS)
def test_the_old_yaml_key_works_with_one_warning(cls, tmp_path):
    path = tmp_path / "old.yaml"
    path.write_text("players: [2, 3]\nseed: 4\n")
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        cfg = build_config(cls, path)
    _one_deprecation(record)
    assert (cfg.num_players, cfg.seed) == ([2, 3], 4)
    # a command-line override of the new name wins over the file's old key
    with pytest.warns(DeprecationWarning):
        assert build_config(cls, path, {"num_players": [3]}).num_players == [3]
    both = tmp_path / "both.yaml"
    both.write_text("players: [2]\nnum_players: [3]\n")
    with pytest.raises(ConfigError, match="both 'players' and 'num_players' are given"):
        build_config(cls, both)


@pytest.mark.parametrize("cls", CONFIGS)
def test_the_old_flag_works_with_one_warning(cls):
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        cfg = build_config(cls, None, {"players": [3]})  # what --players VALUE gives
    _one_deprecation(record)
    assert cfg.num_players == [3]
    with pytest.raises(ConfigError, match="give only 'num_players'"):
        build_config(cls, None, {"players": [3], "num-players": [2]})


def test_players_and_num_players_are_both_on_the_command_line():
    args = build_parser().parse_args(["--players", "[3]"])
    assert args.field__players == "[3]"
    args = build_parser().parse_args(["--num-players", "[3]"])
    assert args.field__num_players == "[3]"


@pytest.mark.parametrize("main", [nerts_main, ginny_main])
def test_both_flags_at_once_are_a_clear_error(main, capsys):
    assert main(["--players", "[2]", "--num_players", "[3]"]) == 2
    err = capsys.readouterr().err
    assert "give only 'num_players'" in err and "Traceback" not in err


@pytest.mark.parametrize("cls", CONFIGS)
def test_a_saved_config_dict_with_the_old_key_loads(cls):
    saved = {**to_dict(cls()), "num_players": [2, 3]}
    saved["players"] = saved.pop("num_players")  # as a checkpoint written before the rename
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        cfg = from_mapping(cls, saved, "checkpoint")
    _one_deprecation(record)
    assert cfg.num_players == [2, 3]


def test_a_resume_from_an_old_checkpoint_keeps_its_players_and_refuses_to_change_them():
    saved = to_dict(GinnyPPOConfig(num_players=[2, 3]))
    saved["players"] = saved.pop("num_players")
    with pytest.warns(DeprecationWarning):
        cfg = resume_config(GinnyPPOConfig, saved, {"total_steps": 10}, RESUME_OVERRIDABLE, "ck")
    assert (cfg.num_players, cfg.total_steps) == ([2, 3], 10)
    with pytest.warns(DeprecationWarning), pytest.raises(ConfigError, match="num_players"):
        resume_config(GinnyPPOConfig, saved, {"num_players": [4]}, RESUME_OVERRIDABLE, "ck")
    with pytest.warns(DeprecationWarning):  # the same value under either name is no change
        resume_config(GinnyPPOConfig, saved, {"num_players": [2, 3]}, RESUME_OVERRIDABLE, "ck")
