package io.weir.bench;

import io.weir.app.Jobs;
import io.weir.checkpoint.EpochOutput;
import io.weir.checkpoint.EpochOutputs;
import io.weir.config.ConfigLoader;
import io.weir.config.WeirConfig;
import io.weir.dataflow.Channel;
import io.weir.dataflow.Counters;
import io.weir.dataflow.RecordLimits;
import io.weir.dataflow.Stage;
import io.weir.dataflow.Task;
import io.weir.dataflow.TaskEnvironment;
import io.weir.element.Header;
import io.weir.element.Record;
import io.weir.pipeline.Plan;
import io.weir.state.FileSnapshotStore;
import io.weir.state.KeyedState;
import io.weir.state.MemoryStateStore;
import io.weir.state.RocksDbBackend;
import io.weir.state.RocksDbSettings;
import io.weir.state.StateStore;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.function.Consumer;

/**
 * The worker's own cost per record, without Kafka: one real {@link Task} of a job's last stage
 * (decode, operators, state through the write-back cache into RocksDB, encode) on this thread,
 * fed orders like the generator's through its channel, its sends counted and dropped, the cache
 * written through every {@value #CHECKPOINT_EVERY} records as at a checkpoint. The figure
 * leaves out what the throughput bench adds around it (the source loop, the producer, the broker),
 * so a change to the record path shows here without that noise.
 *
 * <pre>
 *   bench/run-task.sh [job.yaml] [memory|rocksdb] [users] [stage]   # default: the example job, rocksdb, 2,500, the last stage
 * </pre>
 */
public final class TaskBench {
    private static final int RECORDS = 1 << 20;
    private static final int ROUNDS = 10;
    /**
     * Records between two checkpoints' first steps ({@link StateStore#prepareSnapshot}: the cache
     * writes its dirty keys through), as a task of the throughput bench sees about once a second.
     */
    private static final int CHECKPOINT_EVERY = 1 << 17;

    public static void main(String[] args) throws Exception {
        Path job = Path.of(args.length > 0 ? args[0] : "config/examples/running-totals.yaml");
        boolean rocks = args.length < 2 || args[1].equals("rocksdb");
        int users = args.length > 2 ? Integer.parseInt(args[2]) : 2_500;
        int stageIndex = args.length > 3 ? Integer.parseInt(args[3]) : -1; // default: the last stage
        Path dir = Files.createTempDirectory("weir-task-bench");
        WeirConfig config = new ConfigLoader().load(job, java.util.Map.of(), List.of("processing.state.dir=" + dir));
        List<Stage> stages = Jobs.settings(config, Plan.of(config)).stages();
        Stage stage = stages.get(stageIndex < 0 ? stages.size() - 1 : stageIndex);
        long[] sent = {0};
        EpochOutput dropped = new EpochOutput() {
            @Override
            public long epoch() {
                return 1;
            }

            @Override
            public void send(
                    String topic,
                    byte[] key,
                    byte[] value,
                    long timestamp,
                    List<Header> headers,
                    Consumer<Exception> onFailure) {
                sent[0]++;
            }

            @Override
            public void flush() {}
        };
        EpochOutputs outputs = epoch -> dropped;
        TaskEnvironment env = new TaskEnvironment(
                true,
                outputs,
                (task, id, part) -> {},
                System::currentTimeMillis,
                new Counters(),
                RecordLimits.defaults(),
                Long.MAX_VALUE);
        Channel channel = new Channel(0, stage.inputTopics().get(0) + "-0", Integer.MAX_VALUE);
        RocksDbBackend backend = rocks ? new RocksDbBackend(dir.resolve("state"), new RocksDbSettings(64 << 20, 32 << 20)) : null;
        StateStore store = rocks
                ? backend.open(stage.taskName(0), "g", null, new FileSnapshotStore(dir.resolve("snapshots")))
                : new MemoryStateStore(stage.taskName(0));
        Task task = new Task(stage, 0, List.of(channel), new KeyedState(store), env, 1);

        Random random = new Random(42);
        long[] seqs = new long[users];
        Record[] orders = new Record[RECORDS];
        for (int i = 0; i < RECORDS; i++) {
            int u = random.nextInt(users);
            String id = "u" + u;
            String value = "{\"user\":\"" + id + "\",\"amount\":" + (1 + random.nextInt(100)) + ",\"seq\":" + (++seqs[u])
                    + "}";
            // The key in the stage's key format: a later stage reads JSON keys from its repartition topic.
            orders[i] = new Record(stage.keyCodec().encode(id), value.getBytes(StandardCharsets.UTF_8), 1_000L + i, i, List.of());
        }
        long copiedBytes = 0;
        for (Record o : orders) {
            copiedBytes += 2 * 16 + o.key().length + o.value().length + 40; // two arrays and the Record
        }
        copiedBytes /= RECORDS;
        System.out.printf(
                "task bench: %s, stage %s, %s state, %,d users, %,d records per round%n",
                job, stage.name(), rocks ? "rocksdb (write-back cache)" : "memory", users, RECORDS);
        // CPU time of this thread, not wall time: the machine is shared, and a preempted round would
        // count time the task did not use.
        java.lang.management.ThreadMXBean cpu = java.lang.management.ManagementFactory.getThreadMXBean();
        com.sun.management.ThreadMXBean allocated = (com.sun.management.ThreadMXBean) cpu;
        double allocatedPerRecord = 0;
        List<Double> perRecord = new ArrayList<>();
        for (int round = 1; round <= ROUNDS; round++) {
            long start = cpu.getCurrentThreadCpuTime();
            long allocatedBefore = allocated.getCurrentThreadAllocatedBytes();
            for (int i = 0; i < RECORDS; i++) {
                Record o = orders[i];
                // Fresh arrays per record, as the consumer hands them over.
                channel.put(new Record(o.key().clone(), o.value().clone(), o.timestamp(), o.offset(), List.of()));
                if ((i & 511) == 511) {
                    while (!channel.isEmpty()) {
                        task.run(512);
                    }
                }
                if ((i & (CHECKPOINT_EVERY - 1)) == CHECKPOINT_EVERY - 1) {
                    store.prepareSnapshot();
                }
            }
            while (!channel.isEmpty()) {
                task.run(512);
            }
            double ns = (cpu.getCurrentThreadCpuTime() - start) / (double) RECORDS;
            double bytes = (allocated.getCurrentThreadAllocatedBytes() - allocatedBefore) / (double) RECORDS;
            System.out.printf("round %d: %.0f ns of CPU and %.0f bytes allocated per record%n", round, ns, bytes);
            allocatedPerRecord = bytes;
            if (round > ROUNDS / 2) {
                perRecord.add(ns); // the first half warms up
            }
        }
        perRecord.sort(null);
        System.out.printf(
                "median of the last %d rounds: %.0f ns of CPU per record (range %.0f–%.0f); %.0f bytes allocated per"
                        + " record (the copies of key and value included: %d); %,d records sent%n",
                perRecord.size(),
                perRecord.get(perRecord.size() / 2),
                perRecord.get(0),
                perRecord.get(perRecord.size() - 1),
                allocatedPerRecord,
                copiedBytes,
                sent[0]);
        store.close();
        if (backend != null) {
            backend.close();
        }
        System.exit(0);
    }
}
