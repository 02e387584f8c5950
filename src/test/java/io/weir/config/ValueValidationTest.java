package io.weir.config;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class ValueValidationTest {

    private static final String PIPELINE =
            """
      pipeline:
        - source: { topic: in }
        - aggregate: { count: n }
        - sink: { topic: out }
      """;

    private static String withPipeline(String yaml) {
        return yaml + PIPELINE;
    }

    @Test
    void unknownKeyIsReportedWithLineAndSuggestion() {
        assertEquals(
                "config/job.yaml:3:3: unknown key processing.threds, did you mean " + "processing.threads?",
                Configs.error(withPipeline(
                        """
        application: app
        processing:
          threds: 4
        """)));
    }

    @Test
    void unknownKeyWithoutCloseMatchListsTheKnownKeys() {
        assertEquals(
                "config/job.yaml:2:9: unknown key http.address; known keys of http are port",
                Configs.error(
                        withPipeline("""
        application: app
        http: { address: 0.0.0.0 }
        """)));
    }

    @Test
    void aMissingApplicationIsReportedAtTheTopOfTheFile() {
        assertEquals(
                "config/job.yaml:1:1: application is required: the job's name, used as group "
                        + "id, transactional id and topic prefix",
                Configs.error(PIPELINE));
    }

    @Test
    void anApplicationNameWithSpacesIsRefused() {
        assertEquals(
                "config/job.yaml:1:14: application must be made of a-z, A-Z, 0-9, '.', '_' and"
                        + " '-' (at most 200 characters), was a b",
                Configs.error(withPipeline("application: a b\n")));
    }

    @Test
    void aNegativeDurationIsReportedAtItsValue() {
        assertEquals(
                "config/job.yaml:4:15: processing.checkpoint.interval must be positive, was -5s",
                Configs.error(
                        withPipeline(
                                """
        application: app
        processing:
          checkpoint:
            interval: -5s
        """)));
    }

    @Test
    void aDurationWithoutUnitIsRefused() {
        assertEquals(
                "config/job.yaml:2:52: processing.checkpoint.timeout must be a duration such "
                        + "as 500ms, 1s, 5m, 1h or PT1S, was 30",
                Configs.error(
                        withPipeline(
                                """
        application: app
        processing: { checkpoint: { interval: 1s, timeout: 30 } }
        """)));
    }

    @Test
    void aZeroIntervalIsRefusedButAZeroPauseIsNot() {
        assertEquals(
                "config/job.yaml:2:39: processing.checkpoint.interval must be positive, was 0s",
                Configs.error(
                        withPipeline(
                                """
        application: app
        processing: { checkpoint: { interval: 0s, min-pause: 0ms } }
        """)));
    }

    @Test
    void numbersOutOfRangeOrNotNumbersAreRefused() {
        List<String> errors = Configs.errors(
                        withPipeline(
                                """
        application: app
        processing:
          threads: 0
          channel-capacity: lots
          checkpoint: { max-concurrent: 1.5 }
          state: { retain: 0 }
        http: { port: 70000 }
        """))
                .stream()
                .map(ConfigError::toString)
                .toList();

        assertEquals(
                List.of(
                        "config/job.yaml:3:12: processing.threads must be at least 1, was 0",
                        "config/job.yaml:4:21: processing.channel-capacity must be a whole number at least 1, "
                                + "was lots",
                        "config/job.yaml:5:33: processing.checkpoint.max-concurrent must be a whole number at "
                                + "least 1, was 1.5",
                        "config/job.yaml:6:20: processing.state.retain must be at least 1, was 0",
                        "config/job.yaml:7:15: http.port must be between 0 and 65535, was 70000"),
                errors);
    }

    @Test
    void aMisspelledChoiceGetsASuggestion() {
        assertEquals(
                "config/job.yaml:2:26: processing.guarantee must be one of exactly-once, "
                        + "at-least-once, was exactly_once; did you mean exactly-once?",
                Configs.error(withPipeline(
                        """
        application: app
        processing: { guarantee: exactly_once }
        """)));
    }

    @Test
    void theCachedWritesChoiceNamesItsValues() {
        assertEquals(
                "config/job.yaml:2:50: processing.state.rocksdb.cached-writes must be one of carry, "
                        + "write-through, was write_through; did you mean write-through?",
                Configs.error(
                        withPipeline(
                                """
        application: app
        processing: { state: { rocksdb: { cached-writes: write_through } } }
        """)));
    }

    @Test
    void restartSettingsAreCheckedAgainstTheirRanges() {
        List<String> errors = Configs.errors(
                        withPipeline(
                                """
        application: app
        processing:
          restart: { strategy: never, jitter: 1.5, multiplier: 0.5, attempts: -1 }
        """))
                .stream()
                .map(ConfigError::toString)
                .toList();

        assertEquals(
                List.of(
                        "config/job.yaml:3:24: processing.restart.strategy must be one of fixed-delay, "
                                + "exponential-backoff, failure-rate, none, was never",
                        "config/job.yaml:3:39: processing.restart.jitter must be between 0.0 and 1.0, was 1.5",
                        "config/job.yaml:3:56: processing.restart.multiplier must be at least 1.0, was 0.5",
                        "config/job.yaml:3:71: processing.restart.attempts must be at least 0, was -1"),
                errors);
    }

    @Test
    void maxBackoffBelowInitialBackoffIsRefused() {
        assertEquals(
                "config/job.yaml:2:60: processing.restart.max-backoff must be at least "
                        + "initial-backoff (2m), was 30s",
                Configs.error(
                        withPipeline(
                                """
        application: app
        processing: { restart: { initial-backoff: 2m, max-backoff: 30s } }
        """)));
    }

    @Test
    void theTransactionTimeoutMustOutlastACheckpoint() {
        assertEquals(
                "config/job.yaml:3:24: processing.transaction-timeout must be longer than 2 × checkpoint.timeout "
                        + "+ checkpoint.interval (70s), how long an epoch's transaction stays open at most, so that "
                        + "transactions are not aborted before their checkpoint ends, was 30s",
                Configs.error(
                        withPipeline(
                                """
        application: app
        processing:
          transaction-timeout: 30s
          checkpoint: { interval: 10s }
        """)));
    }

    @Test
    void theTransactionTimeoutMustOutlastTwoCheckpointTimeoutsAndTheInterval() {
        assertEquals(
                "config/job.yaml:3:24: processing.transaction-timeout must be longer than 2 × checkpoint.timeout "
                        + "+ checkpoint.interval (61s), how long an epoch's transaction stays open at most, so that "
                        + "transactions are not aborted before their checkpoint ends, was 61s",
                Configs.error(
                        withPipeline(
                                """
        application: app
        processing:
          transaction-timeout: 61s
        """)));
        Configs.load(withPipeline("application: app\nprocessing: { transaction-timeout: 62s }\n"));
        assertEquals(
                Duration.ofSeconds(61),
                TransactionTimeoutRule.longestOpen(Duration.ofSeconds(1), Duration.ofSeconds(30)));
        assertEquals(Duration.ofSeconds(61), ProcessingConfig.defaults().longestTransactionOpen());
        assertEquals(
                Optional.empty(),
                TransactionTimeoutRule.violation(
                        ProcessingConfig.defaults().transactionTimeout(),
                        Duration.ofSeconds(1),
                        Duration.ofSeconds(30)));
    }

    @Test
    void retentionMustKeepTheBaseOfEveryCheckpointInFlight() {
        assertEquals(
                "config/job.yaml:4:20: processing.state.retain must be at least checkpoint.max-concurrent (3): a"
                        + " checkpoint in flight reuses files of the last completed one, which retention must keep"
                        + " until it ends, was 2",
                Configs.error(
                        withPipeline(
                                """
        application: app
        processing:
          checkpoint: { max-concurrent: 3 }
          state: { retain: 2 }
        """)));
        Configs.load(withPipeline("application: app\nprocessing: { state: { retain: 2 } }\n"));
    }

    @Test
    void standbyIsANumberOfCopiesOrTrueOrFalse() {
        assertEquals(
                0, Configs.load(withPipeline("application: app\n")).processing().standby());
        assertEquals(
                1,
                Configs.load(withPipeline("application: app\nprocessing: { standby: true }\n"))
                        .processing()
                        .standby());
        assertEquals(
                0,
                Configs.load(withPipeline("application: app\nprocessing: { standby: false }\n"))
                        .processing()
                        .standby());
        assertEquals(
                2,
                Configs.load(withPipeline("application: app\nprocessing: { standby: 2 }\n"))
                        .processing()
                        .standby());
        assertEquals(
                "config/job.yaml:2:24: processing.standby must be the number of warm copies of each task (0 to 16), or"
                        + " true (1) or false (0), was yes",
                Configs.error(withPipeline("application: app\nprocessing: { standby: yes }\n")));
    }

    @Test
    void standbyNeedsTheRocksDbBackend() {
        assertEquals(
                "config/job.yaml:2:24: processing.standby needs processing.state.backend: rocksdb (a warm copy is the"
                        + " task's RocksDB files on this instance's disk; the memory backend keeps none), was memory",
                Configs.error(
                        withPipeline("application: app\nprocessing: { standby: 1, state: { backend: memory } }\n")));
    }

    @Test
    void theTransactionTimeoutDoesNotMatterAtLeastOnce() {
        Configs.load(
                withPipeline(
                        """
        application: app
        processing: { guarantee: at-least-once, transaction-timeout: 1s }
        """));
    }

    @Test
    void filesystemSnapshotsNeedASnapshotDir() {
        assertEquals(
                "config/job.yaml:2:35: processing.state.snapshot-dir is required when "
                        + "snapshots is filesystem: the directory snapshots are written to",
                Configs.error(
                        withPipeline(
                                """
        application: app
        processing: { state: { snapshots: filesystem } }
        """)));
    }

    @Test
    void aSnapshotDirWithKafkaSnapshotsIsAMistake() {
        assertEquals(
                "config/job.yaml:2:38: processing.state.snapshot-dir is only used when "
                        + "snapshots is filesystem, but snapshots is kafka; remove it or set snapshots: "
                        + "filesystem",
                Configs.error(
                        withPipeline(
                                """
        application: app
        processing: { state: { snapshot-dir: /snap } }
        """)));
    }

    @Test
    void decimalSizeUnitsAreRefusedWithAdvice() {
        assertEquals(
                "config/job.yaml:2:48: processing.state.rocksdb.block-cache must be a size "
                        + "such as 64MiB, 512KiB, 1GiB or a number of bytes, was 64MB (write binary units with "
                        + "iB: KiB, MiB, GiB; 1 KiB = 1024 bytes)",
                Configs.error(
                        withPipeline(
                                """
        application: app
        processing: { state: { rocksdb: { block-cache: 64MB } } }
        """)));
    }

    @Test
    void aBootstrapMustListHostsAndPorts() {
        assertEquals(
                "config/job.yaml:2:21: kafka.bootstrap must be a comma-separated list of " + "host:port, was localhost",
                Configs.error(withPipeline(
                        """
        application: app
        kafka: { bootstrap: localhost }
        """)));
    }

    @Test
    void propertiesWeirSetsItselfAreRefused() {
        List<String> errors = Configs.errors(
                        withPipeline(
                                """
        application: app
        kafka:
          consumer: { group.id: mine }
          producer:
            transactional.id: tx
            nested: { a: b }
        """))
                .stream()
                .map(ConfigError::toString)
                .toList();

        assertEquals(
                List.of(
                        "config/job.yaml:3:15: kafka.consumer.group.id is set by Weir and cannot be configured: "
                                + "the consumer group is the application name",
                        "config/job.yaml:5:5: kafka.producer.transactional.id is set by Weir and cannot be "
                                + "configured: it is derived from application and instance-id",
                        "config/job.yaml:6:13: kafka.producer.nested must be a single value, was a mapping"),
                errors);
        // Set on every client Weir makes: a value here would be dropped without a word.
        assertEquals(
                List.of(
                        "config/job.yaml:3:17: kafka.properties.client.id is set by Weir and cannot be configured: "
                                + "each client's id is derived from application and instance-id",
                        "config/job.yaml:5:5: kafka.consumer.group.instance.id is set by Weir and cannot be "
                                + "configured: set instance-id instead",
                        "config/job.yaml:6:5: kafka.consumer.partition.assignment.strategy is set by Weir and "
                                + "cannot be configured: Weir's assignor gives partition p of every input to one "
                                + "member (co-partitioning)"),
                Configs.errors(
                                withPipeline(
                                        """
        application: app
        kafka:
          properties: { client.id: x }
          consumer:
            group.instance.id: other
            partition.assignment.strategy: org.apache.kafka.clients.consumer.RangeAssignor
        """))
                        .stream()
                        .map(ConfigError::toString)
                        .toList());
    }

    @Test
    void aSectionThatIsNotAMappingIsReported() {
        assertEquals(
                "config/job.yaml:2:13: processing must be a mapping, was fast",
                Configs.error(withPipeline("""
        application: app
        processing: fast
        """)));
    }

    @Test
    void theDeadLetterTopicMustBeValidAndNotAPipelineTopic() {
        assertEquals(
                "config/job.yaml:2:23: dead-letter.topic must differ from the pipeline's " + "topics, was out",
                Configs.error(
                        withPipeline("""
        application: app
        dead-letter: { topic: out }
        """)));
        assertEquals(
                "config/job.yaml:2:23: dead-letter.topic must be a Kafka topic name (1 to 249 "
                        + "characters of a-z, A-Z, 0-9, '.', '_' and '-', not . or ..), was no/slash",
                Configs.error(withPipeline(
                        """
        application: app
        dead-letter: { topic: no/slash }
        """)));
        assertEquals(
                "config/job.yaml:2:23: dead-letter.topic must differ from the topics Weir keeps for this job itself "
                        + "(its repartition, checkpoint and snapshot topics), was app-checkpoints",
                Configs.error(withPipeline(
                        """
        application: app
        dead-letter: { topic: app-checkpoints }
        """)));
        assertEquals(
                "config/job.yaml:2:23: dead-letter.topic must be a Kafka topic name (1 to 249 "
                        + "characters of a-z, A-Z, 0-9, '.', '_' and '-', not . or ..), was ..",
                Configs.error(
                        withPipeline("""
        application: app
        dead-letter: { topic: .. }
        """)));
    }

    @Test
    void multipleErrorsAreReportedTogetherInFileOrder() {
        ConfigException e =
                org.junit.jupiter.api.Assertions.assertThrows(ConfigException.class, () -> new ConfigLoader(() -> "h")
                        .load(
                                "x.yaml",
                                """
            application: app
            http: { port: x }
            processing:
              threads: -1
              checkpoint: { interval: -5s }
            pipeline:
              - source: { topic: in, formt: json }
              - sink: { }
            """,
                                java.util.Map.of(),
                                List.of()));

        assertEquals(
                """
        x.yaml:2:15: http.port must be a whole number between 0 and 65535, was x
        x.yaml:4:12: processing.threads must be at least 1, was -1
        x.yaml:5:27: processing.checkpoint.interval must be positive, was -5s
        x.yaml:7:26: unknown key pipeline.0.source.formt, did you mean pipeline.0.source.format?
        x.yaml:8:11: pipeline.1.sink.topic is required: the Kafka topic to write""",
                e.getMessage());
        assertEquals(5, e.errors().size());
        assertEquals(
                new ConfigError("x.yaml", 4, 12, "processing.threads must be at least 1, was -1"),
                e.errors().get(1));
    }
}
