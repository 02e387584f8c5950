package io.weir.operators;

import dev.cel.common.values.NullValue;
import io.weir.dataflow.BadRecordException;
import io.weir.dataflow.Codec;
import io.weir.dataflow.Collector;
import io.weir.dataflow.Event;
import io.weir.dataflow.Operator;
import io.weir.dataflow.OperatorContext;
import io.weir.element.InputPartition;
import io.weir.state.Serde;
import io.weir.state.ValueState;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The {@code lookup} step: a stream-table join. The task reads partition p of the table topic along
 * with the stream, the lower timestamp first, and keeps the table's value per key in its state (a
 * tombstone deletes the key); a stream record gets field {@code as} set to its key's value at its
 * timestamp. An inner lookup drops a record whose key has no value, a left one sends it with {@code
 * as} null. Table records go no further than this step.
 *
 * <p>Reading the lower timestamp first does not always hold: while a checkpoint's barrier holds the
 * stream back (alignment), the table is read on (its channel is unaligned: it never waits for the
 * stream, see {@code BarrierHandler}), which on a backlog may lie far ahead in time. So a table record later than the stream's time (the highest timestamp of the
 * stream records this task processed since it opened) is kept aside, per key, as a pending version,
 * and becomes the key's value only once the stream's time reaches it: a stream record sees the table
 * as of the stream's time, whatever order the two topics arrive in. The versions of a key take
 * effect in the topic's order (the latest record wins, as in a compacted topic). The stream's time
 * is not in the checkpoint: after a restore it starts anew, so a stream record out of order right
 * after a restore may see an older version than the run before the restore would have shown it.
 */
public final class Lookup implements Operator {
    private final String tableTopic;
    private final Codec tableCodec;
    private final boolean left;
    private final String as;
    private OperatorContext context;
    private ValueState<byte[]> table;
    /** Per key: table versions later than the stream's time when they came ({@link Versions}). */
    private ValueState<byte[]> pending;
    /** The highest timestamp of the stream records processed since this operator opened. */
    private long streamTime = Long.MIN_VALUE;

    /** The state name of the table; exposed for tests. */
    public static String state(String topic) {
        return "lookup:" + topic;
    }

    public Lookup(String tableTopic, Codec tableCodec, boolean left, String as) {
        this.tableTopic = tableTopic;
        this.tableCodec = tableCodec;
        this.left = left;
        this.as = as;
    }

    @Override
    public void open(OperatorContext context) {
        this.context = context;
        this.table = context.state().valueState(state(tableTopic), Serde.BYTES);
        this.pending = context.state().valueState("lookup-pending:" + tableTopic, Serde.BYTES);
    }

    @Override
    public void process(Event event, Collector out) {
        InputPartition input = context.currentInput();
        if (Aggregate.keyless(event)) {
            throw new BadRecordException("lookup needs a record key, and this record has none");
        }
        if (input != null && input.topic().equals(tableTopic)) {
            byte[] version = event.value() == null ? null : tableCodec.encode(event.value());
            settle(Versions.add(pending.value(), event.timestamp(), version));
            return;
        }
        if (!(event.value() instanceof Map)) {
            throw new BadRecordException("lookup adds field " + as + " to the record, which needs a JSON object, was "
                    + Json.describe(event.value()));
        }
        streamTime = Math.max(streamTime, event.timestamp());
        byte[] waiting = pending.value();
        if (waiting != null) {
            settle(Versions.decode(waiting));
        }
        byte[] row = table.value();
        if (row == null && !left) {
            return;
        }
        @SuppressWarnings("unchecked")
        Map<String, Object> fields = new LinkedHashMap<>((Map<String, Object>) event.value());
        fields.put(as, row == null ? NullValue.NULL_VALUE : tableCodec.decode(row));
        out.emit(event.withValue(fields));
    }

    /** Makes the versions the stream's time reached the key's value, in time order; keeps the rest. */
    private void settle(List<Versions.Version> versions) {
        int applied = 0;
        for (Versions.Version v : versions) {
            if (v.timestamp() > streamTime) {
                break;
            }
            if (v.value() == null) {
                table.clear();
            } else {
                table.update(v.value());
            }
            applied++;
        }
        if (applied == versions.size()) {
            pending.clear();
        } else {
            pending.update(Versions.encode(versions.subList(applied, versions.size())));
        }
    }

    /** A key's pending table versions, in time order, as bytes: count, then (time, length or -1, bytes). */
    static final class Versions {
        private Versions() {}

        /** One version: its timestamp and encoded value (null: a tombstone). */
        record Version(long timestamp, byte[] value) {}

        static List<Version> decode(byte[] bytes) {
            ByteBuffer b = ByteBuffer.wrap(bytes);
            int n = b.getInt();
            List<Version> versions = new ArrayList<>(n + 1);
            for (int i = 0; i < n; i++) {
                long ts = b.getLong();
                int length = b.getInt();
                byte[] value = null;
                if (length >= 0) {
                    value = new byte[length];
                    b.get(value);
                }
                versions.add(new Version(ts, value));
            }
            return versions;
        }

        static byte[] encode(List<Version> versions) {
            int size = 4;
            for (Version v : versions) {
                size += 12 + (v.value() == null ? 0 : v.value().length);
            }
            ByteBuffer b = ByteBuffer.allocate(size);
            b.putInt(versions.size());
            for (Version v : versions) {
                b.putLong(v.timestamp());
                b.putInt(v.value() == null ? -1 : v.value().length);
                if (v.value() != null) {
                    b.put(v.value());
                }
            }
            return b.array();
        }

        /**
         * {@code stored} (null: none) with a version added last, in the topic's order, so the latest
         * record of a key wins as in a compacted topic: one older than a version still waiting takes
         * effect with it, at its time.
         */
        static List<Version> add(byte[] stored, long timestamp, byte[] value) {
            List<Version> versions = stored == null ? new ArrayList<>() : decode(stored);
            long at = versions.isEmpty()
                    ? timestamp
                    : Math.max(timestamp, versions.get(versions.size() - 1).timestamp());
            versions.add(new Version(at, value));
            return versions;
        }
    }
}
