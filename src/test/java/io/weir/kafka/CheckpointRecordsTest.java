package io.weir.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.weir.checkpoint.TaskCheckpoint;
import io.weir.element.InputPartition;
import io.weir.state.StateHandle;
import io.weir.state.StoredFile;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class CheckpointRecordsTest {
    private static final StateHandle STATE =
            new StateHandle("rocksdb", List.of(new StoredFile("t-0/g/3/000009.sst", 4096, 77, List.of("0@12"))));

    @Test
    void aRecordWithStatsRoundTrips() throws Exception {
        TaskCheckpoint c = new TaskCheckpoint(
                "t-0",
                3,
                1_700_000_000_000L,
                Map.of(new InputPartition("orders", 0), 42L),
                STATE,
                new TaskCheckpoint.Stats(12, 3, 40, 4096));

        assertEquals(c, CheckpointRecords.decode(CheckpointRecords.encode(c)));
    }

    /** A record as Weir wrote it before checkpoints carried their phases. */
    @Test
    void aRecordWrittenBeforeStatsExistedStillDecodes() throws Exception {
        String old =
                """
                {"version":1,"task":"t-0","id":3,"time":1700000000000,"offsets":{"orders-0":42},\
                "state":{"backend":"rocksdb","files":[{"name":"t-0/g/3/000009.sst","size":4096,"crc32c":77,\
                "locations":["0@12"]}]}}""";

        TaskCheckpoint c = CheckpointRecords.decode(old.getBytes(StandardCharsets.UTF_8));

        assertEquals(
                new TaskCheckpoint("t-0", 3, 1_700_000_000_000L, Map.of(new InputPartition("orders", 0), 42L), STATE),
                c);
        assertNull(c.stats());
        assertEquals(4096, c.stateBytes());
    }
}
