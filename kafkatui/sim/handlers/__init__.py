"""Request handlers, one module per family of Kafka APIs; importing a module registers its APIs."""

from __future__ import annotations

import importlib

MODULES = ("versions", "metadata", "data", "groups", "admin", "topics", "configs", "sasl")


def register_all() -> None:
    for name in MODULES:
        importlib.import_module(f"kafkatui.sim.handlers.{name}")
