"""Config changes from the dashboard: read-only refusal, the wizard, preview risks, confirmation, apply,
audit and revert, against the simulator (and a fake source for the wizard arithmetic and snapshots)."""

from __future__ import annotations

import asyncio
import json
import shlex
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
import yaml
from textual.pilot import Pilot
from textual.widgets import Button, Input, OptionList, RadioSet, Static, TextArea

from kafkatui.alter.apply import ConfigAlterer
from kafkatui.alter.plan import ChangePlan, ConfigChange
from kafkatui.alter.risk import default_broker_value, recommend
from kafkatui.kafka.settings import ConnectionSettings
from kafkatui.kafka.source import KafkaClusterSource
from kafkatui.model.snapshot import ClusterSnapshot
from kafkatui.sim.runner import SimRunner
from kafkatui.tui.app import KafkaTuiApp
from kafkatui.tui.feed import Feed
from kafkatui.tui.screens.topic import TopicScreen
from kafkatui.tui.widgets.events import EventLog
from kafkatui.tui.widgets.vtable import VirtualTable
from kafkatui.tui.write.alter_preview import AlterPreviewScreen
from kafkatui.tui.write.alter_wizard import AlterWizardScreen
from kafkatui.tui.write.confirm import ConfirmScreen
from kafkatui.tui.write.readonly import ReadOnlyScreen
from tests.tui.test_screens import FIXED, SIZE, FakeSource, incident, ready, screen_text, snapshot_of, text_of
from tests.tui.waits import WAIT

MIN_ISR = "min.insync.replicas"
UNCLEAN = "unclean.leader.election.enable"


pytestmark = pytest.mark.usefixtures("audit_log")  # the shared fixture in tests/conftest.py


@pytest.fixture
def cluster(sim: SimRunner) -> SimRunner:
    sim.call(lambda c: c.create_topic("orders", 4, 3))
    return sim


def settings_of(sim: SimRunner) -> ConnectionSettings:
    # 10 s as a user has it: with 3 s a loaded machine now and then failed the validate-only read, and
    # "Apply -> confirm" then never came (nothing waits this long unless something fails)
    return ConnectionSettings(bootstrap=tuple(sim.bootstrap.split(",")), timeout=10.0)


def sim_app(sim: SimRunner, write: bool = True) -> KafkaTuiApp:
    settings = settings_of(sim)
    feed = Feed(KafkaClusterSource(settings), bootstrap=sim.bootstrap)
    return KafkaTuiApp(feed, auto_refresh=False, source_label="test", read_only=not write, settings=settings)


def fake_app(write: bool = True) -> KafkaTuiApp:
    """The incident snapshot of test_screens; nothing listens on the settings' port (no network is used)."""
    feed = Feed(FakeSource(incident()), bootstrap="kafka:9092", clock=lambda: FIXED)
    return KafkaTuiApp(
        feed,
        auto_refresh=False,
        clock=lambda: FIXED,
        source_label="test",
        read_only=not write,
        settings=ConnectionSettings(bootstrap=("127.0.0.1:1",)),
    )


def snapshot(sim: SimRunner) -> ClusterSnapshot:
    with KafkaClusterSource(settings_of(sim), log_dirs="none", elr=False) as src:
        return src.snapshot()


def topic_value(sim: SimRunner, topic: str = "orders", key: str = MIN_ISR) -> tuple[str | None, str]:
    cv = snapshot(sim).topic_config(topic, key)
    return cv.value, cv.source


def records(path: Path) -> list[dict[str, Any]]:
    """The outcome records (the intents written before each change left out)."""
    every = [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []
    return [r for r in every if r.get("record") != "intent"]


async def wait_until(pilot: Pilot[Any], predicate: Callable[[], bool], timeout: float = 20.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        await pilot.pause(0.05)
    return predicate()


def run(app: KafkaTuiApp, scenario: Callable[[Pilot[Any], KafkaTuiApp], Awaitable[None]]) -> None:
    async def main() -> None:
        async with app.run_test(size=SIZE) as pilot:
            await ready(pilot)
            await scenario(pilot, app)

    try:
        asyncio.run(main())
    finally:
        app.feed.close()


def status(app: KafkaTuiApp) -> str:
    return text_of(app.screen.query_one("#preview-status", Static))


async def open_wizard_on_orders(pilot: Pilot[Any], app: KafkaTuiApp) -> AlterWizardScreen:
    app.open_topic("orders")
    await pilot.pause()
    assert isinstance(app.screen, TopicScreen)
    await pilot.press("a")
    assert await wait_until(pilot, lambda: isinstance(app.screen, AlterWizardScreen), WAIT)
    assert isinstance(app.screen, AlterWizardScreen)
    return app.screen


async def choose(pilot: Pilot[Any], radio_set: RadioSet, index: int) -> None:
    """Pick a radio button with the keyboard: focus the set, move to the button, Enter."""
    radio_set.focus()
    await pilot.pause()
    current = radio_set._selected if radio_set._selected is not None else 0
    step = "down" if index >= current else "up"
    for _ in range(abs(index - current)):
        await pilot.press(step)
    await pilot.press("enter")
    await pilot.pause()


async def preview_from_wizard(pilot: Pilot[Any], app: KafkaTuiApp) -> AlterPreviewScreen:
    await pilot.click("#wizard-preview")
    assert await wait_until(pilot, lambda: isinstance(app.screen, AlterPreviewScreen), WAIT)
    assert isinstance(app.screen, AlterPreviewScreen)
    return app.screen


async def apply_and_confirm(pilot: Pilot[Any], app: KafkaTuiApp, answer: str) -> None:
    """Apply, wait for the validate-only answer and the confirmation, type `answer` and press Enter."""
    await pilot.click("#apply")
    assert await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen)), status(app)
    await pilot.press(*answer, "enter")
    await pilot.pause()


# ----------------------------------------------------------------------------------- read-only
def test_read_only_refuses_every_write_action_and_still_exports(cluster: SimRunner, audit_log: Path) -> None:
    async def scenario(pilot: Pilot[Any], app: KafkaTuiApp) -> None:
        app.open_topic("orders")
        await pilot.pause()
        await pilot.press("a")
        await pilot.pause()
        assert isinstance(app.screen, ReadOnlyScreen)
        text = screen_text(app)
        assert "read-only" in text and "--write" in text and "writes: true" in text
        await pilot.press("escape")  # close: back on the topic screen, nothing opened
        await pilot.pause()
        assert isinstance(app.screen, TopicScreen)

        await pilot.press("a")
        await pilot.pause()
        await pilot.click("#ro-export")  # Export goes on to the wizard and an export-only preview
        assert await wait_until(pilot, lambda: isinstance(app.screen, AlterWizardScreen), WAIT)
        preview = await preview_from_wizard(pilot, app)
        assert preview.query_one("#apply", Button).disabled
        assert "read-only" in status(app)
        await pilot.press("x")
        await pilot.pause()
        (command,) = preview.query_one("#export", TextArea).text.strip().splitlines()
        args = shlex.split(command)
        assert args[:3] == ["kafka-configs.sh", "--bootstrap-server", cluster.bootstrap]
        assert args[args.index("--entity-name") + 1] == "orders"
        assert args[args.index("--add-config") + 1] == f"{MIN_ISR}=2"  # unclean is already off: no override
        await pilot.press("y")
        await pilot.pause()
        doc = yaml.safe_load(preview.query_one("#export", TextArea).text)
        assert doc["kind"] == "KafkaTopic" and doc["spec"]["config"] == {MIN_ISR: 2}

    run(sim_app(cluster, write=False), scenario)
    assert topic_value(cluster) == ("1", "DEFAULT_CONFIG")
    assert not audit_log.exists()


def test_u_in_read_only_mode_opens_the_refusal_and_without_a_change_says_nothing_to_revert(audit_log: Path) -> None:
    async def scenario(pilot: Pilot[Any], app: KafkaTuiApp) -> None:
        await pilot.press("u")
        await pilot.pause()
        assert not isinstance(app.screen, ReadOnlyScreen)  # nothing to revert comes first
        assert any("nothing to revert" in str(n.message) for n in app._notifications)

    run(fake_app(write=False), scenario)


# -------------------------------------------------------------------------------------- wizard
@pytest.mark.parametrize(
    ("n", "rf", "min_isr", "note"),
    [
        (0, 3, 2, "current RF 3 is enough"),  # never less than the durable triple (the audit flags anything weaker)
        (1, 3, 2, "current RF 3 is enough"),
        (2, 4, 3, "raise RF from 3 to 4 first"),  # RF before minISR: minISR 3 on RF 3 would stop writes at a loss
    ],
)
def test_wizard_recommends_for_n_failures_on_a_topic_with_rf_3(n: int, rf: int, min_isr: int, note: str) -> None:
    async def scenario(pilot: Pilot[Any], app: KafkaTuiApp) -> None:
        wizard = await open_wizard_on_orders(pilot, app)
        assert "current RF 3" in text_of(wizard.query_one("#wizard-current", Static))
        await choose(pilot, wizard.query_one("#failures", RadioSet), n)
        shown = text_of(wizard.query_one("#recommendation", Static))
        assert f"recommended: RF ≥ {rf}, {MIN_ISR} {min_isr}, {UNCLEAN}=false" in shown
        assert note in shown
        plan = wizard.plan()
        # orders already has minISR 2 (a no-op is not a change); unclean's value was not read (assumed)
        assert plan.changes == (ConfigChange("topic", "orders", UNCLEAN, "false"),)

    run(fake_app(), scenario)


def test_wizard_plan_never_yields_a_configuration_the_audit_flags() -> None:
    """Every goal and N on RF-2 and RF-3 topics and the broker default: apply the plan, audit again."""
    from kafkatui.model.commands import apply_commands
    from kafkatui.model.durability import audit
    from kafkatui.tui.write.alter_wizard import FAILURES, GOALS, goal_failures, plan_for_recommendation
    from tests.model.builders import healthy, snap

    s = snap(
        healthy("pairs", 2, rf=2, min_insync_replicas="1"),
        healthy("orders", 2, rf=3),
        broker_configs={"min.insync.replicas": "1", "unclean.leader.election.enable": "false"},
    )
    weak = {"min-isr-one", "min-isr-equals-rf", "min-isr-above-rf", "unclean-enabled"}
    for targets, rf in (([("topic", "pairs")], 2), ([("topic", "orders")], 3), ([("broker-default", "")], 2)):
        for goal, _ in GOALS[:3]:
            for n in FAILURES:
                rec = recommend(*goal_failures(goal, n), rf)
                plan = plan_for_recommendation(rec, targets, s)
                cmds = [
                    f"kafka-configs.sh --bootstrap-server B --alter --entity-type "
                    f"{'topics' if c.kind == 'topic' else 'brokers'} "
                    + (f"--entity-name {c.name}" if c.kind == "topic" else "--entity-default")
                    + f" --add-config {c.key}={c.value}"
                    for c in plan.changes
                ]
                before = {(i.rule, i.topic) for i in audit(s)}
                after = {(i.rule, i.topic) for i in audit(apply_commands(s, cmds)) if i.rule in weak}
                assert after <= before, (targets, goal, n, plan.changes, after - before)
                if rec.raise_rf_first:
                    assert not any(c.key == MIN_ISR for c in plan.changes)
                assert not any(c.value == "false" and c.key == UNCLEAN for c in plan.changes)  # already off: no-op


def test_wizard_explicit_value_is_checked_before_the_preview() -> None:
    async def scenario(pilot: Pilot[Any], app: KafkaTuiApp) -> None:
        wizard = await open_wizard_on_orders(pilot, app)
        await choose(pilot, wizard.query_one("#goal", RadioSet), 3)  # explicit values
        assert wizard.query_one("#explicit").display
        # issue 26: the value is focused at once, no Tabs to a field below the fold
        assert wizard.focused is wizard.query_one("#value", Input)
        await pilot.press(*"two", "enter")
        await pilot.pause()
        assert isinstance(app.screen, AlterWizardScreen)
        assert "min.insync.replicas must be a whole number" in text_of(wizard.query_one("#wizard-error", Static))
        await choose(pilot, wizard.query_one("#key", RadioSet), 1)  # unclean.leader.election.enable
        assert wizard.focused is wizard.query_one("#value", Input)
        assert wizard.query_one("#value", Input).placeholder == f"new value of {UNCLEAN}"
        wizard.query_one("#remove").focus()
        await pilot.press("space")
        preview = await preview_from_wizard(pilot, app)
        assert preview.plan.changes == (ConfigChange("topic", "orders", UNCLEAN, None),)
        assert "(delete override)" in screen_text(app)

    run(fake_app(), scenario)


# ------------------------------------------------------------------------------------- preview
def test_preview_warns_when_the_isr_is_already_below_the_new_min_isr(cluster: SimRunner) -> None:
    cluster.crash(3)
    assert cluster.wait_for(lambda c: all(len(p.isr) == 2 for p in c.topics["orders"].partitions), 15)

    async def scenario(pilot: Pilot[Any], app: KafkaTuiApp) -> None:
        wizard = await open_wizard_on_orders(pilot, app)
        await choose(pilot, wizard.query_one("#goal", RadioSet), 3)  # explicit values: minISR 3 on RF 3
        wizard.query_one("#value", Input).focus()
        await pilot.press("3", "enter")
        assert await wait_until(pilot, lambda: isinstance(app.screen, AlterPreviewScreen), WAIT)
        text = screen_text(app)
        assert (
            "raising min.insync.replicas to 3 on orders: 4 partitions have ISR 2 now, acks=all producers "
            "will fail at once"
        ) in text
        assert "min.insync.replicas >= RF (3)" in text
        assert "1 (DEFAULT_CONFIG)" in text
        assert "managed by Strimzi" not in text
        app.screen.query_one("#strimzi").focus()
        await pilot.press("space")  # the user says Strimzi manages these topics
        await pilot.pause()
        assert "managed by Strimzi: use the YAML export instead" in screen_text(app)

    run(sim_app(cluster), scenario)


# --------------------------------------------------------------------------------- confirmation
def test_a_wrong_confirmation_keeps_apply_disabled_and_changes_nothing(cluster: SimRunner, audit_log: Path) -> None:
    async def scenario(pilot: Pilot[Any], app: KafkaTuiApp) -> None:
        await open_wizard_on_orders(pilot, app)
        await preview_from_wizard(pilot, app)
        await apply_and_confirm(pilot, app, "order")
        confirm = app.screen
        assert isinstance(confirm, ConfirmScreen)  # Enter did not confirm
        assert confirm.query_one("#confirm-apply", Button).disabled
        await pilot.press("s")
        await pilot.pause()
        assert not confirm.query_one("#confirm-apply", Button).disabled  # "orders" matches
        await pilot.press("backspace", "x")
        await pilot.pause()
        assert confirm.query_one("#confirm-apply", Button).disabled
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, AlterPreviewScreen)
        assert "not confirmed: nothing changed" in status(app)

    run(sim_app(cluster), scenario)
    assert topic_value(cluster) == ("1", "DEFAULT_CONFIG")
    assert topic_value(cluster, key=UNCLEAN) == ("false", "DEFAULT_CONFIG")
    assert not audit_log.exists()


# ---------------------------------------------------------------------------- apply and revert
def test_apply_changes_the_cluster_writes_the_audit_and_u_reverts_it(cluster: SimRunner, audit_log: Path) -> None:
    async def scenario(pilot: Pilot[Any], app: KafkaTuiApp) -> None:
        await open_wizard_on_orders(pilot, app)  # default goal: no loss through 1 failure
        preview = await preview_from_wizard(pilot, app)
        await pilot.click("#apply")
        assert await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen)), status(app)
        said = text_of(app.screen.query_one("#confirm-text", Static))
        assert "min.insync.replicas 1 → 2 on topic orders" in said  # issue 26: what changes, not only how many
        await pilot.press(*"orders", "enter")
        await pilot.pause()
        assert await wait_until(pilot, lambda: preview.verified is not None)
        subtitle = str(preview.query_one("#preview-box").border_subtitle)
        assert subtitle.startswith("done: Enter/Esc close") and "Apply" not in subtitle
        events = app.screen_stack[1].query_one("#events", EventLog)
        assert await wait_until(
            pilot,
            lambda: any(
                "config min.insync.replicas 1 → 2 on topic orders (applied by you)" in ln.text for ln in events.lines
            ),
            5,
        )
        assert isinstance(app.screen, AlterPreviewScreen)
        shown = status(app)
        assert "ok      topic orders min.insync.replicas: 1 (DEFAULT_CONFIG) -> 2 (DYNAMIC_TOPIC_CONFIG)" in shown
        assert "1 of 1 changes applied and verified; audit records written" in shown
        assert topic_value(cluster) == ("2", "DYNAMIC_TOPIC_CONFIG")
        logged = records(audit_log)
        # unclean election is already off (false from DEFAULT_CONFIG): no override for a no-op
        assert [(r["resource"], r["key"], r["before"], r["after"], r["result"]) for r in logged] == [
            (
                {"kind": "topic", "name": "orders"},
                MIN_ISR,
                {"value": "1", "source": "DEFAULT_CONFIG"},
                {"value": "2", "source": "DYNAMIC_TOPIC_CONFIG"},
                "ok",
            ),
        ]
        assert logged[0]["cluster_id"] == snapshot(cluster).cluster_id

        await pilot.press("escape")
        await pilot.pause()
        await pilot.press("u")  # the same preview and confirmation, with the overrides deleted
        assert await wait_until(pilot, lambda: isinstance(app.screen, AlterPreviewScreen), WAIT)
        revert = app.screen
        assert isinstance(revert, AlterPreviewScreen)
        assert revert.plan.changes == (ConfigChange("topic", "orders", MIN_ISR, None),)
        assert "(delete override)" in screen_text(app)
        await apply_and_confirm(pilot, app, "orders")
        assert await wait_until(pilot, lambda: revert.verified is not None)
        assert all(v.ok for v in revert.verified or [])

    run(sim_app(cluster), scenario)
    assert topic_value(cluster) == ("1", "DEFAULT_CONFIG")
    assert topic_value(cluster, key=UNCLEAN) == ("false", "DEFAULT_CONFIG")
    assert len(records(audit_log)) == 2


def test_validate_only_refusal_is_shown_verbatim_and_nothing_changes(cluster: SimRunner, audit_log: Path) -> None:
    lag = "replica.lag.time.max.ms"
    alterer = ConfigAlterer(settings_of(cluster))
    try:
        (expected,) = alterer.send(ChangePlan((ConfigChange("broker-default", "", lag, "5000"),)), validate_only=True)
    finally:
        alterer.close()
    assert expected.error is not None and "Cannot update these configs dynamically" in expected.error
    before = default_broker_value(snapshot(cluster), lag)

    async def scenario(pilot: Pilot[Any], app: KafkaTuiApp) -> None:
        await pilot.press("colon")
        await pilot.pause()
        await pilot.press(*"alter broker", "enter")  # the palette command
        assert await wait_until(pilot, lambda: isinstance(app.screen, AlterWizardScreen), WAIT)
        wizard = app.screen
        assert isinstance(wizard, AlterWizardScreen) and wizard.targets == [("broker-default", "")]
        await choose(pilot, wizard.query_one("#goal", RadioSet), 3)  # explicit values
        await choose(pilot, wizard.query_one("#key", RadioSet), 2)  # replica.lag.time.max.ms
        wizard.query_one("#value", Input).focus()
        await pilot.press(*"5000", "enter")
        assert await wait_until(pilot, lambda: isinstance(app.screen, AlterPreviewScreen), WAIT)
        assert "static broker config" in screen_text(app)
        await pilot.click("#apply")
        assert await wait_until(pilot, lambda: "refused" in status(app))
        assert f"refused  broker default: {expected.error}" in status(app)
        assert "nothing changed" in status(app)
        assert isinstance(app.screen, AlterPreviewScreen)  # no confirmation was asked for

    run(sim_app(cluster), scenario)
    assert default_broker_value(snapshot(cluster), lag) == before
    assert not audit_log.exists()


# ------------------------------------------------------------------------------------- snapshots
def pushing(screen: Any) -> Callable[[KafkaTuiApp], None]:
    def push(app: KafkaTuiApp) -> None:
        app.push_screen(screen)

    return push


def test_snapshot_alter_wizard(snap_compare: Any) -> None:
    assert snap_compare(
        fake_app(),
        terminal_size=SIZE,
        run_before=snapshot_of(pushing(AlterWizardScreen([("topic", "orders")], incident()))),
    )


def test_snapshot_alter_preview(snap_compare: Any) -> None:
    plan = ChangePlan((ConfigChange("topic", "orders", MIN_ISR, "3"), ConfigChange("topic", "orders", UNCLEAN, "true")))
    assert snap_compare(
        fake_app(),
        terminal_size=SIZE,
        press=["x"],
        run_before=snapshot_of(pushing(AlterPreviewScreen(plan, "alter topic orders"))),
    )


def test_snapshot_alter_confirmation(snap_compare: Any) -> None:
    plan = ChangePlan(tuple(ConfigChange("topic", t, MIN_ISR, "3") for t in ("orders", "payments")))
    assert snap_compare(
        fake_app(),
        terminal_size=SIZE,
        press=["1"],
        run_before=snapshot_of(pushing(ConfirmScreen(plan, "alter 2 topics", current=incident()))),
    )


def test_u_in_read_only_mode_explains_and_exports_the_revert(audit_log: Path) -> None:
    from kafkatui.alter import audit
    from kafkatui.alter.apply import Verified
    from kafkatui.model.snapshot import ConfigValue

    change = ConfigChange("topic", "orders", MIN_ISR, "2")
    done = Verified(change, ConfigValue("1", "DEFAULT_CONFIG"), ConfigValue("2", "DYNAMIC_TOPIC_CONFIG"), None)
    audit.append(audit.make_records([done], incident().cluster_id, "c1"))

    async def scenario(pilot: Pilot[Any], app: KafkaTuiApp) -> None:
        await pilot.press("u")
        await pilot.pause()
        assert isinstance(app.screen, ReadOnlyScreen) and "--write" in screen_text(app)
        await pilot.press("e")  # Export
        assert await wait_until(pilot, lambda: isinstance(app.screen, AlterPreviewScreen), WAIT)
        preview = app.screen
        assert isinstance(preview, AlterPreviewScreen)
        assert preview.plan.changes == (ConfigChange("topic", "orders", MIN_ISR, None),)
        assert preview.query_one("#apply", Button).disabled
        await pilot.press("x")
        await pilot.pause()
        args = shlex.split(preview.query_one("#export", TextArea).text)
        assert args[args.index("--delete-config") + 1] == MIN_ISR

    run(fake_app(write=False), scenario)
    assert len(records(audit_log)) == 1


def test_a_topic_deleted_after_the_confirmation_is_shown_and_confirmed_again(
    cluster: SimRunner, audit_log: Path
) -> None:
    cluster.call(lambda c: c.create_topic("payments", 2, 3))

    async def scenario(pilot: Pilot[Any], app: KafkaTuiApp) -> None:
        topics = app.screen.query_one("#topics", VirtualTable)
        await pilot.press("slash", *"/^(orders|payments)$/", "enter")
        await pilot.pause()
        assert sorted(topics.keys_in_view()) == ["orders", "payments"]
        await pilot.press("a")
        assert await wait_until(pilot, lambda: isinstance(app.screen, AlterWizardScreen), WAIT)
        preview = await preview_from_wizard(pilot, app)
        await pilot.click("#apply")
        assert await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        cluster.call(lambda c: c.delete_topic("payments"))  # gone between the validation and the apply
        first = app.screen
        await pilot.press("2", "enter")
        # read again before sending: nothing sent, what changed shown, and the confirmation asked again
        assert await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen) and app.screen is not first)
        again = str(app.screen.query_one("#confirm-text", Static).render())
        assert "! the cluster changed since you confirmed (someone else changed it):" in again
        assert "!   topic payments was deleted" in again and "Nothing was sent." in again
        assert not records(audit_log) and topic_value(cluster) == ("1", "DEFAULT_CONFIG")
        await pilot.press("2", "enter")
        assert await wait_until(pilot, lambda: preview.verified is not None)
        shown = status(app)
        assert "ok      topic orders min.insync.replicas: 1 (DEFAULT_CONFIG) -> 2 (DYNAMIC_TOPIC_CONFIG)" in shown
        assert "FAILED  topic payments min.insync.replicas: UNKNOWN_TOPIC_OR_PART" in shown
        assert "1 of 2 changes applied and verified" in shown  # unclean is already off on both: no-ops left out

    run(sim_app(cluster), scenario)
    assert topic_value(cluster) == ("2", "DYNAMIC_TOPIC_CONFIG")
    results = {(r["resource"]["name"], r["key"]): r["result"] for r in records(audit_log)}
    assert results[("orders", MIN_ISR)] == "ok" and ("orders", UNCLEAN) not in results
    assert str(results[("payments", MIN_ISR)]).startswith("UNKNOWN_TOPIC_OR_PART")


# ----------------------------------------------------------------------------------- --write option
@pytest.mark.parametrize(
    ("args", "profile_writes", "read_only"),
    [
        (["--profile", "p"], False, True),
        (["--profile", "p", "--write"], False, False),
        (["--profile", "p"], True, False),
    ],
)
def test_writes_need_the_write_option_or_the_profile(
    args: list[str], profile_writes: bool, read_only: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from kafkatui import cli
    from kafkatui.tui import cmd as tui_run

    profiles = tmp_path / "clusters.yaml"
    profiles.write_text(f"profiles:\n  p:\n    bootstrap: 127.0.0.1:1\n    writes: {str(profile_writes).lower()}\n")
    profiles.chmod(0o600)
    monkeypatch.setenv("KAFKATUI_PROFILES", str(profiles))
    seen: list[KafkaTuiApp] = []
    monkeypatch.setattr(KafkaTuiApp, "run", lambda self, *a, **k: seen.append(self))
    monkeypatch.setattr(tui_run, "log_to_file", lambda: None)
    assert cli.main([*args, "--no-record"]) == 0
    (app,) = seen
    assert app.read_only is read_only
    assert app.settings is not None and app.settings.bootstrap_servers == "127.0.0.1:1"


# ---------------------------------------------------------------------------- history, revert rules
def _alter_cli(sim: SimRunner, value: str) -> None:
    from kafkatui.alter.cmd import main_alter

    assert (
        main_alter(
            ["--bootstrap", sim.bootstrap, "--topic", "orders", "--set", f"{MIN_ISR}={value}", "--write", "--yes"]
        )
        == 0
    )


def _behind_kafkatuis_back(sim: SimRunner, value: str) -> None:
    sim.call(lambda c: c.alter_configs(("topic", "orders"), [(MIN_ISR, 0, value)], False))  # op 0: SET


def test_u_walks_back_the_history_and_refuses_when_the_cluster_changed_since(
    cluster: SimRunner, audit_log: Path
) -> None:
    _alter_cli(cluster, "2")
    _alter_cli(cluster, "3")

    async def revert_once(pilot: Pilot[Any], app: KafkaTuiApp, heading: str) -> None:
        await pilot.press("u")
        assert await wait_until(pilot, lambda: isinstance(app.screen, AlterPreviewScreen), WAIT)
        preview = app.screen
        assert isinstance(preview, AlterPreviewScreen) and heading in preview.heading
        await apply_and_confirm(pilot, app, "orders")
        assert await wait_until(pilot, lambda: preview.verified is not None)
        assert all(v.ok for v in preview.verified or [])
        await pilot.press("escape")
        await pilot.pause()

    async def scenario(pilot: Pilot[Any], app: KafkaTuiApp) -> None:
        await revert_once(pilot, app, "topic orders min.insync.replicas 2 -> 3")
        assert topic_value(cluster) == ("2", "DYNAMIC_TOPIC_CONFIG")
        await revert_once(pilot, app, "topic orders min.insync.replicas 1 -> 2")  # u again: one further back
        assert topic_value(cluster) == ("1", "DEFAULT_CONFIG")
        await pilot.press("u")
        await pilot.pause()
        assert any(
            "every change in the audit log" in str(n.message) and "already undone" in str(n.message)
            for n in app._notifications
        )
        # a new change, then someone else changes the same value: u refuses and names the difference
        _alter_cli(cluster, "2")
        _behind_kafkatuis_back(cluster, "3")
        app.request_refresh()
        assert await wait_until(
            pilot,
            lambda: app.state.snapshot is not None and app.state.snapshot.topic_config("orders", MIN_ISR).value == "3",
        )
        await pilot.press("u")
        await pilot.pause()
        assert not isinstance(app.screen, AlterPreviewScreen)
        refused = [str(n.message) for n in app._notifications if "cannot revert" in str(n.message)]
        assert len(refused) == 1
        assert (
            "topic orders min.insync.replicas is 3 (DYNAMIC_TOPIC_CONFIG) now, that change left 2 "
            "(DYNAMIC_TOPIC_CONFIG); nothing changed. To set it back anyway: kafkatui alter --bootstrap "
            f"{cluster.bootstrap} --topic orders --unset {MIN_ISR} --write"
        ) in refused[0]

    run(sim_app(cluster), scenario)
    assert topic_value(cluster) == ("3", "DYNAMIC_TOPIC_CONFIG")
    reverts = [r for r in records(audit_log) if r.get("revert_of")]
    assert len(reverts) == 2


def test_the_dashboard_reports_an_interrupted_change_at_start(cluster: SimRunner, audit_log: Path) -> None:
    from kafkatui.alter import journal

    change = ConfigChange("topic", "orders", MIN_ISR, "2")
    intent = journal.begin("alter", snapshot(cluster).cluster_id, [journal.config_change(change, snapshot(cluster))])
    intent.release()  # the run died after sending: its live lock is gone, its outcome never written
    _behind_kafkatuis_back(cluster, "2")

    async def scenario(pilot: Pilot[Any], app: KafkaTuiApp) -> None:
        assert await wait_until(pilot, lambda: any("was interrupted" in str(n.message) for n in app._notifications))
        (note,) = [str(n.message) for n in app._notifications if "was interrupted" in str(n.message)]
        assert note.startswith("an earlier alter of topic orders was interrupted: applied, not verified by that run")

    run(sim_app(cluster), scenario)
    (rec,) = records(audit_log)
    assert rec["outcome"] == "applied" and rec["recovered"] is True and rec["command_id"] == intent.command_id


def test_the_change_history_reverts_the_change_chosen(cluster: SimRunner, audit_log: Path) -> None:
    from kafkatui.tui.write.changes import HistoryScreen

    cluster.call(lambda c: c.create_topic("payments", 2, 3))
    _alter_cli(cluster, "2")  # orders
    from kafkatui.alter.cmd import main_alter

    assert (
        main_alter(
            ["--bootstrap", cluster.bootstrap, "--topic", "payments", "--set", f"{MIN_ISR}=3", "--write", "--yes"]
        )
        == 0
    )

    async def scenario(pilot: Pilot[Any], app: KafkaTuiApp) -> None:
        app.action_change_history()
        assert await wait_until(pilot, lambda: isinstance(app.screen, HistoryScreen), WAIT)
        await pilot.pause()
        listed = app.screen.query_one(OptionList)
        lines = [str(listed.get_option_at_index(i).prompt) for i in range(listed.option_count)]
        assert len(lines) == 2
        assert lines[0].startswith("  1  ") and "topic payments min.insync.replicas 1 -> 3" in lines[0]
        assert lines[1].startswith("  2  ") and "topic orders min.insync.replicas 1 -> 2" in lines[1]
        await pilot.press("down", "enter")  # the older change: orders
        assert await wait_until(pilot, lambda: isinstance(app.screen, AlterPreviewScreen), WAIT)
        preview = app.screen
        assert isinstance(preview, AlterPreviewScreen)
        assert preview.plan.changes == (ConfigChange("topic", "orders", MIN_ISR, None),)
        await apply_and_confirm(pilot, app, "orders")
        assert await wait_until(pilot, lambda: preview.verified is not None)

    run(sim_app(cluster), scenario)
    assert topic_value(cluster) == ("1", "DEFAULT_CONFIG")
    assert topic_value(cluster, "payments") == ("3", "DYNAMIC_TOPIC_CONFIG")
