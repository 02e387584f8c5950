package io.weir.cli;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.weir.app.Instance;
import io.weir.app.Jobs;
import io.weir.checkpoint.TaskCheckpoint;
import io.weir.config.WeirConfig;
import io.weir.element.InputPartition;
import io.weir.fixtures.KafkaFixture;
import io.weir.fixtures.TotalsJob;
import io.weir.kafka.CheckpointRecords;
import io.weir.state.StateHandle;
import io.weir.state.StoredFile;
import io.weir.tools.OrderGenerator;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import picocli.CommandLine;

/** {@code weir checkpoints} against the checkpoint topic of a job that ran on the test broker. */
@Timeout(180)
class CheckpointsCommandIT {
    private static final ObjectMapper JSON = new ObjectMapper();

    /** Standard output of a {@code weir checkpoints} that is to succeed. */
    private static String run(TotalsJob job, String... args) {
        return execute(job, 0, false, args);
    }

    /** Standard error of a {@code weir checkpoints} that is to fail with exit code 1. */
    private static String failing(TotalsJob job, String... args) {
        return execute(job, 1, true, args);
    }

    private static String execute(TotalsJob job, int expectedCode, boolean stderr, String... args) {
        List<String> all = new ArrayList<>(List.of(args));
        all.addAll(List.of("--config", TotalsJob.EXAMPLE.toString()));
        for (String set : job.overrides()) {
            all.add("--set");
            all.add(set);
        }
        PrintStream original = stderr ? System.err : System.out;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        PrintStream capture = new PrintStream(captured, true, StandardCharsets.UTF_8);
        if (stderr) {
            System.setErr(capture);
        } else {
            System.setOut(capture);
        }
        try {
            int code = new CommandLine(new CheckpointsCommand()).execute(all.toArray(String[]::new));
            assertEquals(expectedCode, code, captured.toString(StandardCharsets.UTF_8));
        } finally {
            if (stderr) {
                System.setErr(original);
            } else {
                System.setOut(original);
            }
        }
        return captured.toString(StandardCharsets.UTF_8);
    }

    @Test
    void listsTheLatestCheckpointOfEveryTaskWithSizesAndPhases() throws Exception {
        TotalsJob job = TotalsJob.create("ckpt-cli", 2);
        try (OrderGenerator g = new OrderGenerator(KafkaFixture.bootstrap(), job.orders(), 50, 5)) {
            g.send(1_000);
        }
        WeirConfig config = job.config("instance-id=i1", "processing.checkpoint.interval=200ms");
        try (Instance instance = new Instance(Jobs.settings(config), Jobs.clients(config))) {
            instance.start();
            await().atMost(Duration.ofSeconds(90)).until(() -> job.committedInput() >= 1_000);
        }

        JsonNode list = JSON.readTree(run(job, "list", "--json"));
        assertEquals(2, list.size(), list.toString());
        for (JsonNode task : list) {
            assertTrue(task.get("id").asLong() > 0, task.toString());
            assertTrue(task.get("stateBytes").asLong() > 0, task.toString());
            assertTrue(task.get("files").asInt() > 0, task.toString());
            assertTrue(task.has("uploadedBytes"), task.toString());
            for (String phase : new String[] {"alignment", "sync", "upload"}) {
                assertTrue(task.get("phasesMillis").get(phase).asLong() >= 0, task.toString());
            }
            assertEquals(1, task.get("positions").size(), task.toString());
        }
        String firstTask = list.get(0).get("task").asText();

        JsonNode inspected = JSON.readTree(run(job, "inspect", "--json", "--task", firstTask));
        assertEquals(1, inspected.size());
        assertEquals(firstTask, inspected.get(0).get("task").asText());
        assertTrue(inspected.get(0).get("stats").has("uploadMillis"), inspected.toString());

        String table = run(job, "list");
        assertTrue(table.lines().findFirst().orElse("").contains("state bytes"), table);
        assertEquals(3, table.lines().count(), table);
    }

    @Test
    void aJobThatNeverCheckpointedOrATaskItDoesNotHaveIsSaidSo() throws Exception {
        TotalsJob job = TotalsJob.create("ckpt-none", 2);
        String none = failing(job, "list");
        assertTrue(
                none.contains("no checkpoint topic " + job.application() + "-checkpoints: job " + job.application()
                        + " has not checkpointed on this cluster"),
                none);

        try (OrderGenerator g = new OrderGenerator(KafkaFixture.bootstrap(), job.orders(), 50, 6)) {
            g.send(200);
        }
        WeirConfig config = job.config("instance-id=i1", "processing.checkpoint.interval=200ms");
        try (Instance instance = new Instance(Jobs.settings(config), Jobs.clients(config))) {
            instance.start();
            await().atMost(Duration.ofSeconds(90)).until(() -> job.committedInput() >= 200);
        }
        String unknown = failing(job, "inspect", "--task", "nope");
        assertTrue(
                unknown.contains("no checkpoint of task nope in " + job.application() + "-checkpoints (tasks: "),
                unknown);
    }

    @Test
    void aRecordWithoutPhasesIsListedWithDashes() throws Exception {
        TaskCheckpoint old = CheckpointRecords.decode(
                ("{\"version\":1,\"task\":\"t-0\",\"id\":3,\"time\":0,\"offsets\":{\"orders-0\":42},"
                                + "\"state\":{\"backend\":\"rocksdb\",\"files\":[{\"name\":\"f\",\"size\":10,"
                                + "\"crc32c\":1,\"locations\":[]}]}}")
                        .getBytes(StandardCharsets.UTF_8));
        TaskCheckpoint current = new TaskCheckpoint(
                "t-1",
                3,
                0,
                Map.of(new InputPartition("orders", 1), 7L),
                new StateHandle("rocksdb", List.of(new StoredFile("g", 20, 2, List.of()))),
                new TaskCheckpoint.Stats(5, 1, 9, 20));
        Map<String, TaskCheckpoint> latest = new TreeMap<>(Map.of("t-0", old, "t-1", current));

        ByteArrayOutputStream text = new ByteArrayOutputStream();
        CheckpointsCommand.list(latest, false, new PrintStream(text, true, StandardCharsets.UTF_8));
        List<String> lines = text.toString(StandardCharsets.UTF_8).lines().toList();
        assertTrue(
                lines.get(1).matches("t-0\\s+3\\s+\\S+\\s+1\\s+10\\s+-\\s+-\\s+-\\s+-\\s+\\{orders-0=42}"),
                lines.get(1));
        assertTrue(
                lines.get(2).matches("t-1\\s+3\\s+\\S+\\s+1\\s+20\\s+20\\s+5\\s+1\\s+9\\s+\\{orders-1=7}"),
                lines.get(2));

        ByteArrayOutputStream json = new ByteArrayOutputStream();
        CheckpointsCommand.list(latest, true, new PrintStream(json, true, StandardCharsets.UTF_8));
        JsonNode array = JSON.readTree(json.toString(StandardCharsets.UTF_8));
        assertTrue(!array.get(0).has("phasesMillis"));
        assertEquals(9, array.get(1).get("phasesMillis").get("upload").asLong());
    }
}
