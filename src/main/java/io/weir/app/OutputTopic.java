package io.weir.app;

/**
 * A topic the job writes, created at start when missing: a sink, the dead-letter topic, or an
 * internal repartition topic between two stages. {@code partitions} 0 means as many as the job's
 * source topic has.
 */
public record OutputTopic(String name, int partitions, boolean repartition) {
    public OutputTopic {
        if (partitions < 0) {
            throw new IllegalArgumentException("partitions must not be negative, was " + partitions);
        }
    }
}
