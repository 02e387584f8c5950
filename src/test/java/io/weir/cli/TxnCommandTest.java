package io.weir.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** {@code weir txn} without a broker to ask: a message and exit code 1, not a stack trace. */
class TxnCommandTest {

    @Test
    void aBrokerItCannotReachIsSaidSoWithExitCodeOne() {
        ExamplesTest.Run run = ExamplesTest.weir(
                "txn",
                "list",
                "--config",
                "config/examples/running-totals.yaml",
                "--set",
                "kafka.bootstrap=localhost:1",
                "--set",
                "kafka.admin.default.api.timeout.ms=1500",
                "--set",
                "kafka.admin.request.timeout.ms=1000");
        assertEquals(1, run.exit(), run.out() + run.err());
        assertEquals("weir txn: cannot list transactions: cannot reach Kafka at localhost:1 in time\n", run.err());
    }
}
