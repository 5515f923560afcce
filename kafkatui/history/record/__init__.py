"""Recording a cluster's ISR history: the recorder, its file format, `kafkatui record`."""
