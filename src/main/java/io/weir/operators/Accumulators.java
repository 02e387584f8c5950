package io.weir.operators;

import dev.cel.common.values.NullValue;
import io.weir.state.Serde;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * A compact binary form of an aggregate's row of cells (values of the {@link Json} model, or null
 * for a cell not yet set): longs, doubles, strings and booleans in binary, anything else as JSON
 * text. Reading and writing it costs a fraction of parsing and printing JSON, which dominated the
 * running-totals profile when state was kept as JSON text.
 *
 * <p>Threading: an instance reuses its buffer, so it belongs to one task. Public so tools and tests
 * can read operator state.
 */
public final class Accumulators implements Serde<Object[]> {
    private static final byte UNSET = 0;
    private static final byte LONG = 1;
    private static final byte DOUBLE = 2;
    private static final byte TEXT = 3;
    private static final byte TRUE = 4;
    private static final byte FALSE = 5;
    private static final byte JSON = 6;
    private static final byte NULL = 7;
    private static final VarHandle BIG_ENDIAN_LONG =
            MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);
    private static final VarHandle BIG_ENDIAN_INT =
            MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.BIG_ENDIAN);

    private final int length;
    /** Reused for writing; the bytes handed out are a copy of its used part. */
    private byte[] buffer = new byte[64];

    private int size;

    /** A serde for rows of {@code length} cells. */
    public Accumulators(int length) {
        this.length = length;
    }

    @Override
    public byte[] serialize(Object[] row) {
        size = 0;
        for (Object v : row) {
            write(v);
        }
        return Arrays.copyOf(buffer, size);
    }

    private void write(Object v) {
        if (v == null) {
            writeByte(UNSET);
        } else if (v instanceof Long l) {
            writeByte(LONG);
            writeLong(l);
        } else if (v instanceof Double d) {
            writeByte(DOUBLE);
            writeLong(Double.doubleToLongBits(d));
        } else if (v instanceof String s) {
            writeByte(TEXT);
            bytes(s.getBytes(StandardCharsets.UTF_8));
        } else if (v instanceof Boolean b) {
            writeByte(b ? TRUE : FALSE);
        } else if (v instanceof NullValue) {
            writeByte(NULL);
        } else {
            writeByte(JSON);
            bytes(Json.encode(v));
        }
    }

    private void ensure(int more) {
        if (size + more > buffer.length) {
            buffer = Arrays.copyOf(buffer, Math.max(buffer.length * 2, size + more));
        }
    }

    private void writeByte(byte b) {
        ensure(1);
        buffer[size++] = b;
    }

    private void writeLong(long v) {
        ensure(8);
        BIG_ENDIAN_LONG.set(buffer, size, v);
        size += 8;
    }

    private void bytes(byte[] b) {
        ensure(4 + b.length);
        BIG_ENDIAN_INT.set(buffer, size, b.length);
        System.arraycopy(b, 0, buffer, size + 4, b.length);
        size += 4 + b.length;
    }

    @Override
    public boolean copiesOut() {
        return true; // numbers and text are read out; a JSON cell is decoded from a copy
    }

    @Override
    public Object[] deserialize(byte[] bytes) {
        Object[] row = new Object[length];
        int at = 0;
        try {
            for (int i = 0; i < length; i++) {
                byte kind = bytes[at++];
                switch (kind) {
                    case UNSET -> row[i] = null;
                    case LONG -> {
                        row[i] = (long) BIG_ENDIAN_LONG.get(bytes, at);
                        at += 8;
                    }
                    case DOUBLE -> {
                        row[i] = Double.longBitsToDouble((long) BIG_ENDIAN_LONG.get(bytes, at));
                        at += 8;
                    }
                    case TEXT, JSON -> {
                        int n = (int) BIG_ENDIAN_INT.get(bytes, at);
                        at += 4;
                        if (n < 0 || n > bytes.length - at) {
                            throw new IndexOutOfBoundsException("a cell of " + n + " bytes at " + at);
                        }
                        row[i] = kind == TEXT
                                ? new String(bytes, at, n, StandardCharsets.UTF_8)
                                : Json.decode(Arrays.copyOfRange(bytes, at, at + n));
                        at += n;
                    }
                    case TRUE -> row[i] = Boolean.TRUE;
                    case FALSE -> row[i] = Boolean.FALSE;
                    case NULL -> row[i] = NullValue.NULL_VALUE;
                    default ->
                        throw new IllegalStateException(
                                "operator state is corrupt: unknown value kind " + kind + " at byte " + (at - 1));
                }
            }
            return row;
        } catch (IndexOutOfBoundsException e) {
            throw new IllegalStateException(
                    "operator state is corrupt: a row of " + bytes.length + " bytes ends early", e);
        }
    }
}
