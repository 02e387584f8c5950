package io.weir.dataflow;

import io.weir.checkpoint.EpochOutput;
import io.weir.element.Header;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

/**
 * A task's outputs held back until the end of its batch and then sent in one burst, in the order
 * they were made.
 *
 * <p>Why: the workers of an execution share one producer per epoch, and every send writes fields of
 * it that both use (the producer's topic table, its transaction state, a counter of appends under
 * way). Sent one by one, each send on one core finds those lines last written by the other core; in
 * bursts, a worker keeps them while it sends a batch's records. An output waits at most a few
 * batches (a task whose turn is taken keeps up to {@link #MAX}), and the task sends what it holds
 * before it takes its part of a checkpoint, so every output of epoch n is in epoch n's transaction.
 *
 * <p>Threading: the task's worker thread only.
 */
final class PendingSends {
    /** Outputs held before a task tries to send them within its batch (a window firing many). */
    static final int BURST = 256;

    /** Outputs held before a task waits for its turn to send them. */
    static final int MAX = 4096;

    private String[] topics = new String[64];
    private int[] partitions = new int[64];
    private byte[][] keys = new byte[64][];
    private byte[][] values = new byte[64][];
    private long[] timestamps = new long[64];
    private Object[] headers = new Object[64];
    private int size;

    int size() {
        return size;
    }

    boolean isEmpty() {
        return size == 0;
    }

    /** Holds a record for {@link #sendTo}; {@code partition} below 0 leaves it to the output. */
    void add(String topic, int partition, byte[] key, byte[] value, long timestamp, List<Header> recordHeaders) {
        if (size == topics.length) {
            int n = size * 2;
            topics = Arrays.copyOf(topics, n);
            partitions = Arrays.copyOf(partitions, n);
            keys = Arrays.copyOf(keys, n);
            values = Arrays.copyOf(values, n);
            timestamps = Arrays.copyOf(timestamps, n);
            headers = Arrays.copyOf(headers, n);
        }
        topics[size] = topic;
        partitions[size] = partition;
        keys[size] = key;
        values[size] = value;
        timestamps[size] = timestamp;
        headers[size] = recordHeaders;
        size++;
    }

    /**
     * Sends the records held, in order, and forgets them all. It stops at the first failure, thrown
     * or reported to {@code failed} by an earlier send's callback, and drops the rest: the task fails
     * at its next check and its epoch is aborted. Stopping there bounds how long a burst holds the
     * send turn when the broker is unreachable: one send's {@code max.block.ms}, not one per record.
     */
    @SuppressWarnings("unchecked")
    void sendTo(EpochOutput output, Consumer<Exception> onFailure, AtomicReference<Exception> failed) {
        int n = size;
        size = 0;
        try {
            for (int i = 0; i < n && failed.get() == null; i++) {
                List<Header> h = (List<Header>) headers[i];
                if (partitions[i] < 0) {
                    output.send(topics[i], keys[i], values[i], timestamps[i], h, onFailure);
                } else {
                    output.send(topics[i], partitions[i], keys[i], values[i], timestamps[i], h, onFailure);
                }
            }
        } finally {
            // Nothing of a sent batch stays reachable from here.
            Arrays.fill(keys, 0, n, null);
            Arrays.fill(values, 0, n, null);
            Arrays.fill(headers, 0, n, null);
            Arrays.fill(topics, 0, n, null);
        }
    }
}
