package io.weir.bench.jmh;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.weir.operators.Accumulators;
import io.weir.operators.Json;
import java.nio.charset.StandardCharsets;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The record path's codecs, each next to the baseline it is measured against in the same run:
 * decoding an order (Weir's {@link Json#decode} vs Jackson's tree, the general model it replaced),
 * encoding a running total ({@link Json#encode} vs Jackson's ObjectMapper on the same value), and
 * the running-totals aggregate's update of its state row (deserialise, count and sum, serialise,
 * with {@link Accumulators} vs the same row written as JSON, the general state serde).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgs = {"-Xmx1g", "-XX:+UseParallelGC"})
public class CodecBench {
    private static final int N = 1024;

    private final ObjectMapper mapper = new ObjectMapper();
    private final Accumulators accumulators = new Accumulators(3);
    private byte[][] orders;
    private Object[] totals;
    private byte[][] rows;
    private byte[][] jsonRows;
    private int i;

    @Setup
    public void setUp() {
        Random random = new Random(42);
        orders = new byte[N][];
        totals = new Object[N];
        rows = new byte[N][];
        jsonRows = new byte[N][];
        for (int k = 0; k < N; k++) {
            String user = "u" + random.nextInt(10_000);
            long count = 1 + random.nextInt(1_000);
            long sum = count * (1 + random.nextInt(100));
            long seq = count;
            // As the generator writes them, and as the example job's aggregate emits them.
            orders[k] = ("{\"user\":\"" + user + "\",\"amount\":" + (1 + random.nextInt(100)) + ",\"seq\":" + seq + "}")
                    .getBytes(StandardCharsets.UTF_8);
            totals[k] = Json.decode(("{\"user\":\"" + user + "\",\"count\":" + count + ",\"sum\":" + sum + ",\"lastSeq\":"
                            + seq + "}")
                    .getBytes(StandardCharsets.UTF_8));
            rows[k] = accumulators.serialize(new Object[] {count, sum, seq});
            jsonRows[k] = Json.encode(java.util.List.of(count, sum, seq));
        }
    }

    private int next() {
        return i = (i + 1) & (N - 1);
    }

    @Benchmark
    public Object decode() {
        return Json.decode(orders[next()]);
    }

    @Benchmark
    public Object decodeBaselineJacksonTree() throws Exception {
        return mapper.readTree(orders[next()]);
    }

    @Benchmark
    public byte[] encode() {
        return Json.encode(totals[next()]);
    }

    @Benchmark
    public byte[] encodeBaselineJackson() throws Exception {
        return mapper.writeValueAsBytes(totals[next()]);
    }

    @Benchmark
    public byte[] aggregateRowUpdate() {
        Object[] row = accumulators.deserialize(rows[next()]);
        row[0] = (Long) row[0] + 1;
        row[1] = (Long) row[1] + 42;
        row[2] = (Long) row[2] + 1;
        return accumulators.serialize(row);
    }

    @Benchmark
    public byte[] aggregateRowUpdateBaselineJson() {
        java.util.List<?> row = (java.util.List<?>) Json.decode(jsonRows[next()]);
        return Json.encode(java.util.List.of(
                (Long) row.get(0) + 1, (Long) row.get(1) + 42, (Long) row.get(2) + 1));
    }
}
