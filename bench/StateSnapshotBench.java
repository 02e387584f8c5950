import io.weir.kafka.EmbeddedKafka;
import io.weir.kafka.KafkaClients;
import io.weir.kafka.KafkaSnapshotStore;
import io.weir.kafka.Topics;
import io.weir.state.KeyedState;
import io.weir.state.RestorePoint;
import io.weir.state.RocksDbBackend;
import io.weir.state.RocksDbSettings;
import io.weir.state.Serde;
import io.weir.state.SnapshotPart;
import io.weir.state.StateHandle;
import io.weir.state.StateStore;
import io.weir.state.StoredFile;
import io.weir.state.ValueState;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Stream;

/**
 * Checkpoint figures of the RocksDB backend with snapshots in Kafka (an embedded broker in this
 * JVM): load N keys of ~100-byte values, take a full checkpoint, then rounds that each change a
 * fraction of the keys while the previous upload runs, and report the synchronous pause, the
 * upload time and the uploaded size per checkpoint; finally restore the task from Kafka into an
 * empty directory and by local recovery. Not a test: it prints figures and asserts nothing but
 * that restored state has every key it should.
 *
 * <p>Run: {@code bench/state-snapshot.sh [keys=10000000] [rounds=20] [change=0.01] [dir=/tmp/weir-bench]
 * [prepare=alternate|always|never] [lead=fraction]}: with alternate, every other checkpoint is
 * prepared the way a task prepares it ({@code StateStore.prepareSnapshot()} ahead of the barrier by
 * {@code TaskEnvironment.prepareSnapshotAfter}'s lead; here with that share of the round's changes
 * still to come, or {@code lead}'s), so both pauses are measured in the same run.
 */
public final class StateSnapshotBench {
    public static void main(String[] args) throws Exception {
        long keys = Long.parseLong(arg(args, "keys", "10000000"));
        int rounds = Integer.parseInt(arg(args, "rounds", "20"));
        double change = Double.parseDouble(arg(args, "change", "0.01"));
        String prepareMode = arg(args, "prepare", "alternate");
        // The share of a round's changes made after the preparation: by default what a task's rule
        // leaves with 1 s checkpoints (TaskEnvironment.prepareSnapshotAfter).
        double lead = Double.parseDouble(arg(args, "lead",
                Double.toString(1 - io.weir.dataflow.TaskEnvironment.prepareSnapshotAfter(1000) / 1000.0)));
        Path dir = Path.of(arg(args, "dir", "/tmp/weir-bench"));
        deleteTree(dir);
        Files.createDirectories(dir);
        System.out.printf("keys=%d rounds=%d change=%.3f dir=%s cores=%d heap=%d MiB %s%n", keys, rounds, change, dir,
                Runtime.getRuntime().availableProcessors(), Runtime.getRuntime().maxMemory() >> 20,
                String.join(" ", args));

        try (EmbeddedKafka kafka = EmbeddedKafka.builder().dataDir(dir.resolve("kafka")).port(0).start()) {
            KafkaClients clients = KafkaClients.of(kafka.bootstrapServers());
            String topic = "bench-snapshots";
            try (var admin = clients.admin("bench")) {
                new Topics(admin, 1).ensureInternal("bench-checkpoints", topic);
            }
            RocksDbSettings rocks = new RocksDbSettings(Long.parseLong(arg(args, "blockCacheMiB", "64")) << 20,
                    Long.parseLong(arg(args, "writeBufferMiB", "32")) << 20);
            String task = "bench-0";
            try (KafkaSnapshotStore snapshots = new KafkaSnapshotStore(clients, topic, "bench");
                    RocksDbBackend backend = new RocksDbBackend(dir.resolve("state"), rocks)) {
                StateStore store = backend.open(task, "g1", null, snapshots);
                KeyedState state = new KeyedState(store);
                ValueState<byte[]> value = state.valueState("aggregate", Serde.BYTES);
                Random random = new Random(1);

                long t0 = System.nanoTime();
                for (long k = 0; k < keys; k++) {
                    state.setCurrentKey(key(k));
                    value.update(value(random));
                    if ((k + 1) % 1_000_000 == 0) {
                        System.out.printf("  loaded %,d keys, %.0f keys/s%n", k + 1, (k + 1) / seconds(t0));
                    }
                }
                System.out.printf("load: %,d keys in %.1f s%n", keys, seconds(t0));

                ExecutorService uploader = Executors.newSingleThreadExecutor();
                List<Double> syncMillis = new ArrayList<>();
                List<Double> preparedSyncMillis = new ArrayList<>();
                List<Double> asyncSeconds = new ArrayList<>();
                List<Long> incremental = new ArrayList<>();
                StateHandle handle = null;
                long fullBytes = 0;
                System.out.println("checkpoint  prepared  sync-ms  upload-s  uploaded-MiB  checkpoint-MiB  files(new/all)");
                for (int id = 1; id <= rounds + 1; id++) {
                    long s0 = System.nanoTime();
                    SnapshotPart part = store.snapshot(id);
                    double sync = (System.nanoTime() - s0) / 1e6;
                    long a0 = System.nanoTime();
                    Future<StateHandle> upload = uploader.submit(() -> part.write(snapshots, () -> false));
                    // Processing goes on during the upload: the next round's changes are applied now.
                    if (id <= rounds) {
                        long changes = (long) (keys * change);
                        boolean prepare = prepares(prepareMode, id + 1);
                        for (long c = 0; c < changes; c++) {
                            if (prepare && c == (long) (changes * (1 - lead))) {
                                // What a task does its lead (TaskEnvironment.prepareSnapshotAfter) before the barrier.
                                store.prepareSnapshot();
                            }
                            state.setCurrentKey(key(Math.floorMod(random.nextLong(), keys)));
                            value.update(value(random));
                        }
                    }
                    handle = upload.get();
                    double async = (System.nanoTime() - a0) / 1e9;
                    store.checkpointCompleted(id, handle);
                    String mark = "/" + id + "/";
                    long uploaded = handle.files().stream().filter(f -> f.name().contains(mark))
                            .mapToLong(StoredFile::size).sum();
                    long total = handle.files().stream().mapToLong(StoredFile::size).sum();
                    long newFiles = handle.files().stream().filter(f -> f.name().contains(mark)).count();
                    System.out.printf("%10d  %8s  %7.1f  %8.2f  %12.1f  %14.1f  %d/%d%n", id,
                            id > 1 && prepares(prepareMode, id) ? "yes" : "no", sync, async, mib(uploaded),
                            mib(total), newFiles, handle.files().size());
                    if (id == 1) {
                        fullBytes = uploaded;
                    } else {
                        (prepares(prepareMode, id) ? preparedSyncMillis : syncMillis).add(sync);
                        asyncSeconds.add(async);
                        incremental.add(uploaded);
                    }
                }
                uploader.shutdown();
                long stateBytes = handle.files().stream().mapToLong(StoredFile::size).sum();
                store.close();

                RestorePoint point = new RestorePoint(task, rounds + 1, handle);
                long r0 = System.nanoTime();
                try (RocksDbBackend newPod = new RocksDbBackend(dir.resolve("new-pod"), rocks);
                        StateStore restored = newPod.open(task, "g2", point, snapshots)) {
                    double fromKafka = seconds(r0);
                    check(restored, keys);
                    long l0 = System.nanoTime();
                    try (StateStore local = backend.open(task, "g3", point, snapshots)) {
                        double localRecovery = seconds(l0);
                        check(local, keys);
                        summary(keys, stateBytes, fullBytes, syncMillis, asyncSeconds, incremental, fromKafka,
                                localRecovery, change);
                        pauses(String.format("prepared (store.prepareSnapshot() with %.1f %% of the round's changes left)", 100 * lead),
                                preparedSyncMillis);
                    }
                }
            }
        }
        deleteTree(dir);
    }

    private static void summary(long keys, long stateBytes, long fullBytes, List<Double> sync, List<Double> async,
            List<Long> incremental, double fromKafka, double local, double change) {
        System.out.println();
        System.out.printf("state: %,d keys, %.1f MiB of SST files%n", keys, mib(stateBytes));
        System.out.printf("full checkpoint (first): %.1f MiB uploaded%n", mib(fullBytes));
        pauses("not prepared", sync);
        System.out.printf("asynchronous upload: median %.2f s, max %.2f s%n", percentile(async, 50),
                Collections.max(async));
        List<Double> inc = incremental.stream().map(b -> mib(b)).toList();
        System.out.printf("incremental checkpoint after %.1f %% of keys changed: median %.1f MiB, mean %.1f MiB,"
                + " max %.1f MiB (%.1f %% of a full one at the median)%n", change * 100, percentile(inc, 50),
                inc.stream().mapToDouble(Double::doubleValue).average().orElse(0), Collections.max(inc),
                100 * percentile(inc, 50) / mib(stateBytes));
        System.out.printf("restore of the task from Kafka into an empty directory: %.1f s (%.0f MiB/s)%n", fromKafka,
                mib(stateBytes) / fromKafka);
        System.out.printf("local recovery (same directory): %.2f s%n", local);
    }

    private static void pauses(String what, List<Double> sync) {
        if (sync.isEmpty()) {
            return;
        }
        System.out.printf("synchronous pause per checkpoint, %s: median %.1f ms, p99 %.1f ms, max %.1f ms (%d checkpoints)%n",
                what, percentile(sync, 50), percentile(sync, 99), Collections.max(sync), sync.size());
    }

    /** Whether checkpoint {@code id} is prepared: prepare=alternate (even ids) | always | never. */
    private static boolean prepares(String mode, int id) {
        return switch (mode) {
            case "always" -> true;
            case "never" -> false;
            default -> id % 2 == 0;
        };
    }

    private static void check(StateStore s, long keys) {
        KeyedState state = new KeyedState(s);
        ValueState<byte[]> value = state.valueState("aggregate", Serde.BYTES);
        Random r = new Random(9);
        for (int i = 0; i < 1000; i++) {
            state.setCurrentKey(key(Math.floorMod(r.nextLong(), keys)));
            if (value.value() == null || value.value().length != 100) {
                throw new AssertionError("a restored key is missing");
            }
        }
    }

    private static byte[] key(long k) {
        return String.format("user-%09d", k).getBytes();
    }

    private static byte[] value(Random random) {
        byte[] v = new byte[100];
        random.nextBytes(v);
        return v;
    }

    private static double percentile(List<Double> values, double p) {
        List<Double> sorted = new ArrayList<>(values);
        sorted.sort(Comparator.naturalOrder());
        int i = (int) Math.ceil(p / 100 * sorted.size()) - 1;
        return sorted.get(Math.max(0, Math.min(sorted.size() - 1, i)));
    }

    private static double seconds(long since) {
        return (System.nanoTime() - since) / 1e9;
    }

    private static double mib(long bytes) {
        return bytes / (1024.0 * 1024.0);
    }

    private static String arg(String[] args, String name, String dflt) {
        return Arrays.stream(args).filter(a -> a.startsWith(name + "=")).map(a -> a.substring(name.length() + 1))
                .findFirst().orElse(dflt);
    }

    private static void deleteTree(Path root) throws Exception {
        if (Files.exists(root)) {
            try (Stream<Path> walk = Files.walk(root)) {
                for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
                    Files.delete(p);
                }
            }
        }
    }
}
