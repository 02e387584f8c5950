package io.weir.operators;

import dev.cel.common.values.NullValue;
import io.weir.dataflow.BadRecordException;
import io.weir.dataflow.Codec;
import io.weir.dataflow.Collector;
import io.weir.dataflow.Event;
import io.weir.dataflow.LateRecordException;
import io.weir.dataflow.Operator;
import io.weir.dataflow.OperatorContext;
import io.weir.element.Header;
import io.weir.element.InputPartition;
import io.weir.state.MapState;
import io.weir.state.Serde;
import io.weir.state.Timer;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The {@code join} step: a stream-stream join by key. The task reads the stream (what flows
 * through the chain) and partition p of the other topic ({@code with}), the lower timestamp first;
 * records of the two whose event times are at most {@code within} apart join, and the output is the
 * stream's value (a JSON object) with field {@code as} set to the other's value, at the later of the
 * two timestamps. Each side's records wait per key in map state until the watermark passes their
 * time plus {@code within}: an event-time timer then drops them, and a left join sends a stream
 * record that found no partner, with {@code as} null. So state holds one {@code within} of records
 * per key, and a record arriving once its own window closed is late (dead-letter topic,
 * {@code weir.error=late}). State and watermark are in the checkpoint, so a restart sends no pair
 * twice and none is lost.
 */
public final class Join implements Operator {
    /** The state names of the two buffers, per other topic; exposed for tests that count state. */
    public static String streamState(String topic) {
        return "join:" + topic + ":stream";
    }

    public static String otherState(String topic) {
        return "join:" + topic + ":other";
    }

    /** The headers of buffered stream records that have any, by the record's id. */
    static String streamHeadersState(String topic) {
        return "join:" + topic + ":stream-headers";
    }

    private final String otherTopic;
    private final Codec otherCodec;
    private final long withinMs;
    private final boolean left;
    private final String as;
    private OperatorContext context;
    private MapState<byte[], byte[]> stream;
    private MapState<byte[], byte[]> other;
    private MapState<byte[], byte[]> streamHeaders;
    private long lastOffset = Long.MIN_VALUE;
    private int sameOffset;

    /**
     * @param otherCodec the other topic's value format: its values are kept in state in it
     * @param left whether stream records without a partner are sent (with {@code as} null)
     */
    public Join(String otherTopic, Codec otherCodec, long withinMs, boolean left, String as) {
        this.otherTopic = otherTopic;
        this.otherCodec = otherCodec;
        this.withinMs = withinMs;
        this.left = left;
        this.as = as;
    }

    @Override
    public void open(OperatorContext context) {
        this.context = context;
        this.stream = context.state().mapState(streamState(otherTopic), Serde.BYTES, Serde.BYTES);
        this.other = context.state().mapState(otherState(otherTopic), Serde.BYTES, Serde.BYTES);
        this.streamHeaders = context.state().mapState(streamHeadersState(otherTopic), Serde.BYTES, Serde.BYTES);
    }

    /** The watermark at which a record of time {@code ts} can find no more partners. */
    private long closesAt(long ts) {
        long end = Windows.saturatedAdd(ts, withinMs);
        return end == Long.MAX_VALUE ? end : end + 1;
    }

    @Override
    public void process(Event event, Collector out) {
        if (Aggregate.keyless(event)) {
            throw new BadRecordException("join needs a record key, and this record has none");
        }
        long ts = event.timestamp();
        if (closesAt(ts) <= context.currentWatermark()) {
            throw new LateRecordException(null);
        }
        InputPartition input = context.currentInput();
        boolean fromOther = input != null && input.topic().equals(otherTopic);
        byte[] id = id(ts, context.currentOffset());
        if (fromOther) {
            byte[] value = otherCodec.encode(event.value());
            for (Map.Entry<byte[], byte[]> e : sorted(stream.entries())) {
                long t = timeOf(e.getKey());
                if (Math.abs(t - ts) > withinMs) {
                    continue;
                }
                byte[] row = e.getValue();
                out.emit(joined(valueOf(row), event.value(), Math.max(t, ts), headersOf(e.getKey())));
                if (row[0] == 0) {
                    row = row.clone();
                    row[0] = 1;
                    stream.put(e.getKey(), row);
                }
            }
            other.put(id, value);
        } else {
            if (!(event.value() instanceof Map)) {
                throw new BadRecordException("join adds field " + as + " to the record, which needs a JSON object, was "
                        + Json.describe(event.value()));
            }
            boolean matched = false;
            for (Map.Entry<byte[], byte[]> e : sorted(other.entries())) {
                long t = timeOf(e.getKey());
                if (Math.abs(t - ts) > withinMs) {
                    continue;
                }
                out.emit(joined(event.value(), otherCodec.decode(e.getValue()), Math.max(t, ts), event.headers()));
                matched = true;
            }
            byte[] encoded = Json.encode(event.value());
            byte[] row = new byte[encoded.length + 1];
            row[0] = (byte) (matched ? 1 : 0);
            System.arraycopy(encoded, 0, row, 1, encoded.length);
            stream.put(id, row);
            if (!event.headers().isEmpty()) {
                streamHeaders.put(id, encodeHeaders(event.headers()));
            }
        }
        context.timers().registerEventTime(closesAt(ts));
    }

    @Override
    public void onTimer(Timer timer, Collector out) {
        long now = timer.timestamp();
        for (Map.Entry<byte[], byte[]> e : sorted(stream.entries())) {
            long t = timeOf(e.getKey());
            if (closesAt(t) > now) {
                continue;
            }
            stream.remove(e.getKey());
            byte[] row = e.getValue();
            if (left && row[0] == 0) {
                out.emit(joined(valueOf(row), NullValue.NULL_VALUE, t, headersOf(e.getKey())));
            }
            streamHeaders.remove(e.getKey());
        }
        for (Map.Entry<byte[], byte[]> e : other.entries()) {
            if (closesAt(timeOf(e.getKey())) <= now) {
                other.remove(e.getKey());
            }
        }
    }

    /** The output: the stream record's value with field {@code as} set, with the stream record's headers. */
    private Event joined(Object streamValue, Object otherValue, long ts, List<Header> headers) {
        @SuppressWarnings("unchecked")
        Map<String, Object> fields = new LinkedHashMap<>((Map<String, Object>) streamValue);
        fields.put(as, otherValue == null ? NullValue.NULL_VALUE : otherValue);
        return new Event(context.currentKey(), fields, ts, headers);
    }

    // A buffered stream record is a byte (1: it found a partner) and its value as JSON, as every
    // version wrote it; its headers, when it has any, are kept apart under the same id, so that a
    // version before them reads the rows as they are (a rolling upgrade, a rollback).

    /** The value of a buffered stream record. */
    static Object valueOf(byte[] row) {
        return Json.decode(Arrays.copyOfRange(row, 1, row.length));
    }

    /** The headers of the buffered stream record {@code id}: none when it had none (or an earlier version kept it). */
    private List<Header> headersOf(byte[] id) {
        byte[] kept = streamHeaders.get(id);
        return kept == null ? List.of() : decodeHeaders(kept);
    }

    /** A count, then per header the key's and the value's length (-1: no value) and their bytes. */
    static byte[] encodeHeaders(List<Header> headers) {
        int size = 4;
        for (Header h : headers) {
            size += 8 + h.key().getBytes(StandardCharsets.UTF_8).length + (h.value() == null ? 0 : h.value().length);
        }
        ByteBuffer b = ByteBuffer.allocate(size).putInt(headers.size());
        for (Header h : headers) {
            byte[] key = h.key().getBytes(StandardCharsets.UTF_8);
            b.putInt(key.length).put(key);
            if (h.value() == null) {
                b.putInt(-1);
            } else {
                b.putInt(h.value().length).put(h.value());
            }
        }
        return b.array();
    }

    static List<Header> decodeHeaders(byte[] bytes) {
        ByteBuffer b = ByteBuffer.wrap(bytes);
        int n = b.getInt();
        List<Header> headers = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            byte[] key = new byte[b.getInt()];
            b.get(key);
            int length = b.getInt();
            byte[] value = null;
            if (length >= 0) {
                value = new byte[length];
                b.get(value);
            }
            headers.add(new Header(new String(key, StandardCharsets.UTF_8), value));
        }
        return headers;
    }

    /**
     * A buffered record's id: its timestamp (sign flipped, so ids sort by time), the input offset,
     * and a count of the records one input made (a custom operator before may send several).
     */
    private byte[] id(long ts, long offset) {
        if (offset != lastOffset) {
            lastOffset = offset;
            sameOffset = 0;
        }
        return ByteBuffer.allocate(20)
                .putLong(ts ^ Long.MIN_VALUE)
                .putLong(offset)
                .putInt(sameOffset++)
                .array();
    }

    private static long timeOf(byte[] id) {
        return ByteBuffer.wrap(id).getLong() ^ Long.MIN_VALUE;
    }

    private static List<Map.Entry<byte[], byte[]>> sorted(List<Map.Entry<byte[], byte[]>> entries) {
        List<Map.Entry<byte[], byte[]>> list = new ArrayList<>(entries);
        list.sort((a, b) -> Arrays.compareUnsigned(a.getKey(), b.getKey()));
        return list;
    }
}
