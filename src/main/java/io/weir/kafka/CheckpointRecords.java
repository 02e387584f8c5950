package io.weir.kafka;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.weir.checkpoint.TaskCheckpoint;
import io.weir.element.InputPartition;
import io.weir.state.StateHandle;
import io.weir.state.StoredFile;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The value format of {@code <app>-checkpoints}: one JSON document per task checkpoint, readable
 * with any Kafka tool. {@code version} guards future changes; an unknown version is an error, not a
 * guess. {@code stats} (the task's phases and uploaded bytes) was added within version 1 and is
 * optional: records written before it decode without.
 */
public final class CheckpointRecords {
    private static final ObjectMapper JSON = new ObjectMapper();

    private CheckpointRecords() {}

    public static byte[] encode(TaskCheckpoint c) {
        ObjectNode root = JSON.createObjectNode();
        root.put("version", TaskCheckpoint.FORMAT_VERSION);
        root.put("task", c.task());
        root.put("id", c.checkpointId());
        root.put("time", c.timestamp());
        ObjectNode offsets = root.putObject("offsets");
        c.positions().forEach((ip, offset) -> offsets.put(ip.toString(), offset));
        ObjectNode state = root.putObject("state");
        state.put("backend", c.state().backend());
        ArrayNode files = state.putArray("files");
        for (StoredFile f : c.state().files()) {
            ObjectNode fn = files.addObject();
            fn.put("name", f.name());
            fn.put("size", f.size());
            fn.put("crc32c", f.crc32c());
            ArrayNode loc = fn.putArray("locations");
            f.locations().forEach(loc::add);
        }
        if (c.stats() != null) {
            ObjectNode stats = root.putObject("stats");
            stats.put("alignmentMillis", c.stats().alignmentMillis());
            stats.put("syncMillis", c.stats().syncMillis());
            stats.put("uploadMillis", c.stats().uploadMillis());
            stats.put("uploadedBytes", c.stats().uploadedBytes());
        }
        try {
            return JSON.writeValueAsBytes(root);
        } catch (IOException e) {
            throw new IllegalStateException("cannot encode checkpoint " + c.checkpointId() + " of " + c.task(), e);
        }
    }

    public static TaskCheckpoint decode(byte[] bytes) throws IOException {
        JsonNode root = JSON.readTree(bytes);
        int version = root.path("version").asInt(-1);
        if (version != TaskCheckpoint.FORMAT_VERSION) {
            throw new IOException("checkpoint record has format version " + version + ", this Weir reads "
                    + TaskCheckpoint.FORMAT_VERSION);
        }
        Map<InputPartition, Long> positions = new HashMap<>();
        root.path("offsets")
                .properties()
                .forEach(e -> positions.put(
                        InputPartition.parse(e.getKey()), e.getValue().asLong()));
        List<StoredFile> files = new ArrayList<>();
        for (JsonNode f : root.path("state").path("files")) {
            List<String> locations = new ArrayList<>();
            f.path("locations").forEach(l -> locations.add(l.asText()));
            files.add(new StoredFile(
                    f.path("name").asText(),
                    f.path("size").asLong(),
                    f.path("crc32c").asLong(),
                    locations));
        }
        StateHandle state = new StateHandle(root.path("state").path("backend").asText("none"), files);
        JsonNode s = root.path("stats");
        TaskCheckpoint.Stats stats = s.isObject()
                ? new TaskCheckpoint.Stats(
                        s.path("alignmentMillis").asLong(),
                        s.path("syncMillis").asLong(),
                        s.path("uploadMillis").asLong(),
                        s.path("uploadedBytes").asLong())
                : null;
        return new TaskCheckpoint(
                root.path("task").asText(),
                root.path("id").asLong(),
                root.path("time").asLong(),
                positions,
                state,
                stats);
    }
}
