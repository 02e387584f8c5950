package io.weir.checkpoint;

import io.weir.element.Header;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

/**
 * The epochs' outputs, remembering which epochs were written to. The source loop skips a
 * checkpoint when nothing was read since the last barrier, but a task can write without input: a
 * timer fires, a partition turns idle and windows close, a watermark marker goes downstream. Such
 * output opens the epoch's transaction, and a skipped checkpoint would leave it open until the
 * broker aborts it (and fences the producer). So a checkpoint is skipped only when its epoch was
 * not written to either.
 *
 * <p>Threading: sends from worker threads, queries from the source loop. Each caller of
 * {@link #output} (a task) uses what it returns on its own thread only.
 */
public final class WrittenEpochs implements EpochOutputs {
    private final EpochOutputs outputs;
    private final Set<Long> written = ConcurrentHashMap.newKeySet();

    public WrittenEpochs(EpochOutputs outputs) {
        this.outputs = outputs;
    }

    /** Whether a task sent anything in {@code epoch}, the epoch that barrier {@code epoch} closes. */
    public boolean written(long epoch) {
        return written.contains(epoch);
    }

    /** Barrier {@code epoch} was injected: its epoch is closing and needs no more tracking. */
    public void closing(long epoch) {
        written.removeIf(e -> e <= epoch);
    }

    @Override
    public EpochOutput output(long epoch) {
        EpochOutput out = outputs.output(epoch);
        return new EpochOutput() {
            /** Whether this epoch is known to be written: a caller (one task) marks it once. */
            private boolean marked;

            private void mark() {
                if (!marked) {
                    marked = true;
                    written.add(epoch);
                }
            }

            @Override
            public long epoch() {
                return out.epoch();
            }

            @Override
            public void send(
                    String topic,
                    byte[] key,
                    byte[] value,
                    long timestamp,
                    List<Header> headers,
                    Consumer<Exception> onFailure) {
                mark();
                out.send(topic, key, value, timestamp, headers, onFailure);
            }

            @Override
            public void send(
                    String topic,
                    int partition,
                    byte[] key,
                    byte[] value,
                    long timestamp,
                    List<Header> headers,
                    Consumer<Exception> onFailure) {
                mark();
                out.send(topic, partition, key, value, timestamp, headers, onFailure);
            }

            @Override
            public int partitions(String topic) {
                return out.partitions(topic);
            }

            @Override
            public void flush() {
                out.flush();
            }
        };
    }
}
