package io.weir.config;

import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;

/**
 * Binds the {@code processing} section, with its checkpoint, restart and state subsections, to
 * a {@link ProcessingConfig}. Missing keys take the defaults of the records' {@code defaults()};
 * each wrong value is reported and binding goes on.
 */
final class ProcessingBinder {

    private ProcessingBinder() {}

    static Optional<ProcessingConfig> bind(Section section) {
        int mark = section.errors().size();
        ProcessingConfig d = ProcessingConfig.defaults();
        ProcessingConfig.Guarantee guarantee = section.choice("guarantee", d.guarantee());
        int threads = section.integer("threads", d.threads(), 1, Integer.MAX_VALUE);
        int capacity = section.integer("channel-capacity", d.channelCapacity(), 1, Integer.MAX_VALUE);
        ProcessingConfig.OffsetReset reset = section.choice("auto-offset-reset", d.autoOffsetReset());
        int beforeTimeout = section.errors().size();
        Duration transactionTimeout = section.duration("transaction-timeout", d.transactionTimeout(), false);
        boolean timeoutValid = !section.errors().grewSince(beforeTimeout);
        Path plugins = path(section, "plugins").orElse(d.plugins());
        int standby = standby(section, d.standby());
        Section checkpointSection = section.section("checkpoint");
        Optional<CheckpointConfig> checkpoint = checkpoint(checkpointSection);
        Optional<RestartConfig> restart = restart(section.section("restart"));
        Section stateSection = section.section("state");
        Optional<StateConfig> state = state(stateSection);
        section.rejectUnknownKeys();
        if (checkpoint.isPresent()
                && state.isPresent()
                && state.get().retain() < checkpoint.get().maxConcurrent()) {
            // A checkpoint in flight reuses the files of the last completed one; up to max-concurrent
            // − 1 others may complete meanwhile, and retention must not drop that base before it ends.
            Origin at = stateSection
                    .node("retain")
                    .map(YamlNode::origin)
                    .orElse(section.origin())
                    .or(given(checkpointSection, "max-concurrent"));
            section.error(
                    at,
                    stateSection.path("retain") + " must be at least checkpoint.max-concurrent ("
                            + checkpoint.get().maxConcurrent() + "): a checkpoint in flight reuses files of the last"
                            + " completed one, which retention must keep until it ends, was "
                            + state.get().retain());
        }
        if (standby > 0 && state.isPresent() && state.get().backend() != StateConfig.Backend.ROCKSDB) {
            section.error(
                    section.originOf("standby").or(given(stateSection, "backend")),
                    section.path("standby") + " needs " + stateSection.path("backend") + ": rocksdb (a warm copy is"
                            + " the task's RocksDB files on this instance's disk; the memory backend keeps none),"
                            + " was " + state.get().backend().name().toLowerCase(java.util.Locale.ROOT));
        }
        if (guarantee == ProcessingConfig.Guarantee.EXACTLY_ONCE && timeoutValid && checkpoint.isPresent()) {
            Origin at = section.node("transaction-timeout")
                    .map(YamlNode::origin)
                    .orElse(section.origin())
                    .or(given(checkpointSection, "timeout", "interval"));
            TransactionTimeoutRule.violation(
                            transactionTimeout,
                            checkpoint.get().interval(),
                            checkpoint.get().timeout())
                    .ifPresent(message -> section.error(at, message));
        }
        return section.build(
                mark,
                () -> new ProcessingConfig(
                        guarantee,
                        threads,
                        capacity,
                        reset,
                        transactionTimeout,
                        checkpoint.orElseThrow(),
                        restart.orElseThrow(),
                        state.orElseThrow(),
                        plugins,
                        standby));
    }

    /** The positions of those of {@code keys} that {@code section} gives (a default has none). */
    private static Origin[] given(Section section, String... keys) {
        return java.util.Arrays.stream(keys)
                .map(section::node)
                .flatMap(Optional::stream)
                .map(YamlNode::origin)
                .toArray(Origin[]::new);
    }

    /** Warm copies kept of each task on other instances: a whole number, or true (1) / false (0). */
    private static int standby(Section section, int fallback) {
        Optional<YamlNode.Scalar> scalar = section.scalar("standby");
        if (scalar.isEmpty()) {
            return fallback;
        }
        String text = scalar.get().text().strip();
        switch (text) {
            case "true":
                return 1;
            case "false":
                return 0;
            default:
                try {
                    int copies = Integer.parseInt(text);
                    if (copies >= 0 && copies <= 16) {
                        return copies;
                    }
                } catch (NumberFormatException e) {
                    // reported below
                }
                section.error(
                        scalar.get().origin(),
                        section.path("standby") + " must be the number of warm copies of each task (0 to 16),"
                                + " or true (1) or false (0), was " + text);
                return fallback;
        }
    }

    private static Optional<CheckpointConfig> checkpoint(Section section) {
        int mark = section.errors().size();
        CheckpointConfig d = CheckpointConfig.defaults();
        Duration interval = section.duration("interval", d.interval(), false);
        Duration timeout = section.duration("timeout", d.timeout(), false);
        int maxConcurrent = section.integer("max-concurrent", d.maxConcurrent(), 1, Integer.MAX_VALUE);
        Duration minPause = section.duration("min-pause", d.minPause(), true);
        section.rejectUnknownKeys();
        return section.build(mark, () -> new CheckpointConfig(interval, timeout, maxConcurrent, minPause));
    }

    private static Optional<RestartConfig> restart(Section section) {
        int mark = section.errors().size();
        RestartConfig d = RestartConfig.defaults();
        RestartConfig.Strategy strategy = section.choice("strategy", d.strategy());
        Duration initial = section.duration("initial-backoff", d.initialBackoff(), false);
        Duration max = section.duration("max-backoff", d.maxBackoff(), false);
        double multiplier = section.decimal("multiplier", d.multiplier(), 1.0, Double.MAX_VALUE);
        double jitter = section.decimal("jitter", d.jitter(), 0.0, 1.0);
        int attempts = section.integer("attempts", RestartConfig.defaultAttempts(strategy), 0, Integer.MAX_VALUE);
        Duration delay = section.duration("delay", d.delay(), true);
        int maxFailures = section.integer("max-failures", d.maxFailures(), 1, Integer.MAX_VALUE);
        Duration window = section.duration("failure-window", d.failureWindow(), false);
        section.rejectUnknownKeys();
        if (!section.errors().grewSince(mark) && max.compareTo(initial) < 0) {
            Origin at = section.node("max-backoff").map(YamlNode::origin).orElse(section.origin());
            section.error(
                    at,
                    section.path("max-backoff") + " must be at least initial-backoff (" + DurationFormat.format(initial)
                            + "), was " + DurationFormat.format(max));
        }
        return section.build(
                mark,
                () -> new RestartConfig(
                        strategy, initial, max, multiplier, jitter, attempts, delay, maxFailures, window));
    }

    private static Optional<StateConfig> state(Section section) {
        int mark = section.errors().size();
        StateConfig d = StateConfig.defaults();
        StateConfig.Backend backend = section.choice("backend", d.backend());
        Path dir = path(section, "dir").orElse(d.dir());
        StateConfig.SnapshotStore snapshots = section.choice("snapshots", d.snapshots());
        Optional<Path> snapshotDir = path(section, "snapshot-dir");
        int retain = section.integer("retain", d.retain(), 1, Integer.MAX_VALUE);
        Optional<RocksDbConfig> rocksdb = rocksdb(section.section("rocksdb"));
        section.rejectUnknownKeys();
        if (snapshots == StateConfig.SnapshotStore.FILESYSTEM && snapshotDir.isEmpty()) {
            Origin at = section.node("snapshots").map(YamlNode::origin).orElse(section.origin());
            section.error(
                    at,
                    section.path("snapshot-dir")
                            + " is required when snapshots is filesystem: the directory snapshots are written to");
        } else if (snapshots == StateConfig.SnapshotStore.KAFKA && snapshotDir.isPresent()) {
            Origin at = section.node("snapshot-dir").map(YamlNode::origin).orElse(section.origin());
            section.error(
                    at,
                    section.path("snapshot-dir") + " is only used when snapshots is "
                            + "filesystem, but snapshots is kafka; remove it or set snapshots: filesystem");
        }
        return section.build(
                mark, () -> new StateConfig(backend, dir, snapshots, snapshotDir, retain, rocksdb.orElseThrow()));
    }

    private static Optional<RocksDbConfig> rocksdb(Section section) {
        int mark = section.errors().size();
        RocksDbConfig d = RocksDbConfig.defaults();
        long blockCache = section.size("block-cache", d.blockCacheBytes());
        long writeBuffer = section.size("write-buffer", d.writeBufferBytes());
        RocksDbConfig.CachedWrites cachedWrites = section.choice("cached-writes", d.cachedWrites());
        section.rejectUnknownKeys();
        return section.build(mark, () -> new RocksDbConfig(blockCache, writeBuffer, cachedWrites));
    }

    private static Optional<Path> path(Section section, String key) {
        Optional<String> text = section.optionalString(key);
        try {
            return text.map(Path::of);
        } catch (InvalidPathException e) {
            Origin at = section.node(key).map(YamlNode::origin).orElse(section.origin());
            section.error(
                    at,
                    section.path(key) + " must be a directory path, was " + text.get() + " (" + e.getReason() + ")");
            return Optional.empty();
        }
    }
}
