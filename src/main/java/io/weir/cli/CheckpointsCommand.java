package io.weir.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.weir.app.Jobs;
import io.weir.checkpoint.TaskCheckpoint;
import io.weir.config.WeirConfig;
import io.weir.kafka.CheckpointReader;
import io.weir.kafka.CheckpointRecords;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.DescribeTopicsOptions;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code weir checkpoints list|inspect}: the latest completed checkpoint of each task of a job, with
 * its sizes and phases (records written before Weir recorded phases show "-"); {@code --json} for
 * scripts.
 */
@Command(name = "checkpoints", description = "Show the latest completed checkpoint of each task of a job.")
public final class CheckpointsCommand implements Callable<Integer> {
    private static final ObjectMapper JSON = new ObjectMapper();

    @Parameters(index = "0", description = "list | inspect")
    String action;

    @picocli.CommandLine.Mixin
    JobConfigOptions job;

    @Option(names = "--task", description = "Only this task (default: all).")
    String task;

    @Option(names = "--json", description = "list: one JSON array; inspect: the records as one JSON array.")
    boolean json;

    @Override
    public Integer call() throws Exception {
        if (!action.equals("list") && !action.equals("inspect")) {
            System.err.println("unknown action '" + action + "', expected list or inspect");
            return 2;
        }
        WeirConfig loaded = job.loadOrReport();
        if (loaded == null) {
            return JobConfigOptions.INVALID;
        }
        String topic = loaded.application() + "-checkpoints";
        String missing = missingTopic(loaded, topic);
        if (missing != null) {
            System.err.println("weir checkpoints: " + missing);
            return 1;
        }
        Map<String, TaskCheckpoint> latest;
        try (CheckpointReader reader = new CheckpointReader(Jobs.clients(loaded), topic)) {
            latest = new TreeMap<>(reader.latest(null, Duration.ofSeconds(60)));
        }
        if (task != null) {
            if (!latest.containsKey(task)) {
                System.err.println("weir checkpoints: no checkpoint of task " + task + " in " + topic + " (tasks: "
                        + (latest.isEmpty() ? "none" : String.join(", ", latest.keySet())) + ")");
                return 1;
            }
            latest.keySet().retainAll(Set.of(task));
        }
        if (action.equals("list")) {
            list(latest, json, System.out);
        } else {
            inspect(latest, json, System.out);
        }
        return 0;
    }

    /** Why the checkpoint topic cannot be read (it does not exist, Kafka is not reachable), or null. */
    private static String missingTopic(WeirConfig config, String topic) throws InterruptedException {
        try (Admin admin = Jobs.clients(config).admin(config.application() + "-checkpoints-cli")) {
            // The request's own timeout: the admin's close waits for a request still pending.
            admin.describeTopics(List.of(topic), new DescribeTopicsOptions().timeoutMs(30_000))
                    .allTopicNames()
                    .get(35, TimeUnit.SECONDS);
            return null;
        } catch (ExecutionException e) {
            if (e.getCause() instanceof UnknownTopicOrPartitionException) {
                return "no checkpoint topic " + topic + ": job " + config.application()
                        + " has not checkpointed on this cluster";
            }
            if (e.getCause() instanceof org.apache.kafka.common.errors.TimeoutException) {
                return "cannot reach Kafka at " + config.kafka().bootstrap() + " within 30 s";
            }
            return "cannot read " + topic + ": " + e.getCause();
        } catch (TimeoutException e) {
            return "cannot reach Kafka at " + config.kafka().bootstrap() + " within 30 s";
        }
    }

    static void list(Map<String, TaskCheckpoint> latest, boolean json, PrintStream out) throws IOException {
        if (json) {
            ArrayNode array = JSON.createArrayNode();
            latest.values().forEach(c -> array.add(summary(c)));
            out.println(JSON.writerWithDefaultPrettyPrinter().writeValueAsString(array));
            return;
        }
        out.printf(
                "%-30s %8s  %-24s %7s %12s %12s %8s %8s %8s  %s%n",
                "task",
                "id",
                "time",
                "files",
                "state bytes",
                "uploaded",
                "align ms",
                "sync ms",
                "upload ms",
                "positions");
        for (TaskCheckpoint c : latest.values()) {
            TaskCheckpoint.Stats s = c.stats();
            out.printf(
                    "%-30s %8d  %-24s %7d %12d %12s %8s %8s %8s  %s%n",
                    c.task(),
                    c.checkpointId(),
                    Instant.ofEpochMilli(c.timestamp()),
                    c.state().files().size(),
                    c.stateBytes(),
                    s == null ? "-" : Long.toString(s.uploadedBytes()),
                    s == null ? "-" : Long.toString(s.alignmentMillis()),
                    s == null ? "-" : Long.toString(s.syncMillis()),
                    s == null ? "-" : Long.toString(s.uploadMillis()),
                    c.positions());
        }
    }

    private static ObjectNode summary(TaskCheckpoint c) {
        ObjectNode n = JSON.createObjectNode();
        n.put("task", c.task());
        n.put("id", c.checkpointId());
        n.put("time", Instant.ofEpochMilli(c.timestamp()).toString());
        n.put("files", c.state().files().size());
        n.put("stateBytes", c.stateBytes());
        if (c.stats() != null) {
            n.put("uploadedBytes", c.stats().uploadedBytes());
            ObjectNode phases = n.putObject("phasesMillis");
            phases.put("alignment", c.stats().alignmentMillis());
            phases.put("sync", c.stats().syncMillis());
            phases.put("upload", c.stats().uploadMillis());
        }
        ObjectNode positions = n.putObject("positions");
        c.positions().forEach((ip, offset) -> positions.put(ip.toString(), offset));
        return n;
    }

    static void inspect(Map<String, TaskCheckpoint> latest, boolean json, PrintStream out) throws IOException {
        if (json) {
            ArrayNode array = JSON.createArrayNode();
            for (TaskCheckpoint c : latest.values()) {
                array.add(JSON.readTree(CheckpointRecords.encode(c)));
            }
            out.println(JSON.writerWithDefaultPrettyPrinter().writeValueAsString(array));
            return;
        }
        for (TaskCheckpoint c : latest.values()) {
            out.println(new String(CheckpointRecords.encode(c), StandardCharsets.UTF_8));
        }
    }
}
