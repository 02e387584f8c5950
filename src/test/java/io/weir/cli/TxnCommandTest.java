package io.weir.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** {@code weir txn} without a broker to ask: a message and exit code 1, not a stack trace. */
class TxnCommandTest {

    @Test
    void aBootstrapNameThatDoesNotResolveIsSaidSoWithExitCodeOne() {
        // The admin client cannot be made: a bare stack trace before.
        ExamplesTest.Run run = ExamplesTest.weir(
                "txn",
                "list",
                "--config",
                "config/examples/running-totals.yaml",
                "--set",
                "kafka.bootstrap=kafka-gone.invalid:9092");
        assertEquals(1, run.exit(), run.out() + run.err());
        assertEquals(
                "weir txn: cannot list transactions: cannot create the Kafka admin client: ConfigException: No"
                        + " resolvable bootstrap urls given in bootstrap.servers (check kafka.properties and"
                        + " kafka.admin)\n",
                run.err());
    }

    @Test
    void aBrokerThatDoesNotAnswerIsSaidSoWithExitCodeOne() {
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
        assertEquals("weir txn: cannot list transactions: no answer from Kafka at localhost:1 in time\n", run.err());
    }
}
