package io.weir.ops;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.weir.checkpoint.CheckpointStats;
import io.weir.checkpoint.FailureReason;
import io.weir.fixtures.FakeClock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class CheckpointHistoryTest {
    private final FakeClock clock = new FakeClock(1_700_000_000_000L);
    private final CheckpointHistory history = new CheckpointHistory(3, clock);

    private JsonNode json() throws Exception {
        return new ObjectMapper().readTree(history.json());
    }

    @Test
    void listsTheNewestCheckpointsFirstWithPhasesSizesAndStatus() throws Exception {
        long start = clock.millis();
        history.checkpointTriggered(1, start);
        history.checkpointCompleted(
                new CheckpointStats(1, start, 3, 4, 5, 6, 18, 1234, Map.of("b-1", 20L, "b-0", 10L), List.of()));
        clock.advance(Duration.ofSeconds(2));
        history.checkpointTriggered(2, clock.millis());
        history.checkpointFailed(2, FailureReason.TIMEOUT, new IllegalStateException("too slow"));
        history.checkpointTriggered(3, clock.millis());

        JsonNode root = json();
        assertEquals(1, root.get("lastCompletedId").asLong());
        assertEquals(2000, root.get("lastCompletedAgeMillis").asLong());
        JsonNode list = root.get("checkpoints");
        assertEquals(3, list.size());
        assertEquals(3, list.get(0).get("id").asLong());
        assertEquals("in-progress", list.get(0).get("status").asText());
        assertEquals("failed", list.get(1).get("status").asText());
        assertEquals("TIMEOUT: too slow", list.get(1).get("failure").asText());
        JsonNode first = list.get(2);
        assertEquals("completed", first.get("status").asText());
        assertEquals(
                Instant.ofEpochMilli(start).toString(), first.get("startTime").asText());
        assertEquals(3, first.get("durationsMillis").get("alignment").asLong());
        assertEquals(4, first.get("durationsMillis").get("sync").asLong());
        assertEquals(5, first.get("durationsMillis").get("upload").asLong());
        assertEquals(6, first.get("durationsMillis").get("commit").asLong());
        assertEquals(18, first.get("durationsMillis").get("total").asLong());
        assertEquals(1234, first.get("uploadedBytes").asLong());
        assertEquals(10, first.get("stateBytes").get("b-0").asLong());
        assertEquals(20, first.get("stateBytes").get("b-1").asLong());
    }

    @Test
    void keepsAtMostItsCapacityAndASkippedIdIsReplacedByItsRetrigger() throws Exception {
        for (long id = 1; id <= 4; id++) {
            history.checkpointTriggered(id, clock.millis());
        }
        history.checkpointSkipped(4, true);
        history.checkpointTriggered(4, clock.millis());
        history.checkpointSkipped(4, true);

        JsonNode list = json().get("checkpoints");
        assertEquals(3, list.size());
        assertEquals(
                List.of(4L, 3L, 2L),
                List.of(
                        list.get(0).get("id").asLong(),
                        list.get(1).get("id").asLong(),
                        list.get(2).get("id").asLong()));
        assertEquals("skipped", list.get(0).get("status").asText());
        assertFalse(json().has("lastCompletedId"));
    }

    @Test
    void aFailoverFailsWhatWasInFlight() throws Exception {
        history.checkpointTriggered(7, clock.millis());
        history.failedOver(new IllegalStateException("worker died"));

        JsonNode entry = json().get("checkpoints").get(0);
        assertEquals("failed", entry.get("status").asText());
        assertEquals("aborted by failover: worker died", entry.get("failure").asText());
    }
}
