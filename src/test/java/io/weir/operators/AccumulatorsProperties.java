package io.weir.operators;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.cel.common.values.NullValue;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;

/**
 * The aggregate row format: rows round-trip, and the bytes are the format checkpoints already hold
 * (a {@link DataOutputStream} writing kind bytes, big-endian longs and doubles, length-prefixed
 * UTF-8), so state written by an earlier version still restores.
 */
class AccumulatorsProperties {

    @Property
    void rowsRoundTripInTheFormatCheckpointsHold(@ForAll("rows") List<Object> cells) throws IOException {
        Object[] row = cells.toArray();
        Accumulators serde = new Accumulators(row.length);
        byte[] bytes = serde.serialize(row);
        assertArrayEquals(reference(row), bytes);
        assertEquals(Arrays.asList(row), Arrays.asList(serde.deserialize(bytes)));
        // The serde reuses its buffer: a second row must not change the first row's bytes.
        serde.serialize(new Object[row.length]);
        assertEquals(Arrays.asList(row), Arrays.asList(serde.deserialize(bytes)));
    }

    @Test
    void aTruncatedRowIsReportedAsCorruptState() {
        Accumulators serde = new Accumulators(2);
        byte[] bytes = serde.serialize(new Object[] {5L, "a text cell"});
        IllegalStateException e = assertThrows(
                IllegalStateException.class, () -> serde.deserialize(Arrays.copyOf(bytes, bytes.length - 3)));
        assertEquals(true, e.getMessage().contains("operator state is corrupt"), e.getMessage());
        byte[] unknownKind = bytes.clone();
        unknownKind[0] = 42;
        assertThrows(IllegalStateException.class, () -> serde.deserialize(unknownKind));
    }

    @Provide
    Arbitrary<List<Object>> rows() {
        Arbitrary<Object> cell = Arbitraries.oneOf(
                Arbitraries.just(null),
                Arbitraries.longs().map(v -> (Object) v),
                Arbitraries.doubles().map(v -> (Object) v),
                Arbitraries.strings().ofMaxLength(20).map(v -> (Object) v),
                Arbitraries.of(Boolean.TRUE, Boolean.FALSE).map(v -> (Object) v),
                Arbitraries.just(NullValue.NULL_VALUE),
                Arbitraries.longs().map(v -> (Object) Map.of("n", v, "list", List.of(v, "x"))));
        return cell.list().ofMaxSize(12);
    }

    /** The format as the first version wrote it, with a DataOutputStream. */
    private static byte[] reference(Object[] row) throws IOException {
        ByteArrayOutputStream buffer = new ByteArrayOutputStream();
        DataOutputStream out = new DataOutputStream(buffer);
        for (Object v : row) {
            if (v == null) {
                out.writeByte(0);
            } else if (v instanceof Long l) {
                out.writeByte(1);
                out.writeLong(l);
            } else if (v instanceof Double d) {
                out.writeByte(2);
                out.writeDouble(d);
            } else if (v instanceof String s) {
                byte[] b = s.getBytes(StandardCharsets.UTF_8);
                out.writeByte(3);
                out.writeInt(b.length);
                out.write(b);
            } else if (v instanceof Boolean b) {
                out.writeByte(b ? 4 : 5);
            } else if (v instanceof NullValue) {
                out.writeByte(7);
            } else {
                byte[] b = Json.encode(v);
                out.writeByte(6);
                out.writeInt(b.length);
                out.write(b);
            }
        }
        out.flush();
        return buffer.toByteArray();
    }
}
