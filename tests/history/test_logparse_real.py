"""Broker logs of real Kafka 4.1.1 and 3.9.1 (trimmed lab logs, tests/history/fixtures/real-kafka-*/):
every line understood, and the ISR / leader / offline states they give are the ones `kafkatui record`
saw in the same run (within one refresh: see tests/history/real_logs.py)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from kafkatui.history.logparse import IsrLogEvent, ParseReport, parse_line, parse_logs
from tests.history import real_logs as rl

pytestmark = pytest.mark.parametrize("line", rl.LINES)


def test_every_line_of_the_real_logs_is_understood(line: str) -> None:
    events, report = rl_parse(line)
    assert report.files == 12 and report.problems == []
    assert report.unparsed == 0, report.unparsed_examples
    assert report.events == len(events) > 30
    assert {e.topic for e in events} == set(rl.TOPICS)
    kinds = {e.kind for e in events}
    assert {"shrink", "update", "leader", "offline", "unclean"} <= kinds
    assert report.broker_events >= 10 and report.derived >= 2  # fences: solo-0 and unclean-0 went offline


def rl_parse(line: str) -> tuple[list[IsrLogEvent], ParseReport]:
    return parse_logs(rl.log_glob(line))


def test_a_truncated_last_line_is_counted_unparsed(line: str, tmp_path: Path) -> None:
    shutil.copytree(rl.fixture_dir(line), tmp_path / "f", ignore=shutil.ignore_patterns("history"))
    whole = next(x for x in (tmp_path / "f" / "b1" / "server.log").read_text().splitlines() if "Shrinking ISR" in x)
    with open(tmp_path / "f" / "b1" / "server.log", "a") as f:
        f.write(whole[: len(whole) // 2])  # the broker died mid-write
    ctl = tmp_path / "f" / "controller" / "controller.log"
    reg = next(x for x in ctl.read_text().splitlines() if "fenced=1" in x)
    with open(ctl, "a") as f:
        f.write(reg[:150])
    events, report = parse_logs(str(tmp_path / "f" / "*" / "*.log"))
    before, _ = rl_parse(line)
    assert report.unparsed == 2 and len(report.unparsed_examples) == 2
    assert [(e.ts_ms, e.kind, e.topic) for e in events] == [(e.ts_ms, e.kind, e.topic) for e in before]


def test_states_match_what_the_recorder_saw(line: str) -> None:
    events, _ = rl_parse(line)
    recs = rl.records(line)
    st = rl.stamps(recs)
    for topic in rl.TOPICS:
        recorded = rl.recorded_isr_steps(recs, topic)
        logged = [s for s in rl.logged_isr_steps(events, topic) if s.ts <= st[-1]]  # the recorder stopped first
        assert len(recorded) >= 3
        assert rl.match(recorded, logged, st, st[-1]) == [], topic


def test_each_fault_is_in_the_logs(line: str) -> None:
    events, _ = rl_parse(line)
    info = rl.run_info(line)
    elect = next(t for t in info["timeline"] if t["what"].startswith("elect exit 0"))
    new_leader = int(elect["what"].rsplit("-> ", 1)[1].split()[0])
    unclean = [e for e in events if e.kind == "unclean" and e.topic == "unclean"]
    assert [(e.leader, e.new_isr) for e in unclean] == [(new_leader, (new_leader,))]
    assert abs(unclean[0].ts_ms - elect["ts"] * 1000) < 10_000
    offline = [e for e in events if e.kind == "offline" and e.topic == "unclean" and e.ts_ms < unclean[0].ts_ms]
    assert offline and offline[0].source.endswith(tuple(f"controller.log:{n}" for n in range(1, 10_000)))
    solo_off = [e for e in events if e.topic == "solo" and e.kind == "offline"]
    crash = next(t["ts"] for t in info["timeline"] if t["what"] == "crash b1") * 1000
    assert solo_off and 0 < solo_off[0].ts_ms - crash < 15_000  # fenced after broker.session.timeout.ms
    shrinks = [e for e in events if e.kind == "shrink" and e.topic == "isr"]
    hang = next(t["ts"] for t in info["timeline"] if t["what"] == "hang b3") * 1000
    assert shrinks[0].out_of_sync[0][0] == 3 and 0 < shrinks[0].ts_ms - hang < 10_000


def test_one_line_of_each_real_form(line: str) -> None:
    forms = {
        "shrink": "Shrinking ISR",
        "update": "ISR updated to",
        "leader": "Leader isr-0",
        "offline": "Current leader is -1",
        "unclean": "UNCLEAN partition change",
    }
    text = "".join(p.read_text() for p in sorted(rl.fixture_dir(line).glob("*/*.log")))
    for kind, needle in forms.items():
        sample = next(x for x in text.splitlines() if needle in x)
        ev = parse_line(sample)
        assert ev is not None and ev.kind == kind, sample
