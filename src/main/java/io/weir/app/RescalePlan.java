package io.weir.app;

import io.weir.checkpoint.TaskCheckpoint;
import io.weir.dataflow.Stage;
import io.weir.kafka.CheckpointReader;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The plan of one stage in {@code weir rescale}: its tasks go from {@code before} to {@code after},
 * re-split from {@code checkpoints} (the last completed one of each old task, by partition).
 */
record RescalePlan(Stage stage, int before, int after, Map<Integer, TaskCheckpoint> checkpoints) {

    /** The stages whose inputs' counts changed, with their last checkpoints; refuses what cannot be split. */
    static List<RescalePlan> plan(
            List<Stage> stages, Map<String, Integer> current, Map<String, Integer> recorded, CheckpointReader reader)
            throws Rescaler.Refused, IOException {
        List<RescalePlan> plans = new ArrayList<>();
        for (Stage stage : stages) {
            boolean changed = stage.inputTopics().stream()
                    .anyMatch(t -> recorded.containsKey(t) && !recorded.get(t).equals(current.get(t)));
            if (!changed) {
                continue;
            }
            Set<Integer> before = new TreeSet<>();
            Set<Integer> after = new TreeSet<>();
            for (String t : stage.inputTopics()) {
                if (!recorded.containsKey(t)) {
                    throw new Rescaler.Refused("topic " + t + " of stage " + stage.name()
                            + " has no partition count recorded with the checkpoints");
                }
                before.add(recorded.get(t));
                after.add(current.get(t));
            }
            if (before.size() != 1 || after.size() != 1) {
                throw new Rescaler.Refused("the inputs " + stage.inputTopics() + " of stage " + stage.name()
                        + " are co-partitioned: they must have one count, before " + counts(stage, recorded)
                        + ", now " + counts(stage, current));
            }
            int n = before.iterator().next();
            int m = after.iterator().next();
            if (m < n) {
                throw new Rescaler.Refused("the inputs of stage " + stage.name() + " have fewer partitions (" + m
                        + ") than the checkpoints were taken with (" + n + "): state cannot be merged back");
            }
            Set<String> tasks = new TreeSet<>();
            for (int p = 0; p < n; p++) {
                tasks.add(stage.taskName(p));
            }
            Map<String, TaskCheckpoint> latest = reader.latest(tasks, Rescaler.TIMEOUT);
            Map<Integer, TaskCheckpoint> checkpoints = new TreeMap<>();
            for (int p = 0; p < n; p++) {
                TaskCheckpoint c = latest.get(stage.taskName(p));
                if (c == null) {
                    throw new Rescaler.Refused(
                            "task " + stage.taskName(p) + " has no completed checkpoint to re-split");
                }
                checkpoints.put(p, c);
            }
            plans.add(new RescalePlan(stage, n, m, checkpoints));
        }
        return plans;
    }

    private static Map<String, Integer> counts(Stage stage, Map<String, Integer> counts) {
        Map<String, Integer> of = new LinkedHashMap<>();
        stage.inputTopics().forEach(t -> of.put(t, counts.get(t)));
        return of;
    }
}
