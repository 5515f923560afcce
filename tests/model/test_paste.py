"""Each printed command is read-only or a change, and the copied block runs no change when pasted whole."""

from __future__ import annotations

import subprocess

from kafkatui.model.paste import CHANGE, READ_ONLY, command_kinds, paste_block, paste_lines, runnable_changes

B = "--bootstrap-server k:9092"
PLAN = "printf '%s\\n' '{\"version\":1,\"partitions\":[]}' > reassign-broker-2.json"
TOPICS = 'printf \'%s\\n\' \'{"topics":[{"topic":"t"}],"version":1}\' > topics-t.json'


def test_every_printed_form_has_its_kind() -> None:
    cases = {
        f"kafka-topics.sh {B} --describe --unavailable-partitions": READ_ONLY,
        f"kafka-broker-api-versions.sh {B} | grep 'id:'": READ_ONLY,
        "grep -E 'Shrinking ISR|ISR updated' server.log | tail -n 50": READ_ONLY,
        f"kafka-configs.sh {B} --describe --entity-type brokers --entity-default": READ_ONLY,
        f"kafka-log-dirs.sh {B} --describe --broker-list 2": READ_ONLY,
        f"kafka-reassign-partitions.sh {B} --list": READ_ONLY,
        f"kafka-consumer-groups.sh {B} --list": READ_ONLY,
        f"kafka-configs.sh {B} --alter --entity-type topics --entity-name t --add-config min.insync.replicas=2": CHANGE,
        f'for t in a b; do kafka-configs.sh {B} --alter --entity-type topics --entity-name "$t" '
        "--add-config min.insync.replicas=1; done": CHANGE,
        f"kafka-leader-election.sh {B} --election-type PREFERRED --all-topic-partitions": CHANGE,
        f"kafka-reassign-partitions.sh {B} --reassignment-json-file r.json --execute --throttle 50000000": CHANGE,
        f"kafka-reassign-partitions.sh {B} --reassignment-json-file r.json --verify": CHANGE,  # removes throttles
        f"kafka-topics.sh {B} --delete --topic t": CHANGE,
        "kubectl patch kafkatopic t -n kafka --type merge -p '{}'": CHANGE,
        "some-tool-we-do-not-know --now": CHANGE,
    }
    assert dict(zip(cases, command_kinds(list(cases)), strict=True)) == cases


def test_a_file_is_a_change_when_a_change_reads_it() -> None:
    execute = f"kafka-reassign-partitions.sh {B} --reassignment-json-file reassign-broker-2.json --execute"
    generate = f"kafka-reassign-partitions.sh {B} --topics-to-move-json-file topics-t.json --broker-list 1,2 --generate"
    assert command_kinds([PLAN, execute, TOPICS, generate]) == [CHANGE, CHANGE, READ_ONLY, READ_ONLY]


def test_pasting_the_block_whole_runs_only_the_checks() -> None:
    describe = f"kafka-topics.sh {B} --describe --unavailable-partitions"
    execute = f"kafka-reassign-partitions.sh {B} --reassignment-json-file reassign-broker-2.json --execute"
    block = paste_block([describe, PLAN, execute], "If broker 2 is gone for good")
    assert block.splitlines() == [
        describe,
        "# If broker 2 is gone for good, then run (changes the cluster: uncomment to run):",
        f"# {PLAN}",
        f"# {execute}",
    ]
    assert not runnable_changes(block, [describe, PLAN, execute])
    assert runnable_changes("\n".join([describe, PLAN, execute]), [describe, PLAN, execute]) == [PLAN, execute]
    assert subprocess.run(["bash", "-n"], input=block, text=True, check=False).returncode == 0


def test_several_findings_share_one_block_checks_first_each_change_once_under_its_own_condition() -> None:
    describe = f"kafka-topics.sh {B} --describe --unavailable-partitions"
    elect = f"kafka-leader-election.sh {B} --election-type UNCLEAN --topic t --partition 0"
    alter = f"kafka-configs.sh {B} --alter --entity-type topics --entity-name t --add-config min.insync.replicas=2"
    lines = paste_lines([([describe, elect], "Only if no ISR member can come back"), ([describe, alter, elect], None)])
    assert lines[0] == describe and lines.count(describe) == 1
    assert lines[1].startswith("# Only if no ISR member can come back, then run") and lines[2] == f"# {elect}"
    assert lines[3].startswith("# Once you have read the steps above") and lines[4:] == [f"# {alter}"]
