package io.weir.state;

import java.io.IOException;

/**
 * The {@code memory} backend: each task's state is a {@link MemoryStateStore} on the heap, and
 * each snapshot writes the whole map. Nothing is shared between tasks and nothing is on local disk.
 *
 * <p>Threading: stateless; stores belong to their task threads.
 */
public final class MemoryBackend implements StateBackend {
    @Override
    public String name() {
        return MemoryStateStore.BACKEND;
    }

    @Override
    public StateStore open(String task, String generation, RestorePoint from, SnapshotStore snapshots)
            throws IOException {
        if (from == null || from.handle().files().isEmpty()) {
            return new MemoryStateStore(task, generation);
        }
        String backend = from.handle().backend();
        if (!backend.equals(MemoryStateStore.BACKEND)) {
            throw new StateRestoreException(
                    from,
                    null,
                    "it was written by the " + backend + " backend, which the "
                            + "memory backend cannot read; set processing.state.backend: " + backend,
                    null);
        }
        return MemoryStateStore.restore(from, generation, snapshots);
    }

    @Override
    public void close() {}
}
