package io.weir.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class OverridesTest {

    @Test
    void anOverrideReplacesAValue() {
        WeirConfig config = Configs.load(Configs.MINIMAL, "processing.threads=8", "application=other");

        assertEquals(8, config.processing().threads());
        assertEquals("other", config.application());
    }

    @Test
    void anOverrideCreatesMissingSections() {
        WeirConfig config = Configs.load(
                Configs.MINIMAL, "processing.checkpoint.interval=5s", "processing.state.rocksdb.block-cache=1GiB");

        assertEquals(Duration.ofSeconds(5), config.processing().checkpoint().interval());
        assertEquals(1L << 30, config.processing().state().rocksdb().blockCacheBytes());
    }

    @Test
    void laterOverridesWin() {
        assertEquals(
                3,
                Configs.load(Configs.MINIMAL, "processing.threads=8", "processing.threads=3")
                        .processing()
                        .threads());
    }

    @Test
    void listItemsAreAddressedByIndexFromZero() {
        WeirConfig config =
                Configs.load(Configs.MINIMAL, "pipeline.1.aggregate.key-as=user", "pipeline.2.sink.topic=totals");

        assertEquals(
                List.of("user", "n"),
                ((AggregateStep) config.pipeline().operators().get(0)).outputFields());
        assertEquals("totals", config.pipeline().sink().topic());
    }

    @Test
    void propertyNamesKeepTheirDots() {
        WeirConfig config =
                Configs.load(Configs.MINIMAL, "kafka.properties.max.poll.records=50", "kafka.producer.linger.ms=5");

        assertEquals(Map.of("max.poll.records", "50"), config.kafka().properties());
        assertEquals(Map.of("linger.ms", "5"), config.kafka().producer());
    }

    @Test
    void flowValuesSetWholeMappings() {
        WeirConfig config = Configs.load(Configs.MINIMAL, "pipeline.1.aggregate.sum={amount: total, qty: items}");

        assertEquals(
                Map.of("amount", "total", "qty", "items"),
                ((AggregateStep) config.pipeline().operators().get(0)).sum());
    }

    @Test
    void otherValuesAreTextEvenIfTheyLookLikeYaml() {
        WeirConfig config =
                Configs.load(Configs.MINIMAL, "kafka.properties.sasl.jaas.config=a # b: \"c\"", "instance-id=");

        assertEquals("a # b: \"c\"", config.kafka().properties().get("sasl.jaas.config"));
        assertEquals("test-host", config.instanceId());
    }

    @Test
    void overridesCanFillAnIncompleteFile() {
        WeirConfig config =
                Configs.load("application: app\n", "pipeline.0.source.topic=in", "pipeline.1.sink.topic=out");

        assertEquals(
                new Pipeline(new SourceStep("in", Format.JSON), List.of(), new SinkStep("out", Format.JSON)),
                config.pipeline());
    }

    @Test
    void variablesAreSubstitutedInOverrides() {
        WeirConfig config = Configs.load(Configs.MINIMAL, Map.of("HOSTS", "k:9092"), "kafka.bootstrap=${HOSTS}");

        assertEquals("k:9092", config.kafka().bootstrap());
    }

    @Test
    void errorsInAnOverriddenValueNameTheOverride() {
        List<String> errors = Configs.errors(
                        Configs.MINIMAL,
                        "processing.threads=0",
                        "processing.checkpoint.intervall=1s",
                        "pipeline.1.aggregate.emit=on-close",
                        "kafka.bootstrap=${NOPE}")
                .stream()
                .map(ConfigError::toString)
                .toList();

        assertEquals(
                List.of(
                        "--set processing.threads: processing.threads must be at least 1, was 0",
                        "--set processing.checkpoint.intervall: unknown key processing.checkpoint.intervall, "
                                + "did you mean processing.checkpoint.interval?",
                        "--set pipeline.1.aggregate.emit: pipeline.1.aggregate.emit on-close needs a window "
                                + "(window: { tumbling: 1m }); without one, results are sent on every update",
                        "--set kafka.bootstrap: kafka.bootstrap: environment variable NOPE is not set and "
                                + "${NOPE} has no default; set it or write ${NOPE:default}"),
                errors);
    }

    @Test
    void pathsThatCannotBeFollowedAreReported() {
        List<String> errors = Configs.errors(
                        Configs.MINIMAL,
                        "application.name=x",
                        "pipeline.first.sink.topic=x",
                        "pipeline.7.sink.topic=x",
                        "threads",
                        "=4",
                        "pipeline.1.aggregate.sum={a: [b}")
                .stream()
                .map(ConfigError::toString)
                .toList();

        assertEquals(
                List.of(
                        "--set application.name: application is a single value (app), so it has no key name",
                        "--set pipeline.first.sink.topic: pipeline is a list of 3 items; expected an index from "
                                + "0 to 2, or 3 to append, was first",
                        "--set pipeline.7.sink.topic: pipeline is a list of 3 items; expected an index from 0 "
                                + "to 2, or 3 to append, was 7",
                        "--set threads: expected key=value with a dotted key such as processing.threads=4, "
                                + "was threads",
                        "--set : expected key=value with a dotted key such as processing.threads=4, was =4",
                        "--set pipeline.1.aggregate.sum: the value {a: [b} is not valid YAML flow, expected a "
                                + "mapping such as {a: b} or a list such as [a, b]"),
                errors);
    }

    @Test
    void fileErrorsComeBeforeOverrideErrors() {
        List<ConfigError> errors = Configs.errors(Configs.minimalWith("http: { port: x }\n"), "processing.threads=0");

        assertEquals(
                List.of(
                        new ConfigError(
                                Configs.FILE, 6, 15, "http.port must be a whole number between 0 and 65535, was x"),
                        new ConfigError(
                                "--set processing.threads", 0, 0, "processing.threads must be at least 1, was 0")),
                errors);
    }

    @Test
    void aRequiredValueEmptiedByAnOverrideIsReportedAtTheOverride() {
        List<String> errors = Configs.errors(Configs.MINIMAL, "application=", "pipeline.0.source.topic=").stream()
                .map(ConfigError::toString)
                .toList();

        assertEquals(
                List.of(
                        "--set application: application is required: the job's name, used as group id, "
                                + "transactional id and topic prefix",
                        "--set pipeline.0.source.topic: pipeline.0.source.topic is required: the Kafka topic to read"),
                errors);
        // Left empty in the file, it is reported at its own line, not at the file's first.
        assertEquals(
                List.of(new ConfigError(
                        Configs.FILE,
                        1,
                        13,
                        "application is required: the job's name, used as group id, transactional id and topic "
                                + "prefix")),
                Configs.errors(Configs.MINIMAL.replace("application: app", "application:")));
    }

    @Test
    void everyKindOfRequiredValueEmptiedByAnOverrideIsReportedAtTheOverride() {
        String job =
                """
                application: app
                pipeline:
                  - source: { topic: in }
                  - dedupe: { by: "value.id", within: 1m }
                  - join: { with: { topic: other }, within: 1m, as: o }
                  - aggregate: { count: n, window: { hopping: { size: 1m, advance: 10s } } }
                  - route:
                      - when: "true"
                        sink: { topic: a }
                """;
        List<String> keys = List.of(
                "pipeline.1.dedupe.within",
                "pipeline.2.join.with",
                "pipeline.2.join.within",
                "pipeline.3.aggregate.window.hopping.size",
                "pipeline.4.route.0.when",
                "pipeline.4.route.0.sink");
        for (String key : keys) {
            List<String> errors = Configs.errors(job, key + "=").stream()
                    .map(ConfigError::toString)
                    .toList();
            assertEquals(1, errors.size(), key + ": " + errors);
            assertEquals(true, errors.get(0).startsWith("--set " + key + ": " + key + " is required"), errors.get(0));
        }
        List<String> errors = Configs.errors(job, "pipeline=").stream()
                .map(ConfigError::toString)
                .toList();
        assertEquals(true, errors.get(0).startsWith("--set pipeline: pipeline is required"), errors.toString());
    }

    @Test
    void aRuleBetweenTwoValuesIsReportedAtTheOverrideThatBrokeIt() {
        String job = Configs.minimalWith(
                """
                processing:
                  transaction-timeout: 90s
                  checkpoint: { interval: 1s, timeout: 30s, max-concurrent: 2 }
                  state: { backend: rocksdb, retain: 3 }
                """);
        // The file's value and the override's, each side of each rule.
        assertStartsWith(
                "--set processing.checkpoint.max-concurrent: processing.state.retain must be at least",
                Configs.error(job, "processing.checkpoint.max-concurrent=5"));
        assertStartsWith(
                "--set processing.state.retain: processing.state.retain must be at least",
                Configs.error(job, "processing.state.retain=1"));
        assertStartsWith(
                "--set processing.checkpoint.timeout: processing.transaction-timeout must be longer",
                Configs.error(job, "processing.checkpoint.timeout=100s"));
        assertStartsWith(
                "--set processing.checkpoint.interval: processing.transaction-timeout must be longer",
                Configs.error(job, "processing.checkpoint.interval=40s"));
        assertStartsWith(
                "--set processing.state.backend: processing.standby needs processing.state.backend",
                Configs.error(
                        job.replace("  state: {", "  standby: 1\n  state: {"), "processing.state.backend=memory"));
        // An override of a value the rule does not read leaves the error at the file's value,
        // also when the other value of the rule is a default.
        String retainOnly = Configs.minimalWith("processing: { state: { retain: 1 } }\n");
        assertStartsWith(
                Configs.FILE + ":6:32: processing.state.retain must be at least",
                Configs.error(retainOnly, "processing.checkpoint.interval=2s"));
        // Both in the file: at the value the rule is about.
        assertStartsWith(
                Configs.FILE + ":9:38: processing.state.retain must be at least",
                Configs.error(job.replace("retain: 3", "retain: 1")));
    }

    private static void assertStartsWith(String expected, String error) {
        assertTrue(error.startsWith(expected), "expected " + expected + "…, was: " + error);
    }
}
