"""A simulated Kafka cluster that speaks the Kafka wire protocol on loopback.

No textual imports here: the simulator is used headless by tests, `kafkatui sim` and the demo.
"""
