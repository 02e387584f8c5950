package io.weir.state;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import java.util.AbstractMap;
import java.util.List;
import java.util.Map;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.WriteBatch;

/** A batch serialized on the heap is byte for byte the batch RocksDB builds with a call per entry. */
class WriteBatchesProperties {
    static {
        RocksDB.loadLibrary();
    }

    @Property(tries = 300)
    void theSerializedBatchIsRocksDbsOwn(@ForAll("entries") List<Map.Entry<byte[], byte[]>> entries)
            throws RocksDBException {
        try (WriteBatch expected = new WriteBatch()) {
            for (Map.Entry<byte[], byte[]> e : entries) {
                if (e.getValue() == null) {
                    expected.delete(e.getKey());
                } else {
                    expected.put(e.getKey(), e.getValue());
                }
            }
            byte[] ours = WriteBatches.serialize(entries);
            assertArrayEquals(expected.data(), ours);
            try (WriteBatch parsed = new WriteBatch(ours)) {
                assertArrayEquals(expected.data(), parsed.data());
                org.junit.jupiter.api.Assertions.assertEquals(entries.size(), parsed.count());
            }
        }
    }

    @net.jqwik.api.Example
    void aSizeTheEntriesDoNotTakeIsRefused() {
        List<Map.Entry<byte[], byte[]>> entries =
                List.of(new AbstractMap.SimpleEntry<>(new byte[] {1}, new byte[] {2}));
        long size = WriteBatches.size(entries);
        org.junit.jupiter.api.Assertions.assertEquals(
                WriteBatches.HEADER + WriteBatches.sizeOf(new byte[] {1}, new byte[] {2}), size);
        org.junit.jupiter.api.Assertions.assertThrows(
                IllegalStateException.class, () -> WriteBatches.serialize(entries, size + 1));
    }

    @Provide
    Arbitrary<List<Map.Entry<byte[], byte[]>>> entries() {
        // Lengths around the varint's 1-, 2- and 3-byte boundaries (127/128, 16,383/16,384).
        Arbitrary<Integer> lengths = Arbitraries.oneOf(
                Arbitraries.integers().between(0, 3),
                Arbitraries.integers().between(126, 129),
                Arbitraries.integers().between(16_382, 16_385));
        Arbitrary<byte[]> bytes =
                lengths.flatMap(n -> Arbitraries.bytes().array(byte[].class).ofSize(n));
        Arbitrary<Map.Entry<byte[], byte[]>> entry =
                Combinators.combine(bytes, bytes.injectNull(0.3)).as((k, v) -> new AbstractMap.SimpleEntry<>(k, v));
        return entry.list().ofMaxSize(20);
    }
}
