package io.weir.checkpoint;

import io.weir.element.Header;
import java.util.List;
import java.util.function.Consumer;

/**
 * The output of one epoch: everything sent here becomes visible together when its checkpoint
 * completes (exactly-once: transaction Tn), or at once (at-least-once).
 *
 * <p>Threading: used concurrently by the worker threads of every task; the failure callback runs
 * on a client I/O thread and must only hand the error to its owner.
 */
public interface EpochOutput {
    long epoch();

    /** Sends a record; {@code timestamp} below 0 lets the producer stamp it. */
    void send(
            String topic,
            byte[] key,
            byte[] value,
            long timestamp,
            List<Header> headers,
            Consumer<Exception> onFailure);

    /**
     * Sends a record to one partition of {@code topic} (watermark markers go to every partition);
     * outputs without partitions (tests, {@code weir test}) ignore {@code partition}.
     */
    default void send(
            String topic,
            int partition,
            byte[] key,
            byte[] value,
            long timestamp,
            List<Header> headers,
            Consumer<Exception> onFailure) {
        send(topic, key, value, timestamp, headers, onFailure);
    }

    /** How many partitions {@code topic} has; 1 for outputs without partitions. */
    default int partitions(String topic) {
        return 1;
    }

    /**
     * Blocks until every record sent so far is acknowledged by the broker. A task calls it at
     * barrier n so that none of its epoch n+1 records can land before its epoch n records.
     */
    void flush();
}
