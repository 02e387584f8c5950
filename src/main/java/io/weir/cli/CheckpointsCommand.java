package io.weir.cli;

import io.weir.app.Jobs;
import io.weir.checkpoint.TaskCheckpoint;
import io.weir.config.WeirConfig;
import io.weir.kafka.CheckpointReader;
import io.weir.kafka.CheckpointRecords;
import io.weir.state.StoredFile;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code weir checkpoints list|inspect}: the latest completed checkpoint of each task of a job. */
@Command(name = "checkpoints", description = "Show the latest completed checkpoint of each task of a job.")
public final class CheckpointsCommand implements Callable<Integer> {
    @Parameters(index = "0", description = "list | inspect")
    String action;

    @picocli.CommandLine.Mixin
    JobConfigOptions job;

    @Option(names = "--task", description = "inspect: only this task (default: all).")
    String task;

    @Override
    public Integer call() throws Exception {
        WeirConfig loaded = job.loadOrReport();
        if (loaded == null) {
            return JobConfigOptions.INVALID;
        }
        String topic = loaded.application() + "-checkpoints";
        Map<String, TaskCheckpoint> latest =
                new TreeMap<>(new CheckpointReader(Jobs.clients(loaded), topic).latest(null, Duration.ofSeconds(60)));
        switch (action) {
            case "list":
                System.out.printf(
                        "%-30s %8s  %-24s %7s %12s  %s%n", "task", "id", "time", "files", "bytes", "positions");
                latest.forEach((name, c) -> System.out.printf(
                        "%-30s %8d  %-24s %7d %12d  %s%n",
                        name,
                        c.checkpointId(),
                        Instant.ofEpochMilli(c.timestamp()),
                        c.state().files().size(),
                        c.state().files().stream().mapToLong(StoredFile::size).sum(),
                        c.positions()));
                return 0;
            case "inspect":
                for (TaskCheckpoint c : latest.values()) {
                    if (task == null || task.equals(c.task())) {
                        System.out.println(new String(CheckpointRecords.encode(c), StandardCharsets.UTF_8));
                    }
                }
                return 0;
            default:
                System.err.println("unknown action '" + action + "', expected list or inspect");
                return 2;
        }
    }
}
