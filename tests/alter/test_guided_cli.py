"""`kafkatui elect` / `kafkatui reassign` as a user meets them: help, bad input, unreachable clusters,
and the audit log shared with `kafkatui alter`."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from kafkatui.alter import audit, revert
from kafkatui.alter.errors import NotConfirmedError, NothingToRevertError
from kafkatui.alter.guard import typed_confirmation
from kafkatui.alter.plan import ChangePlan, ConfigChange
from tests.alter.support import assert_one_line_error, free_port, kafkatui


def test_help_lists_the_new_subcommands_and_their_exit_codes() -> None:
    top = kafkatui("--help")
    assert top.returncode == 0 and "elect" in top.stdout and "reassign" in top.stdout
    for cmd in ("elect", "reassign"):
        proc = kafkatui(cmd, "--help")
        text = " ".join(proc.stdout.split())  # argparse wraps the epilog
        assert proc.returncode == 0 and "14 not confirmed" in text and "18 not applicable" in text


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (["elect", "--topic", "t"], "one of the arguments --preferred --unclean is required"),
        (["elect", "--preferred", "--unclean", "--all"], "not allowed with argument"),
        (["elect", "--preferred"], "give --topic T (repeatable) or --all"),
        (["elect", "--preferred", "--all", "--topic", "t"], "not both"),
        (["elect", "--unclean", "--topic", "t"], "exactly one --topic T and one --partition P"),
        (["elect", "--unclean", "--all", "--partition", "0"], "exactly one --topic T"),
        (["elect", "--preferred", "--topic", "t", "--partition", "-1"], "bad partition -1"),
        (["reassign", "--topic", "t"], "give --replication-factor N"),
        (["reassign", "--rf", "3"], "give --topic T"),
        (["reassign", "--topic", "t", "--rf", "0"], "must be >= 1"),
        (["reassign", "--topic", "t", "--rf", "x"], "invalid int value"),
        (["reassign", "--topic", "t", "--cancel", "--rf", "2"], "--cancel takes only --topic"),
        (["reassign", "--revert-last", "--topic", "t"], "--revert-last takes no --topic"),
        (["reassign", "--topic", "t", "--rf", "2", "--wait-timeout", "0"], "--wait-timeout: must be more than 0"),
    ],
)
def test_bad_input_is_one_line_and_exit_3(args: list[str], fragment: str) -> None:
    assert_one_line_error(kafkatui(*args, "--bootstrap", "127.0.0.1:1"), 3, fragment)


@pytest.mark.parametrize(
    "args", [["elect", "--preferred", "--all", "--dry-run"], ["reassign", "--topic", "t", "--rf", "2", "--dry-run"]]
)
def test_unreachable_cluster_exits_5(args: list[str]) -> None:
    assert_one_line_error(kafkatui(*args, "--bootstrap", f"127.0.0.1:{free_port()}", "--timeout", "2"), 5, "127.0.0.1")


def test_alter_revert_last_skips_election_and_reassignment_records(tmp_path: Path) -> None:
    log = tmp_path / "audit.jsonl"
    config = {
        "cluster_id": "c",
        "command_id": "a",
        "resource": {"kind": "topic", "name": "orders"},
        "key": "min.insync.replicas",
        "before": {"value": "1", "source": "DEFAULT_CONFIG"},
        "after": {"value": "2", "source": "DYNAMIC_TOPIC_CONFIG"},
        "result": "ok",
    }
    moved = audit.partition_record("reassign", "c", "b", "orders", 0, {"replicas": [1]}, {"replicas": [1, 2]}, None)
    elected = audit.partition_record("elect-preferred", "c", "e", "orders", 0, {"leader": 2}, {"leader": 1}, None)
    log.write_text("".join(json.dumps(r) + "\n" for r in (config, moved, elected)))
    (change,) = revert.history(revert.CONFIG, "c", log)
    assert revert.config_plan(change) == ChangePlan((ConfigChange("topic", "orders", "min.insync.replicas", None),))
    assert [s.command_id for s in revert.history("reassign", "c", log)] == ["b"]
    assert revert.history("reassign", "other", log) == []
    log.write_text(json.dumps(moved) + "\n")
    with pytest.raises(NothingToRevertError):
        revert.pick(revert.history(revert.CONFIG, None, log), None, "the log")


def test_history_walks_back_and_a_revert_of_a_revert_re_applies(tmp_path: Path) -> None:
    def rec(cid: str, value: str, revert_of: str | None = None) -> dict[str, object]:
        r = {
            "cluster_id": "c",
            "command_id": cid,
            "resource": {"kind": "topic", "name": "orders"},
            "key": "min.insync.replicas",
            "before": {},
            "after": {"value": value, "source": "DYNAMIC_TOPIC_CONFIG"},
            "result": "ok",
        }
        return r if revert_of is None else {**r, "revert_of": revert_of}

    log = tmp_path / "audit.jsonl"

    def newest_to_undo(*recs: dict[str, object]) -> str | None:
        log.write_text("".join(json.dumps(r) + "\n" for r in recs))
        try:
            return revert.pick(revert.history(revert.CONFIG, "c", log), None, "log").command_id
        except NothingToRevertError:
            return None

    a, b = rec("A", "2"), rec("B", "3")
    assert newest_to_undo(a, b) == "B"
    assert newest_to_undo(a, b, rec("uB", "2", "B")) == "A"  # u again walks further back
    assert newest_to_undo(a, b, rec("uB", "2", "B"), rec("uA", "1", "A")) is None
    # --revert N on the undo re-applies B: a new change, which u undoes next
    assert newest_to_undo(a, b, rec("uB", "2", "B"), rec("rB", "3", "uB")) == "rB"
    assert newest_to_undo(a, b, rec("uB", "2", "B"), rec("rB", "3", "uB"), rec("urB", "2", "rB")) == "A"
    sets = revert.history(revert.CONFIG, "c", log)
    assert [(s.command_id, s.undo, s.undone_by) for s in sets] == [
        ("urB", True, None),
        ("rB", False, "urB"),
        ("uB", True, None),
        ("B", False, "uB"),
        ("A", False, None),
    ]


class _CtrlC(io.StringIO):
    def isatty(self) -> bool:
        return True

    def readline(self, size: int | None = -1) -> str:  # type: ignore[override]
        raise KeyboardInterrupt


def test_ctrl_c_at_the_confirmation_confirms_nothing() -> None:
    err = io.StringIO()
    with pytest.raises(NotConfirmedError, match="interrupted at the confirmation: nothing changed"):
        typed_confirmation("the topic name", "orders", _CtrlC(), err)
    assert err.getvalue().startswith("type the topic name to apply: ")
