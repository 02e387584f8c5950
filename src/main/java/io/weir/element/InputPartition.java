package io.weir.element;

/** A partition of an input topic, independent of the Kafka client's {@code TopicPartition}. */
public record InputPartition(String topic, int partition) implements Comparable<InputPartition> {
    public InputPartition {
        if (topic == null || topic.isEmpty()) {
            throw new IllegalArgumentException("an input partition needs a topic");
        }
        if (partition < 0) {
            throw new IllegalArgumentException("partition must not be negative, was " + partition);
        }
    }

    /** Parses the {@code topic-partition} form of {@link #toString()}. */
    public static InputPartition parse(String s) {
        int dash = s.lastIndexOf('-');
        if (dash <= 0) {
            throw new IllegalArgumentException("expected topic-partition, was '" + s + "'");
        }
        return new InputPartition(s.substring(0, dash), Integer.parseInt(s.substring(dash + 1)));
    }

    @Override
    public int compareTo(InputPartition o) {
        int c = topic.compareTo(o.topic);
        return c != 0 ? c : Integer.compare(partition, o.partition);
    }

    @Override
    public String toString() {
        return topic + "-" + partition;
    }
}
