"""Guided config alterations, headless core: plan, risk preview, apply, audit, export.

No textual imports here; the TUI builds on these modules. Exit codes of ``kafkatui alter``
beyond kafkatui's shared ones (0-10, `kafkatui.kafka.errors`) are defined in `kafkatui.alter.errors`.
"""
