package io.weir.state;

import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.function.ToIntFunction;

/**
 * Re-splits the keyed state of a stage's tasks by a new partitioning ({@code weir rescale}): every
 * state entry and timer goes to the task of the partition its record key now belongs to; a task's
 * own entries (its watermarks, which name its input partitions) and state kept under a null key stay
 * with the task of the same number. The layout of the keys is {@link KeyedState}'s, the same for
 * every backend, so the split needs nothing of the operators.
 */
public final class StateSplit {
    private StateSplit() {}

    /** How many entries went where: {@code moved} changed task. */
    public record Counts(long entries, long moved) {}

    /**
     * Copies every entry of {@code from} (task p's store at index p) into the store of {@code into}
     * that {@code partitionOf} names for its record key under the new count. Every keyed entry of
     * task p must be of a key that {@code wasIn} puts in partition p under the old count: a key
     * found elsewhere (an input not partitioned by that function, or records read by the wrong task
     * while partitions were added under a running job) cannot be placed, since its future records
     * may land anywhere, and two tasks may hold state of it. Throws then, naming the task.
     */
    public static Counts split(
            List<StateStore> from,
            List<StateStore> into,
            ToIntFunction<byte[]> wasIn,
            ToIntFunction<byte[]> partitionOf) {
        if (into.size() < from.size()) {
            throw new IllegalArgumentException(
                    "state of " + from.size() + " tasks cannot be split into " + into.size());
        }
        long entries = 0;
        long moved = 0;
        for (int p = 0; p < from.size(); p++) {
            for (Iterator<Map.Entry<byte[], byte[]>> it = from.get(p).scan(new byte[0]); it.hasNext(); ) {
                Map.Entry<byte[], byte[]> e = it.next();
                byte[] key = KeyedState.recordKeyOf(e.getKey());
                int target = p; // a task's own entries, and state under a null key, stay
                if (key != null && key.length > 0) {
                    int before = wasIn.applyAsInt(key);
                    if (before != p) {
                        throw new IllegalStateException("task " + p + " holds state of a key that belongs to partition "
                                + before + " (key " + printable(key) + "): the input is not partitioned by the"
                                + " key's hash, or records were read by another task while partitions were added"
                                + " under the running job; its state cannot be placed");
                    }
                    target = partitionOf.applyAsInt(key);
                }
                if (target < 0 || target >= into.size()) {
                    throw new IllegalStateException(
                            "partition " + target + " of a key is beyond the " + into.size() + " tasks");
                }
                into.get(target).put(e.getKey(), e.getValue());
                entries++;
                if (target != p) {
                    moved++;
                }
            }
        }
        return new Counts(entries, moved);
    }

    /** The key (its first 64 bytes) as text when it is printable ASCII, else as hex. */
    private static String printable(byte[] key) {
        byte[] head = java.util.Arrays.copyOf(key, Math.min(key.length, 64));
        String more = head.length < key.length ? "…" : "";
        String text = new String(head, java.nio.charset.StandardCharsets.US_ASCII);
        return text.chars().allMatch(c -> c >= 0x20 && c < 0x7f)
                ? "'" + text + more + "'"
                : "0x" + java.util.HexFormat.of().formatHex(head) + more;
    }
}
