package io.weir.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class DefaultsTest {

    @Test
    void aMinimalFileGetsEveryDefault() {
        WeirConfig config = Configs.load(Configs.MINIMAL);

        assertEquals("app", config.application());
        assertEquals("test-host", config.instanceId());
        assertEquals(new KafkaConfig("localhost:9092", Map.of(), Map.of(), Map.of(), Map.of()), config.kafka());
        assertEquals(ProcessingConfig.defaults(), config.processing());
        assertEquals(new DeadLetterConfig("app-dlq"), config.deadLetter());
        assertEquals(new HttpConfig(8080), config.http());
    }

    @Test
    void defaultsAreTheValuesTheContractShows() {
        ProcessingConfig p = ProcessingConfig.defaults();

        assertEquals(ProcessingConfig.Guarantee.EXACTLY_ONCE, p.guarantee());
        assertEquals(2, p.threads());
        assertEquals(1024, p.channelCapacity());
        assertEquals(ProcessingConfig.OffsetReset.EARLIEST, p.autoOffsetReset());
        assertEquals(Duration.ofSeconds(90), p.transactionTimeout());
        assertEquals(Path.of("plugins"), p.plugins());
        assertEquals(
                new CheckpointConfig(Duration.ofSeconds(1), Duration.ofSeconds(30), 2, Duration.ZERO), p.checkpoint());
        assertEquals(
                new RestartConfig(
                        RestartConfig.Strategy.EXPONENTIAL_BACKOFF,
                        Duration.ofSeconds(1),
                        Duration.ofMinutes(1),
                        2.0,
                        0.2,
                        RestartConfig.UNLIMITED,
                        Duration.ofSeconds(5),
                        5,
                        Duration.ofMinutes(5)),
                p.restart());
        assertEquals(
                new StateConfig(
                        StateConfig.Backend.ROCKSDB,
                        Path.of(System.getProperty("java.io.tmpdir"), "weir"),
                        StateConfig.SnapshotStore.KAFKA,
                        Optional.empty(),
                        3,
                        new RocksDbConfig(64L * 1024 * 1024, 32L * 1024 * 1024)),
                p.state());
    }

    @Test
    void aggregateAndEndpointsHaveTheirDefaults() {
        Pipeline pipeline = Configs.load(Configs.MINIMAL).pipeline();

        assertEquals(new SourceStep("in", Format.JSON), pipeline.source());
        assertEquals(
                List.of(new AggregateStep(
                        "key",
                        Optional.of("n"),
                        Map.of(),
                        Map.of(),
                        Map.of(),
                        Map.of(),
                        Map.of(),
                        AggregateStep.Emit.EVERY_UPDATE)),
                pipeline.operators());
        assertEquals(new SinkStep("out", Format.JSON), pipeline.sink());
        assertEquals(3, pipeline.steps().size());
    }

    @Test
    void emptySectionsAndNullValuesMeanDefaults() {
        WeirConfig config = Configs.load(
                Configs.minimalWith(
                        """
        instance-id:
        kafka:
        processing: { checkpoint: ~, restart: {}, threads: null }
        dead-letter: { topic: "" }
        """));

        assertEquals("test-host", config.instanceId());
        assertEquals(ProcessingConfig.defaults(), config.processing());
        assertEquals("app-dlq", config.deadLetter().topic());
    }

    @Test
    void fixedDelayRestartsTenTimesUnlessToldOtherwise() {
        RestartConfig restart = Configs.load(Configs.minimalWith("processing: { restart: { strategy: fixed-delay } }"))
                .processing()
                .restart();

        assertEquals(RestartConfig.Strategy.FIXED_DELAY, restart.strategy());
        assertEquals(10, restart.attempts());
        assertTrue(Configs.load(Configs.MINIMAL).processing().restart().unlimitedAttempts());
    }

    @Test
    void theInstanceIdFallsBackToACleanedHostName() throws ConfigException {
        WeirConfig config = new ConfigLoader(() -> "my host!").load(Configs.FILE, Configs.MINIMAL, Map.of(), List.of());
        WeirConfig unnamed = new ConfigLoader(() -> null).load(Configs.FILE, Configs.MINIMAL, Map.of(), List.of());

        assertEquals("my-host-", config.instanceId());
        assertEquals("weir", unnamed.instanceId());
    }

    @Test
    void theExampleFileLoadsAsTheRunningTotalsJob() throws ConfigException {
        WeirConfig config = new ConfigLoader()
                .load(Path.of("config/examples/running-totals.yaml"), Map.of("POD_NAME", "pod-0"), List.of());

        assertEquals("running-totals", config.application());
        assertEquals("pod-0", config.instanceId());
        assertEquals("localhost:9092", config.kafka().bootstrap());
        assertEquals(
                ProcessingConfig.Guarantee.EXACTLY_ONCE, config.processing().guarantee());
        assertEquals(Duration.ofSeconds(1), config.processing().checkpoint().interval());
        assertEquals(StateConfig.Backend.ROCKSDB, config.processing().state().backend());
        assertEquals(Path.of("/tmp/weir"), config.processing().state().dir());
        assertEquals(0, config.processing().restart().attempts());
        assertEquals("running-totals-dlq", config.deadLetter().topic());
        assertEquals(new SourceStep("orders", Format.JSON), config.pipeline().source());
        assertEquals(
                new AggregateStep(
                        "user",
                        Optional.of("count"),
                        Map.of("amount", "sum"),
                        Map.of(),
                        Map.of(),
                        Map.of(),
                        Map.of("seq", "lastSeq"),
                        AggregateStep.Emit.EVERY_UPDATE),
                config.pipeline().operators().get(0));
        assertEquals(
                List.of("user", "count", "sum", "lastSeq"),
                ((AggregateStep) config.pipeline().operators().get(0)).outputFields());
        assertEquals(new SinkStep("totals", Format.JSON), config.pipeline().sink());
    }

    @Test
    void everySettingCanBeGiven() {
        WeirConfig config = Configs.load(
                """
        application: shop.totals_v2
        instance-id: worker-3
        kafka:
          bootstrap: a:9092, b:9093
          properties: { security.protocol: SSL, max.poll.records: 500, enable.idempotence: true }
          consumer: { fetch.min.bytes: 1 }
          producer: { linger.ms: 5 }
          admin: { request.timeout.ms: 1000 }
        processing:
          guarantee: at-least-once
          threads: 8
          channel-capacity: 16
          auto-offset-reset: latest
          transaction-timeout: PT2M
          checkpoint: { interval: 500ms, timeout: 10s, max-concurrent: 1, min-pause: 100ms }
          restart: { strategy: failure-rate, delay: 0s, max-failures: 3, failure-window: 1h }
          state:
            backend: rocksdb
            dir: state
            snapshots: filesystem
            snapshot-dir: /snapshots
            retain: 1
            rocksdb: { block-cache: 1GiB, write-buffer: 1048576, cached-writes: write-through }
        dead-letter: { topic: errors }
        http: { port: 0 }
        pipeline:
          - source: { topic: orders, format: string }
          - aggregate: { by: key, count: c, emit: every-update }
          - sink: { topic: totals, format: bytes }
        """);

        assertEquals("worker-3", config.instanceId());
        assertEquals(
                Map.of(
                        "bootstrap.servers",
                        "a:9092, b:9093",
                        "security.protocol",
                        "SSL",
                        "max.poll.records",
                        "500",
                        "enable.idempotence",
                        "true",
                        "linger.ms",
                        "5"),
                config.kafka().producerProperties());
        assertEquals("1", config.kafka().consumerProperties().get("fetch.min.bytes"));
        assertFalse(config.kafka().adminProperties().containsKey("linger.ms"));
        ProcessingConfig p = config.processing();
        assertEquals(
                new ProcessingConfig(
                        ProcessingConfig.Guarantee.AT_LEAST_ONCE,
                        8,
                        16,
                        ProcessingConfig.OffsetReset.LATEST,
                        Duration.ofMinutes(2),
                        new CheckpointConfig(Duration.ofMillis(500), Duration.ofSeconds(10), 1, Duration.ofMillis(100)),
                        new RestartConfig(
                                RestartConfig.Strategy.FAILURE_RATE,
                                Duration.ofSeconds(1),
                                Duration.ofMinutes(1),
                                2.0,
                                0.2,
                                0,
                                Duration.ZERO,
                                3,
                                Duration.ofHours(1)),
                        new StateConfig(
                                StateConfig.Backend.ROCKSDB,
                                Path.of("state"),
                                StateConfig.SnapshotStore.FILESYSTEM,
                                Optional.of(Path.of("/snapshots")),
                                1,
                                new RocksDbConfig(1L << 30, 1L << 20, RocksDbConfig.CachedWrites.WRITE_THROUGH)),
                        ProcessingConfig.DEFAULT_PLUGINS,
                        0),
                p);
        assertEquals("errors", config.deadLetter().topic());
        assertFalse(config.http().enabled());
        assertEquals(Format.STRING, config.pipeline().source().format());
        assertEquals(Format.BYTES, config.pipeline().sink().format());
    }

    @Test
    void mergeKeysAndAnchorsWork() {
        WeirConfig config = Configs.load(
                """
        application: app
        processing:
          checkpoint: &fast { interval: 200ms, timeout: 5s }
          restart: { <<: { initial-backoff: 2s, max-backoff: 2m }, max-backoff: 3m }
        pipeline:
          - source: { topic: in }
          - aggregate: { count: n }
          - sink: { topic: out }
        """);

        assertEquals(Duration.ofMillis(200), config.processing().checkpoint().interval());
        assertEquals(Duration.ofSeconds(2), config.processing().restart().initialBackoff());
        assertEquals(Duration.ofMinutes(3), config.processing().restart().maxBackoff());
    }
}
