package io.weir.ops;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.jvm.ClassLoaderMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.kafka.KafkaClientMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.weir.app.Instance;
import io.weir.app.InstanceEvents;
import io.weir.checkpoint.CheckpointStats;
import io.weir.checkpoint.FailureReason;
import io.weir.dataflow.Counters;
import io.weir.element.InputPartition;
import io.weir.state.RestoreSizes;
import io.weir.state.RocksDbBackend;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.apache.kafka.clients.consumer.Consumer;

/**
 * The meters of one instance in a Prometheus registry: the instance's counters and statistics read
 * at scrape time, checkpoint phases and sizes recorded from its events, consumer lag per partition,
 * and the JVM's and the source consumer's own metrics. Every meter is tagged with application and
 * instance; the only other labels are task, topic and partition. {@code weir dev}'s progress line
 * reads these same meters.
 */
public final class WeirMetrics implements InstanceEvents, AutoCloseable {
    /** Histogram buckets of the checkpoint phases: from a few milliseconds up to the default timeout. */
    private static final Duration[] BUCKETS = {
        Duration.ofMillis(5), Duration.ofMillis(10), Duration.ofMillis(25), Duration.ofMillis(50),
        Duration.ofMillis(100), Duration.ofMillis(250), Duration.ofMillis(500), Duration.ofSeconds(1),
        Duration.ofMillis(2500), Duration.ofSeconds(5), Duration.ofSeconds(10), Duration.ofSeconds(30),
        Duration.ofSeconds(60)
    };

    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private final Instance instance;
    private final LongSupplier clock;
    private final Tags common;
    private final Timer alignment;
    private final Timer sync;
    private final Timer upload;
    private final Timer commit;
    private final Timer total;
    private final DistributionSummary uploaded;
    private final Counter completed;
    private final Counter failed;
    private final Counter skipped;
    private final Timer restore;
    private final Counter restoredLocal;
    private final Counter restoredDownloaded;
    private final Counter standbyDownloaded;
    private final AtomicLong standbyTasks = new AtomicLong();
    private final MultiGauge lag;
    private final MultiGauge stateBytes;
    /** RocksDB property → the gauge of its per-task values. */
    private final Map<String, MultiGauge> rocksDb = new java.util.LinkedHashMap<>();

    private final AtomicLong lastCompletedId = new AtomicLong();
    /** When the last checkpoint completed, or when these metrics began (the process started). */
    private final AtomicLong lastCompletedAt = new AtomicLong();

    private final List<AutoCloseable> binders = new ArrayList<>();

    public WeirMetrics(Instance instance, LongSupplier clock) {
        this.instance = instance;
        this.clock = clock;
        lastCompletedAt.set(clock.getAsLong());
        common = Tags.of(
                "application", instance.settings().application(),
                "instance", instance.settings().instanceId());
        registry.config().commonTags(common);
        registry.config().meterFilter(new PrometheusNamingRules());
        Counters c = instance.counters();
        counter("weir.records.in", "Records read from the input topics", c.recordsIn);
        counter("weir.records.out", "Records written to the output topics", c.recordsOut);
        counter("weir.records.dead.lettered", "Records sent to the dead-letter topic", c.deadLetters);
        counter("weir.records.dropped", "Records a filter, dedupe or route dropped on purpose", c.dropped);
        counter(
                "weir.records.late",
                "Records whose window had already closed, sent to the late topic or the dead-letter topic",
                c.late);
        Instance.Stats stats = instance.stats();
        FunctionCounter.builder("weir.failovers", stats, Instance.Stats::failovers)
                .description("Executions that failed and were stopped to be restarted")
                .register(registry);
        FunctionCounter.builder("weir.restarts", stats, Instance.Stats::restarts)
                .description("Executions started again after a failover")
                .register(registry);
        FunctionCounter.builder("weir.rebalances", stats, Instance.Stats::rebalances)
                .description("Partition assignments received from the consumer group")
                .register(registry);
        alignment = phase("weir.checkpoint.alignment", "Checkpoint phase: trigger until the slowest task aligned");
        sync = phase("weir.checkpoint.sync", "Checkpoint phase: the slowest task's synchronous snapshot part");
        upload = phase("weir.checkpoint.upload", "Checkpoint phase: the slowest task's asynchronous upload");
        commit = phase(
                "weir.checkpoint.commit",
                "Checkpoint phase: the Kafka transaction commit (checkpoint records, offsets, commit)");
        total = phase("weir.checkpoint.duration", "Checkpoint duration from trigger to commit");
        uploaded = DistributionSummary.builder("weir.checkpoint.uploaded")
                .baseUnit("bytes")
                .description("Bytes a completed checkpoint wrote to the snapshot store")
                .register(registry);
        completed = Counter.builder("weir.checkpoints.completed")
                .description("Checkpoints completed")
                .register(registry);
        failed = Counter.builder("weir.checkpoints.failed")
                .description("Checkpoints failed")
                .register(registry);
        skipped = Counter.builder("weir.checkpoints.skipped")
                .description("Checkpoints skipped: nothing read since the last one")
                .register(registry);
        Gauge.builder("weir.checkpoint.last.completed.age", this, WeirMetrics::lastCompletedAgeSeconds)
                .baseUnit("seconds")
                .description("Seconds since the last checkpoint completed, or since the start before the first")
                .register(registry);
        Gauge.builder("weir.checkpoint.last.completed.id", lastCompletedId, AtomicLong::get)
                .description("Id of the last completed checkpoint")
                .register(registry);
        restore = Timer.builder("weir.restore")
                .description("Time to restore the tasks of an assignment or after a failover")
                .register(registry);
        restoredLocal = Counter.builder("weir.restore.local")
                .baseUnit("bytes")
                .description("State bytes restores reused from local files (local recovery)")
                .register(registry);
        restoredDownloaded = Counter.builder("weir.restore.downloaded")
                .baseUnit("bytes")
                .description("State bytes restores read from the snapshot store")
                .register(registry);
        standbyDownloaded = Counter.builder("weir.standby.downloaded")
                .baseUnit("bytes")
                .description("State bytes downloaded to keep the warm copies of other instances' tasks (standby)")
                .register(registry);
        Gauge.builder("weir.standby.tasks", standbyTasks, AtomicLong::get)
                .description("Tasks of other instances this one keeps warm copies of (processing.standby)")
                .register(registry);
        lag = MultiGauge.builder("weir.consumer.lag")
                .baseUnit("records")
                .description("Records between the consumer's position and the last stable offset")
                .register(registry);
        stateBytes = MultiGauge.builder("weir.task.state.checkpoint")
                .baseUnit("bytes")
                .description("Size of the state files the task's last completed checkpoint references")
                .register(registry);
        rocksDb.put(
                RocksDbBackend.LIVE_DATA,
                taskGauge(
                        "weir.task.rocksdb.live.data",
                        "RocksDB estimate-live-data-size at the last checkpoint's barrier"));
        rocksDb.put(
                RocksDbBackend.SST_FILES,
                taskGauge(
                        "weir.task.rocksdb.sst.files",
                        "RocksDB total-sst-files-size at the last checkpoint's barrier"));
        rocksDb.put(
                RocksDbBackend.MEMTABLES,
                taskGauge(
                        "weir.task.rocksdb.memtables",
                        "RocksDB cur-size-all-mem-tables at the last checkpoint's barrier"));
        if (instance.settings().state().backend() == io.weir.app.StateSettings.Backend.ROCKSDB) {
            FunctionCounter.builder("weir.rocksdb.block.cache.hits", instance, i -> blockCache(i, Hit.HITS))
                    .description("Lookups the shared RocksDB block cache answered")
                    .register(registry);
            FunctionCounter.builder("weir.rocksdb.block.cache.misses", instance, i -> blockCache(i, Hit.MISSES))
                    .description("Lookups the shared RocksDB block cache missed (read from SST files)")
                    .register(registry);
            Gauge.builder("weir.rocksdb.block.cache.hit.ratio", instance, i -> blockCache(i, Hit.RATIO))
                    .description("Share of block-cache lookups that hit, since start (for a recent ratio use"
                            + " rate() of the hits and misses counters)")
                    .register(registry);
            Gauge.builder("weir.rocksdb.block.cache.usage", instance, i -> blockCache(i, Hit.USAGE))
                    .baseUnit("bytes")
                    .description("Bytes in the shared RocksDB block cache")
                    .register(registry);
        }
        new JvmMemoryMetrics().bindTo(registry);
        JvmGcMetrics gc = new JvmGcMetrics();
        gc.bindTo(registry);
        binders.add(gc);
        new JvmThreadMetrics().bindTo(registry);
        new ProcessorMetrics().bindTo(registry);
        new ClassLoaderMetrics().bindTo(registry);
    }

    private enum Hit {
        HITS,
        MISSES,
        RATIO,
        USAGE
    }

    private static double blockCache(Instance instance, Hit what) {
        return instance.blockCache()
                .map(b -> switch (what) {
                    case HITS -> (double) b.hits();
                    case MISSES -> (double) b.misses();
                    case RATIO -> b.hits() + b.misses() == 0 ? Double.NaN : (double) b.hits() / (b.hits() + b.misses());
                    case USAGE -> (double) b.usageBytes();
                })
                .orElse(Double.NaN);
    }

    private void counter(String name, String description, java.util.concurrent.atomic.LongAdder adder) {
        FunctionCounter.builder(name, adder, java.util.concurrent.atomic.LongAdder::sum)
                .description(description)
                .register(registry);
    }

    private MultiGauge taskGauge(String name, String description) {
        return MultiGauge.builder(name)
                .baseUnit("bytes")
                .description(description)
                .register(registry);
    }

    @Override
    public void stateSampled(Map<String, Map<String, Long>> properties) {
        rocksDb.forEach((property, gauge) -> {
            List<MultiGauge.Row<?>> rows = new ArrayList<>();
            properties.forEach((task, values) -> {
                Long value = values.get(property);
                if (value != null) {
                    rows.add(MultiGauge.Row.of(Tags.of("task", task), value));
                }
            });
            gauge.register(rows, true);
        });
    }

    private Timer phase(String name, String description) {
        return Timer.builder(name)
                .description(description)
                .serviceLevelObjectives(BUCKETS)
                .register(registry);
    }

    @Override
    public void sourceConsumer(Consumer<?, ?> consumer) {
        KafkaClientMetrics kafka = new KafkaClientMetrics(consumer);
        kafka.bindTo(registry);
        binders.add(kafka);
    }

    @Override
    public void restored(List<String> tasks, long millis, RestoreSizes sizes) {
        restore.record(millis, TimeUnit.MILLISECONDS);
        restoredLocal.increment(sizes.localBytes());
        restoredDownloaded.increment(sizes.downloadedBytes());
    }

    @Override
    public void standbyFollowed(Set<String> tasks, RestoreSizes sizes) {
        standbyTasks.set(tasks.size());
        standbyDownloaded.increment(sizes.downloadedBytes());
    }

    @Override
    public void checkpointSkipped(long checkpointId, boolean idle) {
        skipped.increment();
    }

    @Override
    public void checkpointFailed(long checkpointId, FailureReason reason, Throwable cause) {
        failed.increment();
    }

    @Override
    public void checkpointCompleted(CheckpointStats s) {
        alignment.record(s.alignmentMillis(), TimeUnit.MILLISECONDS);
        sync.record(s.syncMillis(), TimeUnit.MILLISECONDS);
        upload.record(s.uploadMillis(), TimeUnit.MILLISECONDS);
        commit.record(s.commitMillis(), TimeUnit.MILLISECONDS);
        total.record(s.totalMillis(), TimeUnit.MILLISECONDS);
        uploaded.record(s.uploadedBytes());
        lastCompletedId.set(s.checkpointId());
        lastCompletedAt.set(clock.getAsLong());
        List<MultiGauge.Row<?>> rows = new ArrayList<>();
        s.stateBytes().forEach((task, bytes) -> rows.add(MultiGauge.Row.of(Tags.of("task", task), bytes)));
        stateBytes.register(rows, true);
        completed.increment();
    }

    private double lastCompletedAgeSeconds() {
        return (clock.getAsLong() - lastCompletedAt.get()) / 1000.0;
    }

    /** Reads the values sampled rather than counted (consumer lag per partition). */
    private void refresh() {
        List<MultiGauge.Row<?>> rows = new ArrayList<>();
        for (Map.Entry<InputPartition, Long> e : instance.lag().entrySet()) {
            rows.add(MultiGauge.Row.of(
                    Tags.of(
                            "topic",
                            e.getKey().topic(),
                            "partition",
                            Integer.toString(e.getKey().partition())),
                    e.getValue()));
        }
        lag.register(rows, true);
    }

    /** The Prometheus text exposition of every meter. */
    public String scrape() {
        refresh();
        return registry.scrape();
    }

    public long recordsIn() {
        return (long) registry.get("weir.records.in").functionCounter().count();
    }

    public long recordsOut() {
        return (long) registry.get("weir.records.out").functionCounter().count();
    }

    public long deadLettered() {
        return (long)
                registry.get("weir.records.dead.lettered").functionCounter().count();
    }

    public long lastCompletedCheckpoint() {
        return (long) registry.get("weir.checkpoint.last.completed.id").gauge().value();
    }

    /** Consumer lag summed over the assigned partitions. */
    public long lag() {
        refresh();
        return (long) registry.find("weir.consumer.lag").gauges().stream()
                .mapToDouble(Gauge::value)
                .sum();
    }

    @Override
    public void close() {
        for (AutoCloseable b : binders) {
            try {
                b.close();
            } catch (Exception e) {
                // closing a binder only stops its refresh; nothing to recover
            }
        }
        registry.close();
    }
}
