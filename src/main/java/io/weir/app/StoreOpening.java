package io.weir.app;

import io.weir.checkpoint.TaskCheckpoint;
import io.weir.state.RestorePoint;
import io.weir.state.StateStore;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.BooleanSupplier;

/** A restore's last step: the tasks' stores restored and opened, a few side by side. */
final class StoreOpening {
    /** How many tasks' states a restore opens at once. */
    private static final int OPEN_THREADS = 2;

    private StoreOpening() {}

    /**
     * Restores and opens the state of {@code tasks}, {@value #OPEN_THREADS} at a time: a RocksDB
     * store's open replays its write-ahead log, tens of milliseconds per task on a restart. Every
     * store opened is in {@code stores} (which the execution's stop closes) before this returns
     * or throws the first failure.
     */
    static void open(
            Execution.Context ctx,
            Set<String> tasks,
            Map<String, TaskCheckpoint> restored,
            String generation,
            BooleanSupplier ended,
            Map<String, StateStore> stores)
            throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(
                Math.max(1, Math.min(OPEN_THREADS, tasks.size())), Instance.named("weir-restore-task"));
        Map<String, Future<StateStore>> opening = new LinkedHashMap<>();
        try {
            for (String task : tasks) {
                TaskCheckpoint checkpoint = restored.get(task);
                opening.put(task, pool.submit(() -> {
                    Execution.giveUpIf(ended);
                    return ctx.backend()
                            .open(
                                    task,
                                    generation,
                                    checkpoint == null
                                            ? null
                                            : new RestorePoint(task, checkpoint.checkpointId(), checkpoint.state()),
                                    ctx.snapshots());
                }));
            }
        } finally {
            pool.shutdown();
        }
        Throwable failure = null;
        boolean interrupted = false;
        for (Map.Entry<String, Future<StateStore>> o : opening.entrySet()) {
            while (true) {
                try {
                    stores.put(o.getKey(), o.getValue().get());
                    break;
                } catch (InterruptedException e) {
                    interrupted = true; // each open ends on its own: wait, so that none is left unclosed
                } catch (ExecutionException e) {
                    if (failure == null) {
                        failure = e.getCause();
                    }
                    break;
                }
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
        if (failure instanceof Exception e) {
            throw e;
        }
        if (failure instanceof Error e) {
            throw e;
        }
    }
}
