"""`kafkatui lab`: real Apache Kafka (KRaft) on 127.0.0.1, started from Maven Central jars.

`versions` names the Kafka lines kafkatui is tested against, `fetch` brings their jars into the XDG
cache once, `config` writes each node's server.properties and log4j files, `cluster` formats, starts,
controls and stops the JVMs, `control` is the `lab ctl` channel, `load` keeps a topic busy, `tools`
runs Kafka's own command-line tools from the same jars, `console` is the command. No textual here.
"""
